package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
)

func TestAPIPutCreatesThenUpdatesAndAuditsAsTheToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setZone(f.orgA, "America/New_York")
	api := f.api(f.newToken(f.orgA, "Dispatch sync"))

	tech := map[string]any{"name": "Ana Lima", "email": "ana@acme.test", "phone": "+1 555 0100"}
	r := api.Put("/api/v1/technicians/T-1", tech)
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	require.Equal(t, "T-1", r.JSON["external_ref"])
	require.Equal(t, "Ana Lima", r.JSON["name"])
	require.Equal(t, true, r.JSON["active"])
	require.NotZero(t, r.JSON["id"])
	r = api.Put("/api/v1/technicians/T-1", tech)
	require.Equal(t, http.StatusOK, r.Code, "the same again: %s", r.Body)

	job := map[string]any{"customer": "Mrs Jones", "address": "1 Main St", "arrival_start": "2026-03-09T08:00",
		"arrival_end": "2026-03-09T10:00", "technician_ref": "T-1", "emergency": true, "job_type": "Boiler"}
	r = api.Put("/api/v1/jobs/J-1", job)
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	require.Equal(t, "2026-03-09T08:00:00-04:00", r.JSON["arrival_start"], "local time read in the org's zone (EDT)")
	require.Equal(t, "T-1", r.JSON["technician_ref"])
	require.Equal(t, "scheduled", r.JSON["status"])

	// Deactivated, T-1 keeps the job they had.
	tech["active"] = false
	r = api.Put("/api/v1/technicians/T-1", tech)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, false, r.JSON["active"])
	require.Equal(t, r.JSON, api.Get("/api/v1/technicians/T-1").JSON)
	job["status"] = "done"
	r = api.Put("/api/v1/jobs/J-1", job)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "done", r.JSON["status"])
	require.Equal(t, 1, f.count(`SELECT count(*) FROM jobs WHERE org_id = $1`, f.orgA.ID))

	// Every write is in the audit log with the token's name as the actor.
	rows, err := f.db.Query(context.Background(),
		`SELECT action, actor_email, actor_id IS NULL FROM audit_log WHERE org_id = $1 AND action LIKE 'field.%' ORDER BY id`, f.orgA.ID)
	require.NoError(t, err)
	var got []string
	for rows.Next() {
		var action, actor string
		var noUser bool
		require.NoError(t, rows.Scan(&action, &actor, &noUser))
		require.True(t, noUser)
		got = append(got, action+" by "+actor)
	}
	require.Equal(t, []string{
		"field.technician.create by Dispatch sync", "field.job.create by Dispatch sync",
		"field.technician.update by Dispatch sync", "field.job.update by Dispatch sync",
	}, got)
}

func TestAPIOtherOrgsRefsAreNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a, b := f.api(f.newToken(f.orgA, "a")), f.api(f.newToken(f.orgB, "b"))
	require.Equal(t, http.StatusCreated, b.Put("/api/v1/technicians/T-B", map[string]any{"name": "Bo"}).Code)
	require.Equal(t, http.StatusCreated, b.Put("/api/v1/jobs/J-B", map[string]any{"customer": "B's customer",
		"arrival_start": "2026-03-04T09:00", "arrival_end": "2026-03-04T10:00", "technician_ref": "T-B"}).Code)
	_, err := f.db.Exec(context.Background(), `INSERT INTO ff_briefings (org_id, briefing_date, timezone, status) VALUES ($1, '2026-03-04', 'UTC', 'pending')`, f.orgB.ID)
	require.NoError(t, err)
	before := f.count(`SELECT count(*) FROM audit_log`)

	apitest.RequireError(t, a.Get("/api/v1/technicians/T-B"), http.StatusNotFound, "not_found")
	apitest.RequireError(t, a.Get("/api/v1/jobs/J-B"), http.StatusNotFound, "not_found")
	apitest.RequireError(t, a.Get("/api/v1/briefings/2026-03-04"), http.StatusNotFound, "not_found")
	require.JSONEq(t, `[]`, apitest.JSONAt(t, a.Get("/api/v1/technicians").Body, "technicians"))
	require.JSONEq(t, `[]`, apitest.JSONAt(t, a.Get("/api/v1/jobs?date=2026-03-04").Body, "jobs"))
	// Linking to B's technician: no such technician in A, nothing saved.
	fields := apitest.RequireError(t, a.Put("/api/v1/jobs/J-A", map[string]any{"customer": "A's",
		"arrival_start": "2026-03-04T09:00", "arrival_end": "2026-03-04T10:00", "technician_ref": "T-B"}), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "technician_ref")
	require.Equal(t, 0, f.count(`SELECT count(*) FROM jobs WHERE org_id = $1`, f.orgA.ID))
	require.Equal(t, before, f.count(`SELECT count(*) FROM audit_log`))
	// B's records are untouched, and A's PUT of the same ref is A's own record.
	require.Equal(t, http.StatusCreated, a.Put("/api/v1/technicians/T-B", map[string]any{"name": "A's Bo"}).Code)
	require.Equal(t, "Bo", b.Get("/api/v1/technicians/T-B").JSON["name"])
}

