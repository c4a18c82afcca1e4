package tick

import (
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil"
)

type fixture struct{ *testutil.Fixture }

func setup(t *testing.T) *fixture { return &fixture{testutil.Setup(t)} }

var (
	config   = testutil.Config
	utc      = testutil.UTC
	date     = testutil.Date
	row      = testutil.Row
	mustZone = testutil.MustZone
)

func (f *fixture) ticker() *Ticker {
	return &Ticker{DB: f.DB, Log: slog.New(slog.DiscardHandler)}
}

func (f *fixture) tick(now time.Time) Result {
	f.T.Helper()
	res, err := f.ticker().Tick(f.Ctx, now)
	require.NoError(f.T, err)
	return res
}

// tickEvery ticks at every step from from to to inclusive, as cron would.
func (f *fixture) tickEvery(from, to time.Time, step time.Duration) (enqueued int) {
	f.T.Helper()
	tk := f.ticker()
	for now := from; !now.After(to); now = now.Add(step) {
		res, err := tk.Tick(f.Ctx, now)
		require.NoError(f.T, err)
		enqueued += res.Enqueued
	}
	return enqueued
}

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveWorkerBinary() // BenchmarkWorkerOnceColdStart's
	os.Exit(code)
}
