package auth

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
)

// The task prunes and logs its counts.
func TestPruneTask(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := t.Context()
	now := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	_, err := db.Exec(ctx, `INSERT INTO login_failures (email, failed_at) VALUES ('a@acme.test', $1), ('b@acme.test', $2)`,
		now.Add(-48*time.Hour), now.Add(-time.Minute))
	require.NoError(t, err)
	var out bytes.Buffer
	h := &PruneHandler{DB: db, Log: slog.New(slog.NewJSONHandler(&out, nil)), Now: func() time.Time { return now }}
	require.NoError(t, h.Work(ctx, &river.Job[PruneArgs]{}))
	var line struct {
		Msg                  string
		LoginFailuresDeleted int64 `json:"login_failures_deleted"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())
	require.Equal(t, "auth prune", line.Msg)
	require.Equal(t, int64(1), line.LoginFailuresDeleted)
	var left int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM login_failures`).Scan(&left))
	require.Equal(t, 1, left)
}
