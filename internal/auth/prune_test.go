package auth

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
)

func TestPrune(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := t.Context()
	now := time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }

	var userID int64
	require.NoError(t, db.QueryRow(ctx, `INSERT INTO users (email, password_hash) VALUES ('ada@acme.test', 'x') RETURNING id`).
		Scan(&userID))
	sessions := []struct {
		id      string
		created time.Time
		revoked *time.Time
	}{
		{"live", ago(time.Hour), nil},
		{"created-at-bound", ago(sessionRetention), nil},
		{"created-past-bound", ago(sessionRetention + time.Second), nil},
		{"revoked-at-bound", ago(3 * 24 * time.Hour), new(ago(revokedRetention))},
		{"revoked-past-bound", ago(3 * 24 * time.Hour), new(ago(revokedRetention + time.Second))},
		{"revoked-just-now", ago(time.Hour), new(now)},
	}
	for _, s := range sessions {
		_, err := db.Exec(ctx, `INSERT INTO sessions (id, user_id, created_at, last_seen_at, revoked_at) VALUES ($1, $2, $3, $3, $4)`,
			s.id, userID, s.created, s.revoked)
		require.NoError(t, err)
	}
	for _, f := range []struct {
		email string
		at    time.Time
	}{
		{"recent@acme.test", ago(time.Minute)},
		{"at-bound@acme.test", ago(failureRetention)},
		{"past-bound@acme.test", ago(failureRetention + time.Second)},
		{"long-ago@acme.test", ago(90 * 24 * time.Hour)},
	} {
		_, err := db.Exec(ctx, `INSERT INTO login_failures (email, failed_at) VALUES ($1, $2)`, f.email, f.at)
		require.NoError(t, err)
	}
	remaining := func(query string) []string {
		rows, err := db.Query(ctx, query)
		require.NoError(t, err)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return got
	}

	s, f, err := Prune(ctx, db, now)
	require.NoError(t, err)
	require.Equal(t, int64(2), s)
	require.Equal(t, int64(2), f)
	require.Equal(t, []string{"created-at-bound", "live", "revoked-at-bound", "revoked-just-now"},
		remaining(`SELECT id FROM sessions ORDER BY id`))
	require.Equal(t, []string{"at-bound@acme.test", "recent@acme.test"},
		remaining(`SELECT email FROM login_failures ORDER BY email`))

	s, f, err = Prune(ctx, db, now)
	require.NoError(t, err)
	require.Zero(t, s, "nothing left to prune at the same instant")
	require.Zero(t, f)
}
