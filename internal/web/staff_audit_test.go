package web

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seedAudit writes entries straight into the log, each with its own time,
// actor, org, action and reason (the log is append-only: inserts only).
func seedAudit(t *testing.T, f *fixture, rows ...[6]string) {
	t.Helper()
	for _, r := range rows { // at, actor, org slug ("" for none), action, reason, new value
		_, err := f.db.Exec(context.Background(), `
			INSERT INTO audit_log (at, actor_email, org_id, action, target, reason, new_value)
			VALUES ($1::timestamptz, $2, (SELECT id FROM orgs WHERE slug = nullif($3, '')), $4, 'fieldforce.briefing', $5, nullif($6, '')::jsonb)`,
			r[0], r[1], r[2], r[3], r[4], r[5])
		require.NoError(t, err)
	}
}

// auditReasons is the reason column of each entry on a page, in order.
func auditReasons(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<tr class="audit-entry">.*?<td>([^<]*)</td></tr>`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestAuditFilters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	seedAudit(t, f,
		[6]string{"2026-03-01T10:00:00Z", "ops@fieldbrief.test", "acme", "flag.org.set", "first", `{"state":"off"}`},
		[6]string{"2026-03-02T23:59:59Z", "ops@fieldbrief.test", "globex", "flag.org.set", "second INCIDENT-42", ""},
		[6]string{"2026-03-03T00:00:00Z", "anna@fieldbrief.test", "", "flag.global.set", "third", `{"enabled":false}`},
		[6]string{"2026-03-04T08:00:00Z", "anna@fieldbrief.test", "acme", "fieldforce.config.update", "fourth 100% sure", `{"note":"Big_Change"}`},
	)
	c := f.as(&f.staff)
	get := func(q url.Values) []string {
		t.Helper()
		res := c.get("/staff/audit?" + q.Encode())
		require.Equal(t, http.StatusOK, res.Code, res.Body)
		return auditReasons(t, res.Body)
	}
	require.Equal(t, []string{"fourth 100% sure", "third", "second INCIDENT-42", "first"}, get(nil), "newest first")
	require.Equal(t, []string{"third", "second INCIDENT-42"}, get(url.Values{"from": {"2026-03-02"}, "to": {"2026-03-03"}}), "UTC days, the to day included")
	require.Equal(t, []string{"fourth 100% sure", "first"}, get(url.Values{"org": {"acme"}}))
	require.Equal(t, []string{"third"}, get(url.Values{"actor": {"anna"}, "to": {"2026-03-03"}, "action": {"flag.global.set"}}), "filters combine")
	require.Equal(t, []string{"fourth 100% sure", "third"}, get(url.Values{"actor": {"ANNA@"}}), "actor: any case")
	require.Equal(t, []string{"second INCIDENT-42", "first"}, get(url.Values{"action": {"flag.org.set"}}))
	require.Equal(t, []string{"second INCIDENT-42"}, get(url.Values{"q": {"incident-42"}}), "search: any case, in the reason")
	require.Equal(t, []string{"fourth 100% sure"}, get(url.Values{"q": {"big_change"}}), "search in the new value")
	require.Equal(t, []string{"first"}, get(url.Values{"q": {`"state"`}}), "search in the JSON text")
	require.Equal(t, []string{"fourth 100% sure"}, get(url.Values{"q": {"100%"}}), "% is a character, not a wildcard")
	require.Empty(t, get(url.Values{"q": {"_"}, "org": {"globex"}}), "_ is a character, not a wildcard")

	// The form shows the filters it applied, and the action choices.
	page := c.get("/staff/audit?org=acme&q=sure&action=fieldforce.config.update").Body
	require.Contains(t, page, `<input id="org" name="org" type="search" value="acme"`)
	require.Contains(t, page, `<input id="q" name="q" type="search" value="sure"`)
	require.Contains(t, page, `<option value="fieldforce.config.update" selected>`)
	require.Contains(t, page, `<option value="flag.global.set">`)
	require.Contains(t, page, `href="/staff/audit/export.csv?action=fieldforce.config.update&amp;org=acme&amp;q=sure"`)

	// Bad filters: 422, the message beside the field, nothing else broken.
	for q, want := range map[string]string{
		"from=yesterday":                `<p class="field-error" id="from-error">Enter a date as YYYY-MM-DD`,
		"from=2026-03-04&to=2026-03-01": `<p class="field-error" id="to-error">Choose a day on or after`,
		"org=Not%20a%20slug!":           `<p class="field-error" id="org-error">An org slug has`,
		"q=" + strings.Repeat("x", 101): `<p class="field-error" id="q-error">Keep it to at most 100 characters.`,
	} {
		res := c.get("/staff/audit?" + q)
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, q)
		require.Contains(t, res.Body, want, q)
	}
	require.Equal(t, http.StatusBadRequest, c.get("/staff/audit?before=abc").Code)
}

func TestAuditIsStaffOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, path := range []string{"/staff/audit", "/staff/audit?org=acme", "/staff/audit/export.csv", "/staff/audit/export.csv?org=acme"} {
		require.Equal(t, http.StatusForbidden, f.as(&f.adminA).get(path).Code, path)
		require.Equal(t, http.StatusForbidden, f.as(&f.memberB).get(path).Code, path)
		require.Equal(t, http.StatusSeeOther, f.anon().get(path).Code, path)
	}
}

// Pages follow (at, id) down the log: every entry once, none skipped, even
// when many share one instant.
func TestAuditKeysetPagination(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO audit_log (at, actor_email, action, reason)
		SELECT '2026-03-01T00:00:00Z'::timestamptz + ((g / 7) * interval '1 minute'), 'ops@fieldbrief.test', 'test.entry', 'r' || g
		FROM generate_series(1, 123) g`)
	require.NoError(t, err)
	c := f.as(&f.staff)
	seen := map[string]bool{}
	var order []string
	path, pages := "/staff/audit?action=test.entry", 0
	for path != "" {
		res := c.get(path)
		require.Equal(t, http.StatusOK, res.Code)
		pages++
		reasons := auditReasons(t, res.Body)
		require.LessOrEqual(t, len(reasons), 50)
		for _, r := range reasons {
			require.False(t, seen[r], "%s twice", r)
			seen[r] = true
			order = append(order, r)
		}
		next := regexp.MustCompile(`<a href="(/staff/audit\?[^"]*)" rel="next">`).FindStringSubmatch(res.Body)
		path = ""
		if next != nil {
			path = strings.ReplaceAll(next[1], "&amp;", "&")
			require.Contains(t, path, "action=test.entry", "the filters carry over")
		}
		require.Less(t, pages, 5)
	}
	require.Equal(t, 3, pages)
	require.Len(t, seen, 123)
	require.Equal(t, "r123", order[0])
	require.Equal(t, "r1", order[122])
}

