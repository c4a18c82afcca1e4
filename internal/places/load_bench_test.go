package places

import "testing"

// BenchmarkLoad is the cost of the first search: reading places.tsv into
// the index.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		parse(data, aliasData, namesData)
	}
}