func TestAPIRefusesBadBodiesWithNothingSaved(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	valid := `{"customer":"Mrs Jones","arrival_start":"2026-03-09T08:00","arrival_end":"2026-03-09T10:00"}`

	for name, c := range map[string]struct {
		body   string
		field  string // "" when the error is about the body as a whole
		status int
	}{
		"unknown field":   {`{"customer":"x","arrival_start":"2026-03-09T08:00","arrival_end":"2026-03-09T10:00","colour":"red"}`, "colour", 422},
		"wrong type":      {`{"customer":12,"arrival_start":"2026-03-09T08:00","arrival_end":"2026-03-09T10:00"}`, "customer", 422},
		"invalid JSON":    {`{"customer":"x",`, "", 422},
		"not JSON":        {`customer=x`, "", 422},
		"trailing data":   {valid + `{}`, "", 422},
		"trailing text":   {valid + ` x`, "", 422},
		"array":           {`[` + valid + `]`, "", 422},
		"empty":           {``, "", 422},
		"missing fields":  {`{}`, "customer", 422},
		"bad status":      {`{"customer":"x","arrival_start":"2026-03-09T08:00","arrival_end":"2026-03-09T10:00","status":"lost"}`, "status", 422},
		"25:00":           {`{"customer":"x","arrival_start":"2026-03-09T25:00","arrival_end":"2026-03-09T10:00"}`, "arrival_start", 422},
		"window reversed": {`{"customer":"x","arrival_start":"2026-03-09T10:00","arrival_end":"2026-03-09T08:00"}`, "arrival_end", 422},
		"other ref":       {`{"customer":"x","arrival_start":"2026-03-09T08:00","arrival_end":"2026-03-09T10:00","external_ref":"J-2"}`, "external_ref", 422},
		"2 MiB":           {`{"customer":"` + strings.Repeat("x", 2<<20) + `"}`, "", 413},
	} {
		r := api.Put("/api/v1/jobs/J-1", c.body)
		code := "invalid"
		if c.status == 413 {
			code = "too_large"
		}
		fields := apitest.RequireError(t, r, c.status, code)
		if c.field != "" {
			require.Contains(t, fields, c.field, "%s: %s", name, r.Body)
		}
	}
	r := api.Call(http.MethodPut, "/api/v1/jobs/J-1", valid, "Content-Type", "text/plain")
	apitest.RequireError(t, r, http.StatusUnsupportedMediaType, "unsupported_media_type")
	require.Zero(t, f.count(`SELECT count(*) FROM jobs`))
	require.Zero(t, f.count(`SELECT count(*) FROM audit_log WHERE action LIKE 'field.%'`))

	// A body of exactly 1 MiB is read (and refused for what it says, not its size).
	exact := `{"customer":"` + strings.Repeat("x", 1<<20-len(`{"customer":""}`)) + `"}`
	require.Len(t, exact, 1<<20)
	apitest.RequireError(t, api.Put("/api/v1/jobs/J-1", exact), http.StatusUnprocessableEntity, "invalid")
	// The body without a Content-Type is read as JSON.
	r = api.Call(http.MethodPut, "/api/v1/jobs/J-1", valid, "Content-Type", "")
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
}

