package web

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// A failure on our side shows a member a plain message and the request id
// to quote (the same as the X-Request-Id header and the log line), never
// the database's own words; for htmx requests too.
func TestInternalErrorsShowAPlainMessageAndRequestID(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.memberA)
	_, err := f.db.Exec(context.Background(), `ALTER TABLE ff_briefings RENAME TO ff_briefings_gone`)
	require.NoError(t, err)

	for _, c := range []*client{c, c.htmx()} {
		res := c.get("/orgs/acme/briefings")
		require.Equal(t, http.StatusInternalServerError, res.Code)
		id := res.Header.Get("X-Request-Id")
		require.NotEmpty(t, id)
		require.Contains(t, res.Body, "Something went wrong on our side")
		require.Contains(t, res.Body, "Request id: "+id)
		for _, raw := range []string{"ff_briefings", "relation", "SQLSTATE", "does not exist", "42P01"} {
			require.NotContains(t, res.Body, raw)
		}
	}
}
