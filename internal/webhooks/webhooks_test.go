package webhooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/field"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/webhooks"
	"fieldbrief/internal/worker"
)

type fixture struct {
	t          *testing.T
	ctx        context.Context
	db         *pgxpool.Pool
	hooks      *webhooks.Store
	field      *field.Store
	orgA, orgB int64
}

var admin = audit.Actor{UserID: 0, Email: "admin@acme.test"}

func setup(t *testing.T) *fixture {
	t.Helper()
	t.Parallel()
	f := &fixture{t: t, ctx: t.Context(), db: testdb.New(t)}
	f.hooks = &webhooks.Store{DB: f.db, AllowPrivate: true}
	f.field = &field.Store{DB: f.db}
	for _, o := range []struct {
		slug string
		id   *int64
	}{{"acme", &f.orgA}, {"globex", &f.orgB}} {
		require.NoError(t, f.db.QueryRow(f.ctx, `INSERT INTO orgs (slug, name) VALUES ($1, $1 || ' Inc') RETURNING id`, o.slug).Scan(o.id))
	}
	_, err := f.db.Exec(f.ctx, `INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'fieldforce', $2)`,
		f.orgA, `{"briefing": {"timezone": "America/New_York", "schedule_local_time": "07:00"}}`)
	require.NoError(t, err)
	return f
}

// receiver is a loopback endpoint that records what it is sent and
// answers with status(n) for the nth request (from 1).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	status func(n int) int
}

