package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFormBodiesAreCapped: a form or JSON document over 64 KiB is refused
// with 413 and a message saying so, and nothing is saved.
func TestFormBodiesAreCapped(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	before := fingerprint(t, f)

	days := make([]string, 20_000) // ~180 KB of days=mon
	for i := range days {
		days[i] = "mon"
	}
	res := admin.post(settingsPath, url.Values{"timezone": {"UTC"}, "schedule_local_time": {"07:00"}, "days": days})
	require.Equal(t, http.StatusRequestEntityTooLarge, res.Code)
	require.Contains(t, res.Body, "larger than 64 KiB")

	big := `{"briefing":{"timezone":"UTC","schedule_local_time":"07:00","x":"` + strings.Repeat("a", 70<<10) + `"}}`
	res = admin.post(settingsPath+"/json", url.Values{"config_json": {big}})
	require.Equal(t, http.StatusRequestEntityTooLarge, res.Code)
	require.Contains(t, res.Body, "larger than 64 KiB")
	require.Equal(t, before, fingerprint(t, f))
}

// TestManyDaysAreOneError: a days list longer than the week is one error,
// not one per entry (checking entry by entry against every earlier error
// was quadratic: 160k entries took 33 s).
func TestManyDaysAreOneError(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	days := make([]string, 2000)
	for i := range days {
		days[i] = "mon"
	}
	res := admin.post(settingsPath, url.Values{"timezone": {"UTC"}, "schedule_local_time": {"07:00"}, "days": days})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	// Not require.Contains: a failure would print thousands of errors.
	require.True(t, strings.Contains(res.Body, "list each day at most once"))
	require.False(t, strings.Contains(res.Body, "listed twice"))
}

// TestLongFieldsAreRefused: free-text fields have a length limit, checked
// before anything is stored.
func TestLongFieldsAreRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	staff := f.as(&f.staff)
	res := staff.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "confirm": {flagKey}, "reason": {strings.Repeat("x", 1001)}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "at most 1,000 characters")
	require.True(t, f.globalFlag())
	res = staff.post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"off"}, "reason": {strings.Repeat("x", 1001)}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "at most 1,000 characters")
	require.Zero(t, f.auditCount())
}

// TestSignInEmailIsCapped: no account has an email over 254 characters, so
// a longer one is refused beside the field without a database round trip
// or a throttle entry.
func TestSignInEmailIsCapped(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()
	c.get("/login")
	before := fingerprint(t, f)
	res := c.post("/login", url.Values{"email": {strings.Repeat("a", 250) + "@acme.test"}, "password": {"x"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "at most 254 characters")
	require.Equal(t, before, fingerprint(t, f))
}