func TestAuditCSVExport(t *testing.T) {
	t.Parallel()
	f := setup(t)
	seedAudit(t, f,
		[6]string{"2026-03-01T10:00:00Z", "ops@fieldbrief.test", "acme", "flag.org.set", "=HYPERLINK(\"http://evil\")", `{"state":"off"}`},
		[6]string{"2026-03-02T10:00:00Z", "ops@fieldbrief.test", "globex", "flag.org.set", "+1, -2, @home", ""},
		[6]string{"2026-03-03T10:00:00Z", "anna@fieldbrief.test", "acme", "flag.global.set", "plain, with \"quotes\"\nand a line", `{"enabled":false}`},
	)
	c := f.as(&f.staff)
	res := c.get("/staff/audit/export.csv?org=acme")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	require.Equal(t, "text/csv; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, res.Header.Get("Content-Disposition"), `attachment; filename="audit-`)
	recs, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"id", "at_utc", "actor", "org", "action", "target", "reason", "old_value", "new_value"}, recs[0])
	require.Len(t, recs, 3, "the org filter applies")
	require.Equal(t, []string{"2026-03-03T10:00:00Z", "anna@fieldbrief.test", "acme", "flag.global.set", "fieldforce.briefing", "plain, with \"quotes\"\nand a line", "", `{"enabled": false}`}, recs[1][1:])
	require.Equal(t, `'=HYPERLINK("http://evil")`, recs[2][6], "a formula is defused")

	all, err := csv.NewReader(strings.NewReader(c.get("/staff/audit/export.csv").Body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, all, 4)
	require.Equal(t, "'+1, -2, @home", all[2][6])

	empty := c.get("/staff/audit/export.csv?q=nothing-matches")
	require.Equal(t, http.StatusOK, empty.Code)
	require.Equal(t, strings.Join(recs[0], ",")+"\n", empty.Body, "an empty set is the header alone")
	bad := c.get("/staff/audit/export.csv?from=nope")
	require.Equal(t, http.StatusUnprocessableEntity, bad.Code)
	require.Contains(t, bad.Body, "These filters cannot be used (from): Enter a date as YYYY-MM-DD")
}

func TestCSVSafe(t *testing.T) {
	for in, want := range map[string]string{"": "", "=1+2": "'=1+2", "+1": "'+1", "-1": "'-1", "@x": "'@x", "\tx": "'\tx", "\rx": "'\rx", "a=b": "a=b", "{\"a\":1}": "{\"a\":1}"} {
		require.Equal(t, want, csvSafe(in), strconv.Quote(in))
	}
}

// Past 50,000 rows the export stops, and its last row says so.
func TestAuditCSVExportIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50,001 audit entries")
	}
	t.Parallel()
	f := setup(t)
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO audit_log (at, actor_email, action, reason)
		SELECT '2026-03-01T00:00:00Z'::timestamptz + g * interval '1 second', 'ops@fieldbrief.test', 'bulk', 'r' || g
		FROM generate_series(1, 50001) g`)
	require.NoError(t, err)
	res := f.as(&f.staff).get("/staff/audit/export.csv")
	require.Equal(t, http.StatusOK, res.Code)
	_, err = csv.NewReader(strings.NewReader(res.Body)).ReadAll()
	require.Error(t, err, "the note row has one field") // csv: wrong number of fields
	r := csv.NewReader(strings.NewReader(res.Body))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+50000+1)
	require.Equal(t, "r50001", recs[1][6])
	require.Equal(t, []string{"# export stopped at 50000 rows; narrow the filters (dates) for older entries"}, recs[len(recs)-1])
}