type received struct {
	Header http.Header
	Body   []byte
	Event  webhooks.Event
	Raw    map[string]any
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	r := &receiver{status: status}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		var ev webhooks.Event
		_ = json.Unmarshal(body, &ev)
		var raw map[string]any
		_ = json.Unmarshal(body, &raw)
		r.got = append(r.got, received{Header: req.Header.Clone(), Body: body, Event: ev, Raw: raw})
		n := len(r.got)
		r.mu.Unlock()
		code := http.StatusOK
		if r.status != nil {
			code = r.status(n)
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// quickRetries retries at once, so a test sees River's retries without
// waiting for its backoff.
type quickRetries struct{}

func (quickRetries) NextRetry(*rivertype.JobRow) time.Time { return time.Now() }

// work runs a real worker once: the events captured so far are handed to
// their endpoints and delivered, retries included.
func (f *fixture) work() {
	f.t.Helper()
	log := slog.New(slog.DiscardHandler)
	sender, err := delivery.NewSender(f.db, transport.Settings{AllowPrivateWebhooks: true}, log)
	require.NoError(f.t, err)
	w := &worker.Worker{DB: f.db, Log: log, Sender: sender, RetryPolicy: quickRetries{}}
	res, err := w.RunOnce(f.ctx, time.Time{}, time.Minute)
	require.NoError(f.t, err)
	require.True(f.t, res.Done(), "tasks left: %v", res.Waiting)
}

func (f *fixture) endpoint(orgID int64, url string, events ...string) (webhooks.Endpoint, string) {
	f.t.Helper()
	e, err := f.hooks.Create(f.ctx, admin, orgID, webhooks.EndpointInput{URL: url, Events: events})
	require.NoError(f.t, err)
	secret, err := f.hooks.Secret(f.ctx, orgID, e.ID)
	require.NoError(f.t, err)
	return e, secret
}

func (f *fixture) tech(orgID int64, name, ref string) field.Technician {
	f.t.Helper()
	t, err := f.field.CreateTechnician(f.ctx, admin, orgID, field.TechnicianInput{Name: name, Active: true, ExternalRef: ref})
	require.NoError(f.t, err)
	return t
}

var start = time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC)

func (f *fixture) job(orgID int64, customer, ref string, techID int64) field.Job {
	f.t.Helper()
	j, err := f.field.CreateJob(f.ctx, admin, time.Now(), orgID, field.JobInput{Customer: customer, ExternalRef: ref,
		ArrivalStart: start, ArrivalEnd: start.Add(2 * time.Hour), TechnicianID: techID})
	require.NoError(f.t, err)
	return j
}

var all = webhooks.EventTypes

// TestEndpointRules: bad input is a 422 naming each field and saves
// nothing; an org has at most ten endpoints; another org's endpoint ids
// are not found for any action; each change is audited without the secret.
func TestEndpointRules(t *testing.T) {
	f := setup(t)
	strict := &webhooks.Store{DB: f.db}
	for _, in := range []webhooks.EndpointInput{
		{URL: "", Events: all},
		{URL: "ftp://hooks.example.com/x", Events: all},
		{URL: "https://127.0.0.1/x", Events: all},
		{URL: "https://hooks.example.com/x"},
		{URL: "https://hooks.example.com/x", Events: []string{"job.exploded"}},
		{URL: "https://hooks.example.com/x", Events: all, Description: "two\nlines"},
	} {
		_, err := strict.Create(f.ctx, admin, f.orgA, in)
		require.Equal(t, apperr.Invalid, apperr.Code(err), "%+v", in)
	}
	list, err := f.hooks.List(f.ctx, f.orgA)
	require.NoError(t, err)
	require.Empty(t, list)

	var ids []int64
	for range webhooks.MaxEndpoints {
		e, _ := f.endpoint(f.orgA, "https://hooks.example.com/x", webhooks.JobCreated, webhooks.JobCreated)
		require.Equal(t, []string{webhooks.JobCreated}, e.Events)
		ids = append(ids, e.ID)
	}
	_, err = f.hooks.Create(f.ctx, admin, f.orgA, webhooks.EndpointInput{URL: "https://hooks.example.com/y", Events: all})
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	_, err = f.hooks.Delete(f.ctx, admin, f.orgA, ids[3])
	require.NoError(t, err)
	_, err = f.hooks.Create(f.ctx, admin, f.orgA, webhooks.EndpointInput{URL: "https://hooks.example.com/y", Events: all})
	require.NoError(t, err, "a removed endpoint's slot is free again")

	// globex's admin tries acme's endpoint.
	id := ids[0]
	_, err = f.hooks.Get(f.ctx, f.orgB, id)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = f.hooks.Update(f.ctx, admin, f.orgB, id, webhooks.EndpointInput{URL: "https://evil.example.com", Events: all})
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = f.hooks.Delete(f.ctx, admin, f.orgB, id)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = f.hooks.Secret(f.ctx, f.orgB, id)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = f.hooks.RotateSecret(f.ctx, admin, f.orgB, id)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	e, err := f.hooks.Get(f.ctx, f.orgA, id)
	require.NoError(t, err)
	require.Equal(t, "https://hooks.example.com/x", e.URL)

	// A stale version saves nothing.
	_, err = f.hooks.Update(f.ctx, admin, f.orgA, id, webhooks.EndpointInput{URL: "https://hooks.example.com/z", Events: all, Version: e.Version + 1})
	require.Equal(t, apperr.Stale, apperr.Code(err))
	up, err := f.hooks.Update(f.ctx, admin, f.orgA, id, webhooks.EndpointInput{URL: "https://hooks.example.com/z", Events: all, Version: e.Version})
	require.NoError(t, err)
	require.Equal(t, e.Version+1, up.Version)

	before, err := f.hooks.Secret(f.ctx, f.orgA, id)
	require.NoError(t, err)
	after, err := f.hooks.RotateSecret(f.ctx, admin, f.orgA, id)
	require.NoError(t, err)
	require.NotEqual(t, before, after)
	require.True(t, transport.ValidWebhookSecret(after))

	var actions []string
	rows, err := f.db.Query(f.ctx, `SELECT action || ' ' || coalesce(new_value::text, '') || coalesce(old_value::text, '')
	                                  FROM audit_log WHERE org_id = $1 AND target = $2 ORDER BY id`, f.orgA, "webhook_endpoint:"+itoa(id))
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		require.NotContains(t, s, "whsec_")
		actions = append(actions, s[:len("webhook.endpoint.create")])
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"webhook.endpoint.create", "webhook.endpoint.update", "webhook.endpoint.rotate"}, actions)
}

