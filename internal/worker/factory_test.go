package worker

import (
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/briefing"
	"fieldbrief/internal/database"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/tick"
)

// fixture is a test's own database, its factories, and the briefing store.
type fixture struct {
	*testutil.Fixture
	store      *briefing.Store
	deliveries *delivery.Store
}

// settle is how long a test waits for what the worker does in the
// background (a generation, a delivery, a retry) to happen: a guard
// against a hang, not a measure of speed. Inside the loaded suite, under
// the race detector, a technician's retried email took more than the 30 s
// that TestTechnicianRetryKeepsMessageID once allowed (docs/testing.md,
// "How make test schedules them").
const settle = testutil.Settle

func setup(t *testing.T) *fixture {
	f := testutil.Setup(t)
	store, err := briefing.NewStore(f.DB)
	require.NoError(t, err)
	deliveries, err := delivery.NewStore(f.DB)
	require.NoError(t, err)
	return &fixture{Fixture: f, store: store, deliveries: deliveries}
}

// insertTask inserts a task as its producer would, in a transaction.
func (f *fixture) insertTask(args river.JobArgs) *rivertype.JobInsertResult {
	f.T.Helper()
	tasks, err := database.InsertClient()
	require.NoError(f.T, err)
	var res *rivertype.JobInsertResult
	require.NoError(f.T, pgx.BeginFunc(f.Ctx, f.DB, func(tx pgx.Tx) error {
		res, err = tasks.InsertTx(f.Ctx, tx, args, nil)
		return err
	}))
	return res
}

var (
	config   = testutil.Config
	utc      = testutil.UTC
	date     = testutil.Date
	mustZone = testutil.MustZone
)

// quickRetries retries a failed task at once: the tests check what a retry
// does, not River's backoff (attempt⁴ seconds), which would make them wait.
type quickRetries struct{}

func (quickRetries) NextRetry(*rivertype.JobRow) time.Time { return time.Now() }

var _ river.ClientRetryPolicy = quickRetries{}

// laterAfterFirstRetry retries a task's first failure at once and any
// later one an hour on: for tests of what is left pending.
type laterAfterFirstRetry struct{}

func (laterAfterFirstRetry) NextRetry(j *rivertype.JobRow) time.Time {
	if j.Attempt <= 1 {
		return time.Now()
	}
	return time.Now().Add(time.Hour)
}

func (f *fixture) ticker() *tick.Ticker {
	return &tick.Ticker{DB: f.DB, Log: slog.New(slog.DiscardHandler)}
}

func (f *fixture) tick(now time.Time) tick.Result {
	f.T.Helper()
	res, err := f.ticker().Tick(f.Ctx, now)
	require.NoError(f.T, err)
	return res
}

// worker is a real Worker on the test database; now is its clock (the
// generation timestamps), nil for the real one.
func (f *fixture) worker(now func() time.Time) *Worker {
	return &Worker{DB: f.DB, Log: slog.New(slog.DiscardHandler), Now: now}
}

// runOnce is worker -once at now: one tick, then every task worked.
func (f *fixture) runOnce(now time.Time) OnceResult {
	f.T.Helper()
	res, err := f.worker(func() time.Time { return now }).RunOnce(f.Ctx, now, time.Minute)
	require.NoError(f.T, err)
	return res
}
