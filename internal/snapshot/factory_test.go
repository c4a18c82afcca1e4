package snapshot

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testutil"
)

type fixture struct{ *testutil.Fixture }

func setup(t *testing.T) *fixture { return &fixture{testutil.Setup(t)} }

var (
	config   = testutil.Config
	utc      = testutil.UTC
	date     = testutil.Date
	mustZone = testutil.MustZone
)

// snapshotOf reads the org's local date d in zone as the generation does
// (one batch in a repeatable-read transaction) and builds its snapshot.
func (f *fixture) snapshotOf(orgID int64, zone, d string) Snapshot {
	f.T.Helper()
	z, err := schedule.LoadZone(zone)
	require.NoError(f.T, err)
	var day *Day
	err = pgx.BeginTxFunc(f.Ctx, f.DB, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		day, err = ReadDay(f.Ctx, tx, orgID, z, date(d))
		return err
	})
	require.NoError(f.T, err)
	return day.Snapshot()
}