// TestEventsCarryTheRecordAndTheChangedMembers: every writer's change is
// captured by the trigger; the body is the API's representation (a job's
// window in the org's zone, its technician's reference), an update names
// the members that changed and their previous values, a deactivation is
// its own type, a bookkeeping-only change and the other org's changes give
// nothing.
func TestEventsCarryTheRecordAndTheChangedMembers(t *testing.T) {
	f := setup(t)
	rcv := newReceiver(t, nil)
	_, secret := f.endpoint(f.orgA, rcv.URL, all...)

	ana := f.tech(f.orgA, "Ana Ruiz", "T-1")
	ben := f.tech(f.orgA, "Ben Ode", "")
	j := f.job(f.orgA, "Mrs Jones", "J-1", ana.ID)
	in := j.Input()
	in.Status, in.Notes, in.TechnicianID = field.StatusInProgress, "Gate code 4411", ben.ID
	_, err := f.field.UpdateJob(f.ctx, admin, time.Now(), f.orgA, j.ID, in)
	require.NoError(t, err)
	_, err = f.field.RevokeDayLinks(f.ctx, admin, f.orgA, ben.ID) // bookkeeping only: no event
	require.NoError(t, err)
	_, err = f.field.SetTechnicianActive(f.ctx, admin, f.orgA, ana.ID, false)
	require.NoError(t, err)
	gone := f.tech(f.orgA, "Temp", "")
	require.NoError(t, f.field.DeleteTechnician(f.ctx, admin, f.orgA, gone.ID, 0))
	// globex changes its own records: nothing of it reaches acme's endpoint.
	f.job(f.orgB, "Globex customer", "J-1", f.tech(f.orgB, "Gus", "T-1").ID)

	f.work()
	got := rcv.requests()
	var types []string
	for _, r := range got {
		types = append(types, r.Event.Type)
		wh, err := standardwebhooks.NewWebhook(secret)
		require.NoError(t, err)
		require.NoError(t, wh.Verify(r.Body, r.Header), "signed with the endpoint's secret")
		require.Equal(t, r.Event.ID, r.Header.Get("webhook-id"))
		require.Equal(t, "acme", r.Event.Data.Org.Slug)
	}
	require.ElementsMatch(t, []string{"technician.created", "technician.created", "job.created", "job.updated",
		"technician.deactivated", "technician.created", "technician.deleted"}, types)

	byType := map[string]received{}
	for _, r := range got {
		byType[r.Event.Type] = r
	}
	created := byType["job.created"].Raw["data"].(map[string]any)["object"].(map[string]any)
	require.Equal(t, "2026-03-09T09:00:00-04:00", created["arrival_start"], "the window in the org's zone, as the API shows it")
	require.Equal(t, "T-1", created["technician_ref"])
	require.Equal(t, "Ana Ruiz", created["technician_name"])
	require.Equal(t, "J-1", created["external_ref"])
	require.NotContains(t, byType["job.created"].Raw["data"], "changed")

	upd := byType["job.updated"].Raw["data"].(map[string]any)
	require.Equal(t, []any{"notes", "status", "technician_id", "technician_ref", "technician_name"}, upd["changed"])
	require.Equal(t, map[string]any{"notes": "", "status": "scheduled", "technician_id": json.Number(itoa(ana.ID)),
		"technician_ref": "T-1", "technician_name": "Ana Ruiz"}, numbers(t, byType["job.updated"].Body)["data"].(map[string]any)["previous"])
	obj := upd["object"].(map[string]any)
	require.Equal(t, "in_progress", obj["status"])
	require.Equal(t, "Ben Ode", obj["technician_name"])
	require.NotContains(t, obj, "technician_ref", "Ben has no reference: the member is left out, as in the API")

	deact := byType["technician.deactivated"].Raw["data"].(map[string]any)
	require.Equal(t, []any{"active"}, deact["changed"])
	require.Equal(t, false, deact["object"].(map[string]any)["active"])
	require.Equal(t, "Temp", byType["technician.deleted"].Raw["data"].(map[string]any)["object"].(map[string]any)["name"])
}

func numbers(t *testing.T, body []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var m map[string]any
	require.NoError(t, d.Decode(&m))
	return m
}

