package web

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
)

// docs/security.md, "JSON bodies": a JSON body whose members encoding/json would read
// silently otherwise (the last of two wins, names match whatever their
// case, bad bytes become U+FFFD) is 422 naming the member, with the code of
// the problem in the envelope, and nothing is saved.
func TestAPIRefusesDuplicateCaseVariantAndNonUTF8Members(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	job := `"arrival_start":"2026-03-09T08:00","arrival_end":"2026-03-09T10:00"`
	for name, c := range map[string]struct {
		path, body, code, field string
	}{
		"duplicate":            {"/api/v1/technicians/T-1", `{"name":"Ana","name":"Mallory"}`, "duplicate_member", "name"},
		"case variant":         {"/api/v1/technicians/T-1", `{"name":"Ana","Name":"Mallory"}`, "duplicate_member", "Name"},
		"case variant (email)": {"/api/v1/technicians/T-1", `{"name":"Ana","email":"ana@acme.test","EMAIL":"mallory@evil.example"}`, "duplicate_member", "EMAIL"},
		"job duplicate":        {"/api/v1/jobs/J-1", `{"customer":"Mrs Jones",` + job + `,"customer":"Mr Smith"}`, "duplicate_member", "customer"},
		"invalid UTF-8":        {"/api/v1/technicians/T-1", "{\"name\":\"Jos\xe9\"}", "invalid_utf8", "name"},
		"lone surrogate":       {"/api/v1/jobs/J-1", `{"customer":"Mrs \ud800",` + job + `}`, "invalid_utf8", "customer"},
	} {
		r := api.Put(c.path, c.body)
		fields := apitest.RequireError(t, r, http.StatusUnprocessableEntity, c.code)
		require.Contains(t, fields, c.field, "%s: %s", name, r.Body)
		require.Contains(t, r.JSON["error"].(map[string]any)["message"], c.field, name)
	}
	require.Zero(t, f.count(`SELECT count(*) FROM technicians`))
	require.Zero(t, f.count(`SELECT count(*) FROM jobs`))
	// The same names in different objects, and U+FFFD written out, are fine.
	r := api.Put("/api/v1/technicians/T-1", `{"name":"Jos\ufffd `+"\uFFFD"+`"}`)
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
}

// The settings JSON editor reads its document through the same check:
// text that is not UTF-8 is refused beside the field, nothing saved.
func TestSettingsJSONEditorRefusesNonUTF8AndDuplicates(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	before := f.count(`SELECT count(*) FROM audit_log WHERE action LIKE 'config.%'`)
	for name, doc := range map[string]string{
		// A form's bytes are UTF-8 (anything else is 400 before this), but
		// an escape of half a surrogate pair is valid JSON that decodes to
		// U+FFFD.
		"invalid UTF-8":  `{"briefing":{"timezone":"America/Chicago","schedule_local_time":"07:30"},"delivery":{"email":{"to":["ops\ud800@acme.test"]}}}`,
		"case variant":   `{"briefing":{"timezone":"America/Chicago","schedule_local_time":"07:30","Schedule_Local_Time":"09:00"}}`,
		"exact repeated": `{"briefing":{"timezone":"America/Chicago","schedule_local_time":"07:30","schedule_local_time":"09:00"}}`,
	} {
		res := admin.post("/orgs/acme/settings/fieldforce/json", url.Values{"config_json": {doc}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		switch name {
		case "invalid UTF-8":
			require.Contains(t, res.Body, "not UTF-8", name)
		case "case variant": // the schema's names match exactly
			require.Contains(t, res.Body, "not a setting we know", name)
		default:
			require.Contains(t, res.Body, "appears twice", name)
		}
	}
	require.Equal(t, before, f.count(`SELECT count(*) FROM audit_log WHERE action LIKE 'config.%'`))
}
