package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
)

// A board change whose form names a bad date is refused as a whole: the
// job is not assigned (or its status changed) behind a 422.
func TestBoardChangeWithBadDateChangesNothing(t *testing.T) {
	ff := setupField(t)
	start := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	j := ff.job(ff.orgA.ID, "Open Co", start, 0)
	for _, c := range []*client{ff.admin, ff.admin.htmx()} {
		r := c.post(fmt.Sprintf("/orgs/acme/jobs/%d/assign", j.ID), url.Values{"technician_id": {fmt.Sprint(ff.ana.ID)}, "date": {"someday"}})
		require.Equal(t, http.StatusUnprocessableEntity, r.Code)
		require.Zero(t, ff.storedJob(ff.orgA.ID, j.ID).TechnicianID, "assigned behind a 422")
		r = c.post(fmt.Sprintf("/orgs/acme/jobs/%d/status", j.ID), url.Values{"status": {field.StatusDone}, "date": {"someday"}})
		require.Equal(t, http.StatusUnprocessableEntity, r.Code)
		require.Equal(t, field.StatusScheduled, ff.storedJob(ff.orgA.ID, j.ID).Status, "status changed behind a 422")
	}
}

// A window at the very end of year 9999 in the org's zone is past it in
// UTC, which JSON (the audit log's, the API's) cannot write: each of the
// three ways in refuses it as out of range (422, nothing saved) rather than
// failing with a 500 after validation passed.
func TestJobAtTheEndOfYear9999IsOutOfRangeOnEveryPath(t *testing.T) {
	ff := setupField(t) // acme is in America/New_York
	r := ff.admin.post("/orgs/acme/jobs", jobValues("Far Future", "9999-12-31", "23:00", "23:59"))
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	requireFieldError(t, r, "to", "out of range")

	a := ff.api(ff.newToken(ff.orgA, "sync"))
	res := a.Put("/api/v1/jobs/J-far", `{"customer":"Far","arrival_start":"9999-12-31T23:00","arrival_end":"9999-12-31T23:59"}`)
	fields := apitest.RequireError(t, res, http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields["arrival_end"], "out of range")

	_, doc := previewOf(t, ff.admin, "jobs", "external_ref,customer,date,arrival_from,arrival_to\nJ-far,Far,9999-12-31,23:00,23:59\n")
	require.Equal(t, map[string]string{"2": "error"}, actions(doc))
	require.Contains(t, doc.byID("import-problems").text(), "out of range")
	require.Zero(t, ff.count(`SELECT count(*) FROM jobs`))
}

// PostgreSQL keeps microseconds. A PUT whose times carry nanoseconds was
// compared, as sent, with what was stored, so the same body again was an
// update each time: updated_at moved and the audit log grew per retry.
func TestAPIPutWithNanosecondsIsIdempotent(t *testing.T) {
	ff := setupField(t)
	a := ff.api(ff.newToken(ff.orgA, "sync"))
	body := `{"customer":"Ann","arrival_start":"2026-03-09T13:00:00.123456789Z","arrival_end":"2026-03-09T15:00:00.999999999Z"}`
	r := a.Put("/api/v1/jobs/J-1", body)
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	first := apitest.JSONAt(t, r.Body, "updated_at")
	ff.advance(time.Minute)
	r = a.Put("/api/v1/jobs/J-1", body)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, first, apitest.JSONAt(t, r.Body, "updated_at"), "the same body again changed the job")
	require.Equal(t, 0, ff.count(`SELECT count(*) FROM audit_log WHERE action = 'field.job.update'`))
	require.Equal(t, `"2026-03-09T09:00:00.123456-04:00"`, apitest.JSONAt(t, r.Body, "arrival_start"))
}

// formAsShown is what a browser submits for the form with this id, as the
// page rendered it.
func formAsShown(t *testing.T, doc htmlDoc, id string) url.Values {
	t.Helper()
	form := doc.byID(id)
	require.NotNil(t, form, "no form %s", id)
	v := url.Values{}
	for _, n := range form.findAll(func(n *html.Node) bool {
		return n.Type == html.ElementNode && (n.Data == "input" || n.Data == "select" || n.Data == "textarea")
	}) {
		name := n.attr("name")
		if name == "" {
			continue
		}
		switch {
		case n.n.Data == "textarea":
			var text strings.Builder
			for c := n.n.FirstChild; c != nil; c = c.NextSibling {
				text.WriteString(c.Data)
			}
			v.Add(name, text.String())
		case n.n.Data == "select":
			if o := n.find(func(o *html.Node) bool { _, ok := hasAttr(o, "selected"); return ok && o.Data == "option" }); o != nil {
				v.Add(name, o.attr("value"))
			}
		case n.attr("type") == "checkbox" || n.attr("type") == "radio":
			if _, ok := hasAttr(n.n, "checked"); ok {
				v.Add(name, n.attr("value"))
			}
		default:
			v.Add(name, n.attr("value"))
		}
	}
	return v
}