func TestAPIChunkedBodyOverTheLimitIs413(t *testing.T) {
	t.Parallel()
	f := setup(t)
	token := f.newToken(f.orgA, "sync")
	// No Content-Length: the limit is met while reading.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(`{"customer":"`))
		_, _ = pw.Write(bytes.Repeat([]byte("x"), 2<<20))
		_ = pw.Close()
	}()
	req, err := http.NewRequest(http.MethodPut, f.ts.URL+"/api/v1/jobs/J-1", pr)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode, string(body))
	require.JSONEq(t, `"too_large"`, apitest.JSONAt(t, string(body), "error", "code"))
}

func TestAPIRateLimitAnswers429WithRetryAfter(t *testing.T) {
	t.Parallel()
	f := setupDeps(t, func(d *Deps) { d.Rate, d.Burst = 0.5, 3 })
	api, other := f.api(f.newToken(f.orgA, "sync")), f.api(f.newToken(f.orgA, "other"))
	for range 3 {
		require.Equal(t, http.StatusOK, api.Get("/api/v1/technicians").Code)
	}
	r := api.Get("/api/v1/technicians")
	apitest.RequireError(t, r, http.StatusTooManyRequests, "rate_limited")
	require.Equal(t, "2", r.Header.Get("Retry-After"), "one request back every 2 s")
	// Writes count too and nothing is saved; other tokens have their own budget.
	apitest.RequireError(t, api.Put("/api/v1/technicians/T-1", map[string]any{"name": "x"}), http.StatusTooManyRequests, "rate_limited")
	require.Zero(t, f.count(`SELECT count(*) FROM technicians`))
	require.Equal(t, http.StatusOK, other.Get("/api/v1/technicians").Code)
	// Refused requests do not use the budget up: after Retry-After, one more.
	f.advance(2 * time.Second)
	require.Equal(t, http.StatusOK, api.Get("/api/v1/technicians").Code)
	apitest.RequireError(t, api.Get("/api/v1/technicians"), http.StatusTooManyRequests, "rate_limited")
}

func TestAPIDateFilterIsTheOrgLocalDayAcrossDST(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setZone(f.orgA, "America/New_York")
	api := f.api(f.newToken(f.orgA, "sync"))
	put := func(ref, start, end string) apitest.Response {
		t.Helper()
		return api.Put("/api/v1/jobs/"+ref, map[string]any{"customer": ref, "arrival_start": start, "arrival_end": end})
	}
	// 2026-03-08 is 23 hours long in New York: clocks jump 02:00 → 03:00.
	for _, j := range [][3]string{
		{"before", "2026-03-07T23:59", "2026-03-08T00:30"},
		{"first", "2026-03-08T00:00", "2026-03-08T01:00"},
		{"pre-gap", "2026-03-08T01:59", "2026-03-08T03:00"},
		{"post-gap", "2026-03-08T03:00", "2026-03-08T04:00"},
		{"offset", "2026-03-08T23:30:00-04:00", "2026-03-09T00:30:00-04:00"},
		{"utc-next", "2026-03-09T04:00:00Z", "2026-03-09T05:00:00Z"}, // 00:00 EDT on the 9th
		{"after", "2026-03-09T00:00", "2026-03-09T01:00"},
	} {
		require.Equal(t, http.StatusCreated, put(j[0], j[1], j[2]).Code, j[0])
	}
	// A time in the gap does not exist: 422 naming the zone, nothing saved.
	fields := apitest.RequireError(t, put("gap", "2026-03-08T02:30", "2026-03-08T04:00"), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields["arrival_start"], "America/New_York")
	require.Zero(t, f.count(`SELECT count(*) FROM jobs WHERE external_ref = 'gap'`))

	list := api.Get("/api/v1/jobs?date=2026-03-08")
	require.Equal(t, http.StatusOK, list.Code, list.Body)
	require.Equal(t, "America/New_York", list.JSON["timezone"])
	require.Equal(t, []string{"first", "pre-gap", "post-gap", "offset"}, customers(t, list))
	require.Equal(t, []string{"utc-next", "after"}, customers(t, api.Get("/api/v1/jobs?date=2026-03-09")))
	require.Equal(t, []string{"before"}, customers(t, api.Get("/api/v1/jobs?date=2026-03-07")))

	// Fall back (2026-11-01, 01:00–02:00 twice): the first occurrence, said so.
	r := put("overlap", "2026-11-01T01:30", "2026-11-01T02:30")
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	require.Equal(t, "2026-11-01T01:30:00-04:00", r.JSON["arrival_start"])
	require.Contains(t, apitest.JSONAt(t, r.Body, "warnings"), "first")
	require.Equal(t, []string{"overlap"}, customers(t, api.Get("/api/v1/jobs?date=2026-11-01")))

	// Without a date, every day's (a date is no longer required).
	require.Len(t, customers(t, api.Get("/api/v1/jobs")), 8)
	for _, q := range []string{"?date=2026-3-8", "?date=2026-02-30", "?date=2026-03-08&limit=0", "?date=2026-03-08&limit=501",
		"?date=2026-03-08&cursor=nope"} {
		fields := apitest.RequireError(t, api.Get("/api/v1/jobs"+q), http.StatusUnprocessableEntity, "invalid")
		require.NotEmpty(t, fields, q)
	}
}

