package tick

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/testutil/freeport"
)

// TestTickRetriesTerminatedConnection: every connection the tick is about to
// use was terminated (SQLSTATE 57P01); the tick retries with a fresh one and
// fires every due briefing once.
func TestTickRetriesTerminatedConnection(t *testing.T) {
	f := setup(t)
	for _, slug := range []string{"a", "b", "c"} {
		f.Org(slug, config("Etc/UTC", "08:00"))
	}
	db := f.VictimPool(2)
	// Two connections used just now: the pool hands them out without a ping.
	c1, err := db.Acquire(f.Ctx)
	require.NoError(t, err)
	c2, err := db.Acquire(f.Ctx)
	require.NoError(t, err)
	c1.Release()
	c2.Release()
	require.Equal(t, 2, f.Terminate(f.Ctx))

	tk := &Ticker{DB: db, Log: slog.New(slog.DiscardHandler), WaitLock: true}
	res, err := tk.Tick(f.Ctx, utc("2026-03-10T09:00:00Z"))
	require.NoError(t, err)
	require.Equal(t, 3, res.Enqueued)
	require.Len(t, res.BriefingIDs, 3)
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'`))
}

// TestTickGivesUpOnDatabaseAway: a database that stays away is an
// infrastructure failure, after the retries, within the caller's time.
func TestTickGivesUpOnDatabaseAway(t *testing.T) {
	t.Parallel()
	// Nothing listens there: every connection attempt is refused.
	port, err := freeport.Take()
	require.NoError(t, err)
	db, err := pgxpool.New(t.Context(), fmt.Sprintf("postgres://postgres@127.0.0.1:%d/none?sslmode=disable&connect_timeout=2", port))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	var logs bytes.Buffer
	tk := &Ticker{DB: db, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second) // the caller's bound, shorter than retryBudget
	defer cancel()
	_, err = tk.Tick(ctx, utc("2026-03-10T09:00:00Z"))
	require.Error(t, err)
	require.True(t, database.Transient(err), "%v", err)
	require.Contains(t, logs.String(), "database connection lost, retrying")
}