// A job the API stored with a window ending on a later day (an overnight
// or a multi-day job) kept its end when an admin edits it on the job page,
// say its notes: the form used to read "to" on the start's date, which
// shortened the window without a word (or refused the form).
func TestEditingAMultiDayJobOnTheScreenKeepsItsEnd(t *testing.T) {
	ff := setupField(t)
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	start := time.Date(2026, 3, 9, 22, 0, 0, 0, ny)
	j, err := ff.st.CreateJob(context.Background(), audit.System, ff.clock.Now(), ff.orgA.ID, field.JobInput{
		Customer: "Night Co", ArrivalStart: start, ArrivalEnd: time.Date(2026, 3, 11, 23, 0, 0, 0, ny)})
	require.NoError(t, err)

	path := fmt.Sprintf("/orgs/acme/jobs/%d", j.ID)
	r := ff.admin.get(path)
	require.Equal(t, http.StatusOK, r.Code)
	form := formAsShown(t, parseDoc(t, r.Body), "job-form")
	form.Set("notes", "Ring twice")
	r = ff.admin.post(path, form)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	got := ff.storedJob(ff.orgA.ID, j.ID)
	require.Equal(t, "Ring twice", got.Notes)
	require.True(t, got.ArrivalStart.Equal(start), "start %v", got.ArrivalStart)
	require.True(t, got.ArrivalEnd.Equal(j.ArrivalEnd), "end %v, want %v", got.ArrivalEnd, j.ArrivalEnd)
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// The upload route takes a 5 MB body, 80 times any other form's: only an
// org's admin may make the server read that much. Anyone else (signed out,
// a member, another org's admin) is answered before the body is read past
// the 64 KiB every form gets.
func TestUploadBodyIsReadOnlyForTheOrgsAdmins(t *testing.T) {
	ff := setupField(t)
	file := strings.Repeat("x", 4<<20)
	for name, c := range map[string]*client{"signed out": ff.anon(), "member": ff.membr, "other org's admin": ff.as(&ff.adminB)} {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		require.NoError(t, mw.WriteField("_csrf", c.csrfToken()))
		fw, err := mw.CreateFormFile("file", "jobs.csv")
		require.NoError(t, err)
		_, err = io.WriteString(fw, file)
		require.NoError(t, err)
		require.NoError(t, mw.Close())
		counted := &countingReader{r: &body}
		req := httptest.NewRequest(http.MethodPost, "/orgs/acme/import/jobs", counted)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		for _, ck := range c.hc.Jar.Cookies(mustURL(t, ff.ts.URL)) {
			req.AddCookie(ck)
		}
		rec := httptest.NewRecorder()
		ff.srv.ServeHTTP(rec, req)
		require.Contains(t, []int{http.StatusSeeOther, http.StatusNotFound, http.StatusForbidden}, rec.Code, name)
		require.Less(t, counted.n, maxFormBytes+4096, "%s: the server read %d bytes", name, counted.n)
	}
	require.Zero(t, ff.count(`SELECT count(*) FROM csv_uploads`))
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// An operator looking at a burst of API 429s or 500s must be able to tell
// which token (and so which integration of which org) sent them: the
// request log names the token by id, never by its secret.
func TestAPIRequestLogNamesTheToken(t *testing.T) {
	f := setup(t)
	var logs syncBuffer
	f.srv.log = slog.New(slog.NewJSONHandler(&logs, nil))
	token := f.newToken(f.orgA, "sync")
	var id int64
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT id FROM api_tokens WHERE name = 'sync'`).Scan(&id))
	r := f.api(token).Get("/api/v1/technicians")
	require.Equal(t, http.StatusOK, r.Code)
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		if m["msg"] == "request" && m["route"] == "/api/v1/technicians" {
			line = m
		}
	}
	require.NotNil(t, line, logs.String())
	require.Equal(t, float64(id), line["api_token_id"], logs.String())
	require.Equal(t, float64(f.orgA.ID), line["org_id"], logs.String())
	require.NotContains(t, logs.String(), token)
}

// The three ways in read a local time by one rule (a guard, not a
// finding: they agreed when reviewed): 01:30 on the night New York's
// clocks go back is the first 01:30 (EDT) on the form, in a CSV and
// through the API alike.
func TestAmbiguousLocalTimeIsTheSameInstantOnEveryPath(t *testing.T) {
	ff := setupField(t)                                   // acme is in America/New_York
	want := time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC) // 01:30 EDT

	r := ff.admin.post("/orgs/acme/jobs", jobValues("Form Co", "2026-11-01", "01:30", "03:00"))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	res := ff.api(ff.newToken(ff.orgA, "sync")).Put("/api/v1/jobs/J-api", `{"customer":"API Co","arrival_start":"2026-11-01T01:30","arrival_end":"2026-11-01T03:00"}`)
	require.Equal(t, http.StatusCreated, res.Code, res.Body)
	loc, doc := previewOf(t, ff.admin, "jobs", "external_ref,customer,date,arrival_from,arrival_to\nJ-csv,CSV Co,2026-11-01,01:30,03:00\n")
	require.Equal(t, http.StatusSeeOther, saveImport(t, ff.admin, loc, doc).Code)

	rows, err := ff.db.Query(context.Background(), `SELECT customer, arrival_start FROM jobs WHERE org_id = $1 ORDER BY customer`, ff.orgA.ID)
	require.NoError(t, err)
	got := map[string]time.Time{}
	for rows.Next() {
		var c string
		var at time.Time
		require.NoError(t, rows.Scan(&c, &at))
		got[c] = at.UTC()
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]time.Time{"API Co": want, "CSV Co": want, "Form Co": want}, got)
}