// customers lists a job list's customers in order.
func customers(t testing.TB, r apitest.Response) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	jobs, ok := r.JSON["jobs"].([]any)
	require.True(t, ok, r.Body)
	out := []string{}
	for _, j := range jobs {
		out = append(out, j.(map[string]any)["customer"].(string))
	}
	return out
}

func TestAPIJobListPagesWithACursor(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	var want []string
	for i := range 5 {
		ref := fmt.Sprintf("J-%d", i)
		want = append(want, ref)
		start := fmt.Sprintf("2026-03-04T%02d:00", 8+i)
		require.Equal(t, http.StatusCreated, api.Put("/api/v1/jobs/"+ref, map[string]any{"customer": ref, "arrival_start": start, "arrival_end": start}).Code)
	}
	var got []string
	path := "/api/v1/jobs?date=2026-03-04&limit=2"
	for pages := 0; ; pages++ {
		require.Less(t, pages, 3)
		r := api.Get(path)
		page := customers(t, r)
		require.LessOrEqual(t, len(page), 2)
		got = append(got, page...)
		next, _ := r.JSON["next_cursor"].(string)
		if next == "" {
			require.Nil(t, r.JSON["next_cursor"])
			break
		}
		path = "/api/v1/jobs?date=2026-03-04&limit=2&cursor=" + url.QueryEscape(next)
	}
	require.Equal(t, want, got)
}

func TestAPIBriefing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, revision, generated_at, content)
		VALUES ($1, '2026-03-04', 'Europe/Berlin', 'ready', 2, '2026-03-04T06:00:00Z',
		        '{"date":"2026-03-04","timezone":"Europe/Berlin","technicians":[],"totals":{"jobs":3}}')`, f.orgA.ID)
	require.NoError(t, err)
	r := api.Get("/api/v1/briefings/2026-03-04")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "ready", r.JSON["status"])
	require.Equal(t, "Europe/Berlin", r.JSON["timezone"])
	require.Equal(t, float64(2), r.JSON["revision"])
	require.Equal(t, "2026-03-04T06:00:00Z", r.JSON["generated_at"])
	require.Equal(t, "2026-03-04", apitest.JSONAt(t, r.Body, "content", "date")[1:11])

	apitest.RequireError(t, api.Get("/api/v1/briefings/2026-03-05"), http.StatusNotFound, "not_found")
	fields := apitest.RequireError(t, api.Get("/api/v1/briefings/yesterday"), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "date")
}
