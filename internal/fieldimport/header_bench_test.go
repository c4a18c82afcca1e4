package fieldimport

import (
	"bytes"
	"testing"
)

// BenchmarkReadWideHeader measures reading a file that is one line of 5 MB
// of commas (docs/field-data.md, "CSV import": the header is bounded
// before it is parsed): as the upload reads it, and as every preview, the
// columns step and the save read the stored upload again.
//
//	go test -run '^$' -bench ReadWideHeader -benchmem ./internal/fieldimport/
func BenchmarkReadWideHeader(b *testing.B) {
	file := bytes.Repeat([]byte{','}, MaxBytes)
	b.Run("upload", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Read(bytes.NewReader(file), Jobs, ReadOptions{})
		}
	})
	b.Run("stored", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = readContent(file, Jobs, ReadOptions{})
		}
	})
}
