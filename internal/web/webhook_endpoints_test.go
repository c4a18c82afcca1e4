package web

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/config"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/webhooks"
	"fieldbrief/internal/worker"
)

// hookReceiver is a loopback webhook endpoint that keeps what it gets.
type hookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []hookRequest
}

type hookRequest struct {
	Header http.Header
	Body   []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, hookRequest{Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *hookReceiver) requests() []hookRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hookRequest(nil), r.got...)
}

// runWorkerOnce runs a real worker once: events captured so far go to
// their endpoints.
func (f *fixture) runWorkerOnce() {
	f.t.Helper()
	log := slog.New(slog.DiscardHandler)
	sender, err := delivery.NewSender(f.db, transport.Settings{AllowPrivateWebhooks: true}, log)
	require.NoError(f.t, err)
	res, err := (&worker.Worker{DB: f.db, Log: log, Sender: sender}).RunOnce(context.Background(), f.clock.Now(), 0)
	require.NoError(f.t, err)
	require.True(f.t, res.Done(), "tasks left: %v", res.Waiting)
}

const hooksPath = "/orgs/acme/settings/webhooks"

// TestWebhookEndpointReceivesAPIWritesSigned: an admin adds an endpoint on
// the settings page and copies its secret; writes through /api/v1 reach
// it as signed events, in order, each body's object the API's own answer
// for the record; the endpoint's page logs them. Another org's admin gets
// a 404 for the endpoint, a member a 403, and globex's writes never reach
// acme's endpoint.
func TestWebhookEndpointReceivesAPIWritesSigned(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.AllowPrivateWebhooks = true })
	f.setZone(f.orgA, "America/New_York")
	rcv := newHookReceiver(t)
	admin := f.as(&f.adminA)

	r := admin.post(hooksPath, url.Values{"url": {rcv.URL + "/hooks"}, "description": {"CRM"},
		"events": {"job.created", "job.updated", "technician.created"}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	secret := html.UnescapeString(between(t, r.Body, `id="webhook-secret-value">`, "<"))
	require.True(t, transport.ValidWebhookSecret(secret), secret)
	id := int64(f.count(`SELECT id FROM webhook_endpoints WHERE org_id = $1`, f.orgA.ID))
	endpointPath := hooksPath + "/" + strconv.FormatInt(id, 10)

	acme := f.api(f.newToken(f.orgA, "sync"))
	tech := acme.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana Lima", "email": "ana@example.com"})
	require.Equal(t, http.StatusCreated, tech.Code, tech.Body)
	job := acme.Put("/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00",
		"arrival_end": "2026-03-09T10:00", "technician_ref": "T-1"})
	require.Equal(t, http.StatusCreated, job.Code, job.Body)
	patch := acme.Call(http.MethodPatch, "/api/v1/jobs/J-1", `{"status": "in_progress"}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, patch.Code, patch.Body)
	globex := f.api(f.newToken(f.orgB, "sync"))
	require.Equal(t, http.StatusCreated, globex.Put("/api/v1/jobs/J-1", map[string]any{"customer": "Globex customer",
		"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00"}).Code)

	f.runWorkerOnce()
	got := rcv.requests()
	require.Len(t, got, 3)
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	var types []string
	var bodies []map[string]any
	for _, g := range got {
		require.NoError(t, wh.Verify(g.Body, g.Header), "signed with the secret the page showed")
		var ev map[string]any
		require.NoError(t, json.Unmarshal(g.Body, &ev))
		require.Equal(t, g.Header.Get("webhook-id"), ev["id"])
		types = append(types, ev["type"].(string))
		bodies = append(bodies, ev)
	}
	// In order per record (the job's two events); records apart may interleave.
	require.ElementsMatch(t, []string{"technician.created", "job.created", "job.updated"}, types)
	require.Less(t, slices.Index(types, "job.created"), slices.Index(types, "job.updated"))
	data := func(typ string) map[string]any { return bodies[slices.Index(types, typ)]["data"].(map[string]any) }
	require.Equal(t, map[string]any{"slug": "acme", "name": "Acme Field Services"}, data("job.created")["org"])
	require.Equal(t, job.JSON, data("job.created")["object"], "the event carries the record as the API answered it")
	require.Equal(t, tech.JSON, data("technician.created")["object"])
	require.Equal(t, patch.JSON, data("job.updated")["object"])
	require.Equal(t, []any{"status"}, data("job.updated")["changed"])
	require.Equal(t, map[string]any{"status": "scheduled"}, data("job.updated")["previous"])

	page := admin.get(endpointPath)
	require.Equal(t, http.StatusOK, page.Code, page.Body)
	require.Contains(t, page.Body, `data-state="delivered"`)
	require.Contains(t, page.Body, "job.updated")

	// Another org's admin, a member, nobody signed in.
	other := f.as(&f.adminB)
	require.Equal(t, http.StatusNotFound, other.get("/orgs/globex/settings/webhooks/"+strconv.FormatInt(id, 10)).Code)
	require.Equal(t, http.StatusNotFound, other.post("/orgs/globex/settings/webhooks/"+strconv.FormatInt(id, 10)+"/delete", nil).Code)
	require.Equal(t, http.StatusNotFound, other.post("/orgs/globex/settings/webhooks/"+strconv.FormatInt(id, 10)+"/secret", nil).Code)
	require.Equal(t, http.StatusNotFound, other.get(endpointPath).Code)
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).get(hooksPath).Code)
	require.Equal(t, http.StatusSeeOther, f.anon().get(hooksPath).Code)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM webhook_endpoints WHERE org_id = $1`, f.orgA.ID))
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(endpointPath+"/delete", nil).Code)
}

