package field_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
)

// BenchmarkUpsertJobsByRef10k imports 10,000 jobs (a third unassigned, the
// rest over 50 technicians) in one transaction, the way the CSV import does:
// first into an empty org (all created), then again (all unchanged).
func BenchmarkUpsertJobsByRef10k(b *testing.B) {
	ctx := context.Background()
	db := testdb.New(b)
	o, err := (&tenants.Store{DB: db}).CreateOrg(ctx, "acme", "Acme", time.Time{})
	require.NoError(b, err)
	actor := audit.Actor{Email: "bench"}
	techs := make([]field.TechnicianInput, 50)
	for i := range techs {
		techs[i] = field.TechnicianInput{Name: fmt.Sprintf("Tech %d", i), ExternalRef: fmt.Sprintf("T%d", i), Active: true}
	}
	_, err = field.UpsertTechniciansByRef(ctx, db, actor, o.ID, techs)
	require.NoError(b, err)
	start := time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC)
	jobs := func() []field.JobInput {
		out := make([]field.JobInput, 10000)
		for i := range out {
			out[i] = field.JobInput{ExternalRef: fmt.Sprintf("J%05d", i), Customer: fmt.Sprintf("Customer %d", i),
				Address: fmt.Sprintf("%d Main St", i), ArrivalStart: start.Add(time.Duration(i%600) * time.Minute),
				ArrivalEnd: start.Add(time.Duration(i%600+120) * time.Minute), Notes: "Ring twice"}
			if i%3 != 0 {
				out[i].TechnicianRef = fmt.Sprintf("T%d", i%50)
			}
		}
		return out
	}
	for _, phase := range []string{"create", "unchanged"} {
		b.Run(phase, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				if phase == "create" {
					_, err := db.Exec(ctx, `DELETE FROM jobs WHERE org_id = $1`, o.ID)
					require.NoError(b, err)
				}
				in := jobs()
				b.StartTimer()
				err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
					res, err := field.UpsertJobsByRef(ctx, tx, actor, start, o.ID, in)
					if err == nil && res.Created+res.Unchanged != len(in) {
						err = fmt.Errorf("unexpected result %+v", res)
					}
					return err
				})
				require.NoError(b, err)
			}
		})
	}
}
