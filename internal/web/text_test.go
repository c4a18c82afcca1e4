package web

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNULAndInvalidUTF8Are400: PostgreSQL refuses NUL bytes and invalid
// UTF-8 in text, which made these requests 500s. They are the client's
// mistake: 400 with a message that says what is wrong, and nothing stored.
func TestNULAndInvalidUTF8Are400(t *testing.T) {
	t.Parallel()
	f := setup(t)
	staff, admin := f.as(&f.staff), f.as(&f.adminA)
	before := fingerprint(t, f)
	for _, bad := range []string{"a\x00b", "a\xffb", "\xc3\x28"} {
		for name, res := range map[string]response{
			"flag reason":    staff.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "confirm": {flagKey}, "reason": {bad}}),
			"org flag":       staff.post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"off"}, "reason": {bad}}),
			"settings form":  admin.post(settingsPath, url.Values{"timezone": {bad}, "schedule_local_time": {"07:00"}, "days": {"mon"}}),
			"settings json":  admin.post(settingsPath+"/json", url.Values{"config_json": {`{"briefing":{"timezone":"` + bad + `"}}`}}),
			"sign-in":        f.anon().post("/login", url.Values{"email": {bad}, "password": {bad}}),
			"org slug":       admin.get("/orgs/" + url.PathEscape(bad) + "/briefings"),
			"staff org slug": staff.post("/staff/orgs/"+url.PathEscape(bad)+"/flags/"+flagKey, url.Values{"state": {"off"}}),
			"audit filters":  staff.get("/staff/audit?org=" + url.QueryEscape(bad) + "&actor=" + url.QueryEscape(bad)),
			"flags search":   staff.get("/staff/flags?q=" + url.QueryEscape(bad)),
			"zone search":    admin.get(settingsPath + "/zones?q=" + url.QueryEscape(bad)),
		} {
			require.Equal(t, http.StatusBadRequest, res.Code, "%s %q", name, bad)
			require.Contains(t, res.Body, "not valid UTF-8", "%s %q", name, bad)
		}
	}
	require.Equal(t, before, fingerprint(t, f))
}