// TestEventsInOrderPerRecordAcrossRetries: a record's events reach an
// endpoint in the order they happened, even when the first attempts fail
// (the same webhook-id again on each retry); an endpoint gets only the
// types it subscribed to; each org's events go to its own endpoints.
func TestEventsInOrderPerRecordAcrossRetries(t *testing.T) {
	f := setup(t)
	flaky := newReceiver(t, func(n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	createdOnly := newReceiver(t, nil)
	globex := newReceiver(t, nil)
	f.endpoint(f.orgA, flaky.URL, webhooks.JobCreated, webhooks.JobUpdated)
	f.endpoint(f.orgA, createdOnly.URL, webhooks.JobCreated)
	f.endpoint(f.orgB, globex.URL, all...)

	j := f.job(f.orgA, "Mrs Jones", "J-1", 0)
	for _, notes := range []string{"one", "two", "three", "four"} {
		in := j.Input()
		in.Notes = notes
		var err error
		j, err = f.field.UpdateJob(f.ctx, admin, time.Now(), f.orgA, j.ID, in)
		require.NoError(t, err)
	}
	f.job(f.orgB, "Globex customer", "J-1", 0)

	f.work()
	got := flaky.requests()
	require.Len(t, got, 7, "five events, the first tried three times")
	require.Equal(t, got[0].Header.Get("webhook-id"), got[1].Header.Get("webhook-id"))
	require.Equal(t, got[0].Header.Get("webhook-id"), got[2].Header.Get("webhook-id"))
	var notes []string
	for _, r := range got[2:] {
		notes = append(notes, r.Raw["data"].(map[string]any)["object"].(map[string]any)["notes"].(string))
	}
	require.Equal(t, []string{"", "one", "two", "three", "four"}, notes)

	require.Len(t, createdOnly.requests(), 1)
	require.Equal(t, "job.created", createdOnly.requests()[0].Event.Type)
	require.Len(t, globex.requests(), 1)
	require.Equal(t, "globex", globex.requests()[0].Event.Data.Org.Slug)
	require.Equal(t, "Globex customer", globex.requests()[0].Raw["data"].(map[string]any)["object"].(map[string]any)["customer"])
}

// TestFailedDeliveryIsLoggedAndTheNextGoes: a permanent refusal fails
// that delivery at once, the endpoint's log shows it with the status, and
// the record's next event is still delivered.
func TestFailedDeliveryIsLoggedAndTheNextGoes(t *testing.T) {
	f := setup(t)
	rcv := newReceiver(t, func(n int) int {
		if n == 1 {
			return http.StatusGone
		}
		return http.StatusOK
	})
	ep, _ := f.endpoint(f.orgA, rcv.URL, all...)
	j := f.job(f.orgA, "Mrs Jones", "J-1", 0)
	in := j.Input()
	in.Customer = "Mrs Jones-Smith"
	_, err := f.field.UpdateJob(f.ctx, admin, time.Now(), f.orgA, j.ID, in)
	require.NoError(t, err)
	f.work()

	require.Len(t, rcv.requests(), 2)
	log, failed, err := f.hooks.Deliveries(f.ctx, f.orgA, ep.ID)
	require.NoError(t, err)
	require.Equal(t, 1, failed)
	require.Len(t, log, 2)
	require.Equal(t, "job.updated", log[0].Type)
	require.Equal(t, "delivered", log[0].State)
	require.Equal(t, "job.created", log[1].Type)
	require.Equal(t, "failed", log[1].State)
	require.Equal(t, "410", log[1].LastCode)

	// globex sees none of it.
	log, failed, err = f.hooks.Deliveries(f.ctx, f.orgB, ep.ID)
	require.NoError(t, err)
	require.Empty(t, log)
	require.Zero(t, failed)
}

// TestNoEndpointNoEvents: an org without an endpoint keeps no events, and
// pruning removes finished events past their retention only.
func TestNoEndpointNoEventsAndPrune(t *testing.T) {
	f := setup(t)
	f.job(f.orgA, "Mrs Jones", "J-1", 0)
	var n int
	require.NoError(t, f.db.QueryRow(f.ctx, `SELECT count(*) FROM webhook_events`).Scan(&n))
	require.Zero(t, n)

	rcv := newReceiver(t, nil)
	f.endpoint(f.orgA, rcv.URL, all...)
	f.job(f.orgA, "Mr Smith", "J-2", 0)
	f.work()
	require.Len(t, rcv.requests(), 1)

	pruned, err := webhooks.Prune(f.ctx, f.db, time.Now().Add(-webhooks.Retention))
	require.NoError(t, err)
	require.Zero(t, pruned, "a fresh event is kept")
	pruned, err = webhooks.Prune(f.ctx, f.db, time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.EqualValues(t, 1, pruned)
	require.NoError(t, f.db.QueryRow(f.ctx, `SELECT count(*) FROM webhook_deliveries`).Scan(&n))
	require.Zero(t, n, "its deliveries go with it")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestDispatchHandsEachEventOverOnce: workers hand events over at the same
// time; each event gets one delivery per endpoint and one body, whoever
// claimed it, and an import of many rows in one statement is captured
// row by row.
func TestDispatchHandsEachEventOverOnce(t *testing.T) {
	f := setup(t)
	f.endpoint(f.orgA, "https://hooks.example.com/a", webhooks.JobCreated)
	f.endpoint(f.orgA, "https://hooks.example.com/b", webhooks.JobCreated, webhooks.JobUpdated)
	const n = 1200 // more than two batches
	_, err := f.db.Exec(f.ctx, `
		INSERT INTO jobs (org_id, customer, arrival_start, arrival_end)
		SELECT $1, 'Customer ' || i, '2026-03-09T13:00Z', '2026-03-09T15:00Z' FROM generate_series(1, $2::int) i`, f.orgA, n)
	require.NoError(t, err)

	var wg sync.WaitGroup
	counts := make([]int, 3)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := webhooks.Dispatch(f.ctx, f.db, slog.New(slog.DiscardHandler), time.Now())
			assert.NoError(t, err)
			counts[i] = got
		}()
	}
	wg.Wait()
	require.Equal(t, n, counts[0]+counts[1]+counts[2])
	var deliveries, distinct, undispatched int
	require.NoError(t, f.db.QueryRow(f.ctx, `
		SELECT count(*), count(DISTINCT (endpoint_id, event_id)),
		       (SELECT count(*) FROM webhook_events WHERE payload IS NULL OR dispatched_at IS NULL)
		  FROM webhook_deliveries WHERE org_id = $1`, f.orgA).Scan(&deliveries, &distinct, &undispatched))
	require.Equal(t, 2*n, deliveries)
	require.Equal(t, 2*n, distinct)
	require.Zero(t, undispatched)
}