// TestWebhookEndpointFormsRefuseBadInputAndAudit: a bad URL or no event
// is a 422 beside the field with nothing saved; a stale version a 409; a
// rotation needs its confirmation; each change is in the org's audit log.
func TestWebhookEndpointFormsRefuseBadInputAndAudit(t *testing.T) {
	t.Parallel()
	f := setup(t) // private addresses refused
	admin := f.as(&f.adminA)

	r := admin.post(hooksPath, url.Values{"url": {"http://127.0.0.1:9/x"}, "events": {"job.created"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, r.Body, `id="url-error"`)
	r = admin.post(hooksPath, url.Values{"url": {"https://hooks.example.com/x"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, r.Body, `id="events-error"`)
	require.Equal(t, 0, f.count(`SELECT count(*) FROM webhook_endpoints`))

	r = admin.htmx().post(hooksPath, url.Values{"url": {"https://hooks.example.com/x"}, "events": {"job.created", "job.deleted"}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	id := strconv.Itoa(f.count(`SELECT id FROM webhook_endpoints WHERE org_id = $1`, f.orgA.ID))
	path := hooksPath + "/" + id

	r = admin.post(path, url.Values{"url": {"ftp://hooks.example.com/y"}, "events": {"job.created"}, "version": {"1"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	r = admin.post(path, url.Values{"url": {"https://hooks.example.com/y"}, "events": {"job.created"}, "version": {"7"}})
	require.Equal(t, http.StatusConflict, r.Code)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM webhook_endpoints WHERE url = 'https://hooks.example.com/x' AND events = '{job.created,job.deleted}'`))
	r = admin.post(path, url.Values{"url": {"https://hooks.example.com/y"}, "events": {"technician.deactivated"}, "version": {"1"}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM webhook_endpoints WHERE url = 'https://hooks.example.com/y' AND events = '{technician.deactivated}'`))

	r = admin.post(path+"/rotate", nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	before := html.UnescapeString(between(t, admin.post(path+"/secret", nil).Body, `id="webhook-secret-value">`, "<"))
	after := html.UnescapeString(between(t, admin.post(path+"/rotate", url.Values{"confirm": {"rotate"}}).Body, `id="webhook-secret-value">`, "<"))
	require.NotEqual(t, before, after)
	require.True(t, transport.ValidWebhookSecret(after))

	require.Equal(t, http.StatusOK, admin.post(path+"/delete", nil).Code)
	require.Equal(t, 0, f.count(`SELECT count(*) FROM webhook_endpoints`))
	require.Equal(t, http.StatusNotFound, admin.post(path+"/delete", nil).Code)
	require.Equal(t, 4, f.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action LIKE 'webhook.endpoint.%'
	                               AND actor_email = 'admin@acme.test'`, f.orgA.ID))
	require.Equal(t, 0, f.count(`SELECT count(*) FROM audit_log WHERE coalesce(new_value::text, '') || coalesce(old_value::text, '') LIKE '%whsec_%'`))
}

// TestWebhookEventsOfEveryAPIWrite: the writes the first test leaves out
// reach an endpoint too, through /api/v1: the by-id paths (a record made
// on a screen, without a reference, patched, given a reference and
// replaced), a technician's update, deactivation and deletion. Each event
// has its own id (the webhook-id header), each record's events come in the
// order they were made, and job.updated and technician.updated name the
// members that changed.
func TestWebhookEventsOfEveryAPIWrite(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.AllowPrivateWebhooks = true })
	rcv := newHookReceiver(t)
	admin := f.as(&f.adminA)
	r := admin.post(hooksPath, url.Values{"url": {rcv.URL + "/hooks"}, "events": webhooks.EventTypes})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	secret := html.UnescapeString(between(t, r.Body, `id="webhook-secret-value">`, "<"))

	// Made on a screen: no reference.
	ctx := context.Background()
	var tech, job int64
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO technicians (org_id, name) VALUES ($1, 'Screen Sam') RETURNING id`, f.orgA.ID).Scan(&tech))
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO jobs (org_id, customer, arrival_start, arrival_end)
		VALUES ($1, 'Walk-in', '2026-03-09T16:00Z', '2026-03-09T17:00Z') RETURNING id`, f.orgA.ID).Scan(&job))
	acme := f.api(f.newToken(f.orgA, "sync"))
	patch := func(path, body string) {
		t.Helper()
		r := acme.Call(http.MethodPatch, path, body, "Content-Type", mergePatch)
		require.Equal(t, http.StatusOK, r.Code, r.Body)
	}
	tp, jp := "/api/v1/technicians/by-id/"+strconv.FormatInt(tech, 10), "/api/v1/jobs/by-id/"+strconv.FormatInt(job, 10)
	patch(tp, `{"phone": "+1 555 0100"}`)
	patch(tp, `{"active": false}`)
	patch(jp, `{"notes": "Gate code 4411", "external_ref": "J-7"}`)
	put := acme.Put(jp, map[string]any{"customer": "Walk-in", "notes": "Gate code 4411", "arrival_start": "2026-03-09T10:00", "arrival_end": "2026-03-09T11:00"})
	require.Equal(t, http.StatusOK, put.Code, put.Body)
	require.Equal(t, http.StatusOK, acme.Call(http.MethodDelete, tp, nil).Code)

	f.runWorkerOnce()
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	ids := map[string]bool{}
	perRecord := map[string][]string{} // "kind id" → types in the order received
	changed := map[string][]any{}
	for _, g := range rcv.requests() {
		require.NoError(t, wh.Verify(g.Body, g.Header))
		var ev map[string]any
		dec := json.NewDecoder(bytes.NewReader(g.Body))
		dec.UseNumber() // ids take 16 digits
		require.NoError(t, dec.Decode(&ev))
		id := g.Header.Get("webhook-id")
		require.Equal(t, id, ev["id"])
		require.False(t, ids[id], "event id %s sent for two events", id)
		ids[id] = true
		data := ev["data"].(map[string]any)
		obj := data["object"].(map[string]any)
		key := obj["id"].(json.Number).String()
		perRecord[key] = append(perRecord[key], ev["type"].(string))
		if c, ok := data["changed"].([]any); ok {
			changed[ev["type"].(string)+" "+strconv.Itoa(len(perRecord[key]))] = c
		}
	}
	require.Equal(t, []string{"technician.created", "technician.updated", "technician.deactivated", "technician.deleted"},
		perRecord[strconv.FormatInt(tech, 10)])
	require.Equal(t, []string{"job.created", "job.updated", "job.updated"}, perRecord[strconv.FormatInt(job, 10)])
	require.Equal(t, []any{"phone"}, changed["technician.updated 2"])
	require.Equal(t, []any{"active"}, changed["technician.deactivated 3"])
	require.Equal(t, []any{"external_ref", "notes"}, changed["job.updated 2"])
	require.Equal(t, []any{"arrival_start", "arrival_end"}, changed["job.updated 3"])
}

// TestJobDeletionThroughTheAPIIsAnEventAndATombstone: a DELETE
// of a job through /api/v1 sends a signed job.deleted, with the job as it
// was, to an endpoint that chose it (and nothing else to it), and the
// jobs' feed lists the job among its deletions afterwards.
func TestJobDeletionThroughTheAPIIsAnEventAndATombstone(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.AllowPrivateWebhooks = true })
	rcv := newHookReceiver(t)
	admin := f.as(&f.adminA)
	r := admin.post(hooksPath, url.Values{"url": {rcv.URL + "/hooks"}, "events": {webhooks.JobDeleted}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	secret := html.UnescapeString(between(t, r.Body, `id="webhook-secret-value">`, "<"))

	acme := f.api(f.newToken(f.orgA, "sync"))
	start := acme.Get("/api/v1/jobs?updated_since=2000-01-01T00:00:00Z")
	require.Equal(t, http.StatusOK, start.Code, start.Body)
	since := start.JSON["complete_until"].(string)
	for _, ref := range []string{"J-1", "J-2"} {
		put := acme.Put("/api/v1/jobs/"+ref, map[string]any{"customer": "Mrs " + ref, "arrival_start": "2026-03-09T10:00", "arrival_end": "2026-03-09T11:00"})
		require.Equal(t, http.StatusCreated, put.Code, put.Body)
	}
	got := acme.Get("/api/v1/jobs/J-1")
	del := acme.Call(http.MethodDelete, "/api/v1/jobs/J-1", nil, "If-Match", got.Header.Get("ETag"))
	require.Equal(t, http.StatusOK, del.Code, del.Body)
	require.Equal(t, true, del.JSON["deleted"])
	require.Equal(t, http.StatusNotFound, acme.Get("/api/v1/jobs/J-1").Code)

	f.runWorkerOnce()
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	reqs := rcv.requests()
	require.Len(t, reqs, 1, "the endpoint chose job.deleted only")
	require.NoError(t, wh.Verify(reqs[0].Body, reqs[0].Header))
	var ev struct {
		Type string `json:"type"`
		Data struct {
			Object map[string]any `json:"object"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(reqs[0].Body, &ev))
	require.Equal(t, "job.deleted", ev.Type)
	require.Equal(t, "J-1", ev.Data.Object["external_ref"])
	require.Equal(t, "Mrs J-1", ev.Data.Object["customer"], "the job as it was")

	feed := acme.Get("/api/v1/jobs?updated_since=" + url.QueryEscape(since))
	require.Equal(t, http.StatusOK, feed.Code, feed.Body)
	deleted, _ := feed.JSON["deleted"].([]any)
	require.Len(t, deleted, 1, feed.Body)
	require.Equal(t, "J-1", deleted[0].(map[string]any)["external_ref"])
	jobs := feed.JSON["jobs"].([]any)
	require.Len(t, jobs, 1)
	require.Equal(t, "J-2", jobs[0].(map[string]any)["external_ref"], "the deleted job is gone from the changes")
}
