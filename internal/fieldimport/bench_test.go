package fieldimport_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/fieldimport"
)

// BenchmarkImport10k measures a 10,000-job file (about 1 MB), assigned to
// technicians by reference: the preview (read, check, upsert in a
// rolled-back transaction), and the save alone (the same, committed) of a
// file whose rows are all new, then of the same file again (all unchanged).
// BenchmarkRead10k is the CSV reading and row checks within them.
//
//	go test -run '^$' -bench Import10k -benchtime 5x ./internal/fieldimport/
func BenchmarkImport10k(b *testing.B) {
	bb := setup(b)
	bb.importOK(b, bb.acme, fieldimport.Technicians, techs)
	file := jobsFile(10_000, 0)
	for _, stage := range []string{"preview", "save-new", "save-unchanged"} {
		b.Run(stage, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				_, err := bb.store.DB.Exec(bb.ctx, `DELETE FROM jobs`)
				require.NoError(b, err)
				if stage == "save-unchanged" {
					bb.importOK(b, bb.acme, fieldimport.Jobs, file)
				}
				up, err := bb.store.SaveUpload(bb.ctx, bb.acme.ID, bb.user.ID, fieldimport.Jobs, "jobs.csv", []byte(file), bb.now)
				require.NoError(b, err)
				if stage != "preview" {
					p, err := bb.store.Preview(bb.ctx, up, bb.zone, bb.now, false)
					require.NoError(b, err)
					b.StartTimer()
					_, err = bb.save(up, p)
					require.NoError(b, err)
					continue
				}
				b.StartTimer()
				_, err = bb.store.Preview(bb.ctx, up, bb.zone, bb.now, false)
				require.NoError(b, err)
			}
		})
	}
}

func BenchmarkRead10k(b *testing.B) {
	file := []byte(jobsFile(10_000, 0))
	for b.Loop() {
		_, err := fieldimport.Read(bytes.NewReader(file), fieldimport.Jobs, fieldimport.ReadOptions{})
		require.NoError(b, err)
	}
}
