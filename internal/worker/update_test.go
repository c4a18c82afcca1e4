package worker

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport/transporttest"
	"fieldbrief/internal/updates"
)

// Updates after sending (docs/delivery.md, "Updates"): these run on a
// fake clock that starts at dayStart and ticks with the real one (the
// update's quiet time and River's snoozes are real time), passed to the
// worker and to every job write, with BRIEFING_UPDATE_DELAY shortened. No
// test depends on the hour it runs at.

// testUpdateDelay is the quiet time the tests' workers wait.
const testUpdateDelay = 200 * time.Millisecond

// hookRecorder is a webhook receiver that checks each call's signature
// and keeps the events.
type hookRecorder struct {
	*httptest.Server
	mu     sync.Mutex
	secret string
	events []map[string]any
	raw    [][]byte
}

func newHookRecorder(t *testing.T) *hookRecorder {
	h := &hookRecorder{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		wh, err := standardwebhooks.NewWebhook(h.secret)
		if err == nil {
			err = wh.Verify(body, r.Header)
		}
		if err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var ev map[string]any
		if json.Unmarshal(body, &ev) != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		h.events, h.raw = append(h.events, ev), append(h.raw, body)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	return h
}

// types lists the events' types in the order they came.
func (h *hookRecorder) types() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.events {
		out = append(out, ev["type"].(string))
	}
	return out
}

func (h *hookRecorder) last(t *testing.T) delivery.UpdateEvent {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var ev delivery.UpdateEvent
	require.NoError(t, json.Unmarshal(h.raw[len(h.raw)-1], &ev))
	return ev
}

// dayStart is where a sentDay's clock starts: Tuesday 2026-03-10, 10:00
// in Chicago (CDT, after the spring-forward of March 8), so the day has
// twelve hours left, its briefing is due at once and its jobs are tonight.
var (
	dayStart = utc("2026-03-10T15:00:00Z")
	dayZone  = mustZone("America/Chicago")
)

// clockFrom is a fake clock that reads at at once and then ticks with the
// real one.
func clockFrom(at time.Time) func() time.Time {
	began := time.Now()
	return func() time.Time { return at.Add(time.Since(began)) }
}

// sentDay is an org whose technicians, Ana and Ben, got their briefing
// email for today: each has one job tonight (Ana 22:00–23:00, Ben
// 23:00–23:30, local), and the org's webhook got briefing.ready. now is
// its clock: the worker's, and what its job writes pass.
type sentDay struct {
	f        *fixture
	now      func() time.Time
	slug     string
	org      int64
	ana, ben int64
	anaJob   int64
	benJob   int64
	loc      *time.Location
	today    schedule.Date
	sink     *transporttest.SMTPServer
	hook     *hookRecorder
	field    *field.Store
}

func (f *fixture) sentDay(slug string, extra map[string]any) *sentDay {
	f.T.Helper()
	d := f.newDay(slug, extra)
	res := f.runOnceWith(d.worker(), d.now())
	require.Equal(f.T, 1, res.Tick.Enqueued)
	require.Empty(f.T, res.Pending)
	require.Len(f.T, d.sink.Messages(), 2, "the morning's two technician emails")
	require.Equal(f.T, []string{"briefing.ready"}, d.hook.types())
	return d
}

// newDay is sentDay's org before its briefing: due this very minute.
func (f *fixture) newDay(slug string, extra map[string]any) *sentDay {
	f.T.Helper()
	clock := clockFrom(dayStart)
	now, loc := clock(), dayZone
	d := &sentDay{f: f, now: clock, slug: slug, loc: loc, today: schedule.DateOf(now.In(loc)), sink: transporttest.NewSMTPServer(f.T),
		hook: newHookRecorder(f.T), field: &field.Store{DB: f.DB}}
	// Scheduled for this very minute: due at once, and not late.
	doc := map[string]any{}
	require.NoError(f.T, json.Unmarshal([]byte(deliveryConfig(loc.String(), now.In(loc).Format("15:04"), nil, true, d.hook.URL+"/hook")), &doc))
	for k, v := range extra {
		doc["delivery"].(map[string]any)[k] = v
	}
	cfg, err := json.Marshal(doc)
	require.NoError(f.T, err)
	d.org = f.Org(slug, string(cfg))
	d.hook.mu.Lock()
	d.hook.secret, err = (&tenants.Store{DB: f.DB}).WebhookSecret(f.Ctx, d.org)
	d.hook.mu.Unlock()
	require.NoError(f.T, err)
	d.ana = f.techWithEmail(d.org, "Ana", "ana@"+slug+".test")
	d.ben = f.techWithEmail(d.org, "Ben", "ben@"+slug+".test")
	d.anaJob = f.Job(d.org, d.ana, "Ana's customer", d.at(22, 0), d.at(23, 0), "scheduled")
	d.benJob = f.Job(d.org, d.ben, "Ben's customer", d.at(23, 0), d.at(23, 30), "scheduled")
	return d
}

// at is today at hh:mm in the org's zone.
func (d *sentDay) at(hh, mm int) time.Time {
	return time.Date(d.today.Year, d.today.Month, d.today.Day, hh, mm, 0, 0, d.loc)
}

func (d *sentDay) worker() *Worker {
	w := d.f.deliveringWorker(d.sink.URL, d.now)
	w.UpdateDelay = testUpdateDelay
	return w
}

// run is worker -once now: it waits for the update tasks' quiet time.
func (d *sentDay) run() OnceResult {
	d.f.T.Helper()
	res := d.f.runOnceWith(d.worker(), d.now())
	require.Empty(d.f.T, res.Pending)
	return res
}

// mail is the messages the sink accepted for addr, oldest first: their
// subjects and text parts.
func (d *sentDay) mail(addr string) (subjects, texts []string) {
	d.f.T.Helper()
	for _, m := range d.sink.Messages() {
		if strings.Join(m.To, ",") != addr {
			continue
		}
		p, err := m.Parse()
		require.NoError(d.f.T, err)
		text, _, err := m.Bodies()
		require.NoError(d.f.T, err)
		subjects = append(subjects, decodeHeader(d.f.T, p.Header.Get("Subject")))
		texts = append(texts, text)
	}
	return subjects, texts
}

func (d *sentDay) changesSubject() string {
	return "Changes to your day, " + enUS.Date(d.today.Time())
}

func (f *fixture) updateOutcomes(orgID int64) []string {
	f.T.Helper()
	return f.Strings(`SELECT outcome FROM ff_briefing_updates WHERE org_id = $1 ORDER BY id`, orgID)
}

func TestUpdateAfterReassignment(t *testing.T) {
	f := setup(t)
	d := f.sentDay("reassign", nil)

	_, err := d.field.Assign(f.Ctx, admin, d.now(), d.org, d.anaJob, d.ben, 0)
	require.NoError(t, err)
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM ff_job_changes WHERE org_id = $1 AND update_id IS NULL`, d.org),
		"one change for each of the two technicians")
	d.run()

	subjects, texts := d.mail("ana@reassign.test")
	require.Len(t, subjects, 2)
	require.Equal(t, d.changesSubject(), subjects[1])
	require.Contains(t, texts[1], "NO LONGER ON YOUR DAY")
	require.Contains(t, texts[1], "Ana's customer")
	require.Contains(t, texts[1], "Reassigned to Ben")
	require.Contains(t, texts[1], enUS.TimeRange(d.at(22, 0), d.at(23, 0))+" "+d.at(22, 0).Format("MST"))
	require.Contains(t, texts[1], "Open your day: https://app.fieldbrief.test/t/", "the day link")
	require.NotContains(t, texts[1], "Ben's customer", "Ben's own job did not change")

	subjects, texts = d.mail("ben@reassign.test")
	require.Len(t, subjects, 2)
	require.Equal(t, d.changesSubject(), subjects[1])
	require.Contains(t, texts[1], "ADDED TO YOUR DAY")
	require.Contains(t, texts[1], "Assigned to you (it was Ana's)")
	require.Contains(t, texts[1], "Ana's customer")

	// One webhook for the one change, naming both technicians.
	require.Equal(t, []string{"briefing.ready", "briefing.updated"}, d.hook.types())
	ev := d.hook.last(t)
	require.Equal(t, d.today.String(), ev.Data.Date)
	require.Equal(t, d.loc.String(), ev.Data.Timezone)
	require.Len(t, ev.Data.Changes, 1)
	c := ev.Data.Changes[0]
	require.Equal(t, d.anaJob, c.JobID)
	require.Equal(t, "changed", c.Kind)
	require.Equal(t, []string{updates.FieldTechnician}, c.Fields)
	require.Equal(t, d.ana, c.Before.TechnicianID)
	require.Equal(t, d.ben, c.After.TechnicianID)
	require.ElementsMatch(t, []int64{d.ana, d.ben}, c.TechnicianIDs)

	require.Equal(t, []string{"sent", "sent"}, f.updateOutcomes(d.org))
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM ff_deliveries WHERE org_id = $1 AND update_id IS NOT NULL AND state = 'sent'`, d.org))
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_job_changes WHERE org_id = $1 AND update_id IS NULL`, d.org))

	// Nothing more on the next run.
	d.run()
	require.Len(t, d.sink.Messages(), 4)
	require.Len(t, d.hook.types(), 2)
}

func TestFiveQuickEditsMakeOneUpdate(t *testing.T) {
	f := setup(t)
	d := f.sentDay("quick", nil)
	j, err := d.field.Job(f.Ctx, d.org, d.anaJob)
	require.NoError(t, err)
	for i := 1; i <= 5; i++ {
		in := j.Input()
		in.Version = 0 // five saves in a row of the job as first read: each the newest (docs/versions.md)
		in.ArrivalStart, in.ArrivalEnd = d.at(22, 10*i), d.at(23, 10*i)
		in.Address = "700 Congress Ave"
		_, err := d.field.UpdateJob(f.Ctx, admin, d.now(), d.org, d.anaJob, in)
		require.NoError(t, err)
	}
	require.Equal(t, 5, f.Count(`SELECT count(*) FROM ff_job_changes WHERE org_id = $1`, d.org))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'briefing_update'`), "one task for the five edits")
	d.run()

	subjects, texts := d.mail("ana@quick.test")
	require.Len(t, subjects, 2, "the briefing, then one update")
	abbr := d.at(22, 0).Format("MST")
	require.Contains(t, texts[1], "Arrival: "+enUS.TimeRange(d.at(22, 0), d.at(23, 0))+" "+abbr+" → "+enUS.TimeRange(d.at(22, 50), d.at(23, 50))+" "+abbr, "from the first state to the last")
	require.Contains(t, texts[1], "Address: Ana's customer street → 700 Congress Ave")
	require.Equal(t, 1, strings.Count(texts[1], "Arrival:"), texts[1])
	subjects, _ = d.mail("ben@quick.test")
	require.Len(t, subjects, 1, "Ben's day did not change")
	require.Equal(t, []string{"briefing.ready", "briefing.updated"}, d.hook.types())
	ev := d.hook.last(t)
	require.Len(t, ev.Data.Changes, 1)
	require.Equal(t, []string{updates.FieldWindow, updates.FieldAddress}, ev.Data.Changes[0].Fields)
	require.Equal(t, []string{"sent"}, f.updateOutcomes(d.org))
}

func TestChangeOnDayNotSentMakesNoUpdate(t *testing.T) {
	f := setup(t)
	d := f.sentDay("notyet", nil)
	fs := d.field
	// Tomorrow's briefing has not gone out: its changes go in it.
	tomorrow := d.at(22, 0).AddDate(0, 0, 1)
	j, err := fs.CreateJob(f.Ctx, admin, d.now(), d.org, field.JobInput{Customer: "Tomorrow's customer", ArrivalStart: tomorrow,
		ArrivalEnd: tomorrow.Add(time.Hour), TechnicianID: d.ana})
	require.NoError(t, err)
	_, err = fs.Assign(f.Ctx, admin, d.now(), d.org, j.ID, d.ben, 0)
	require.NoError(t, err)
	// A technician without an email got no briefing: nothing to update.
	cy := f.Tech(d.org, "Cy", true)
	cyJob := f.Job(d.org, cy, "Cy's customer", d.at(21, 0), d.at(22, 0), "scheduled")
	_, err = fs.SetStatus(f.Ctx, admin, d.now(), d.org, cyJob, field.StatusCancelled, 0)
	require.NoError(t, err)
	// An org whose day was not sent at all.
	other := f.Org("unsent", deliveryConfig(d.loc.String(), "23:59", nil, true, ""))
	o := f.techWithEmail(other, "Olga", "olga@unsent.test")
	oj := f.Job(other, o, "Olga's customer", d.at(22, 0), d.at(23, 0), "scheduled")
	_, err = fs.SetStatus(f.Ctx, admin, d.now(), other, oj, field.StatusCancelled, 0)
	require.NoError(t, err)

	require.Zero(t, f.Count(`SELECT count(*) FROM ff_job_changes`))
	require.Zero(t, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'briefing_update'`))
	d.run()
	require.Len(t, d.sink.Messages(), 2)
	require.Len(t, d.hook.types(), 1)
}

func TestUpdatesOff(t *testing.T) {
	f := setup(t)
	d := f.sentDay("off", map[string]any{"updates": false})
	_, err := d.field.Assign(f.Ctx, admin, d.now(), d.org, d.anaJob, d.ben, 0)
	require.NoError(t, err)
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_job_changes`))
	require.Zero(t, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'briefing_update'`))

	// Switched off after the changes were recorded: the fold sends nothing.
	d2 := f.sentDay("later", nil)
	_, err = d2.field.SetStatus(f.Ctx, admin, d2.now(), d2.org, d2.benJob, field.StatusCancelled, 0)
	require.NoError(t, err)
	var doc map[string]any
	var raw []byte
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT config_json FROM org_module_configs WHERE org_id = $1`, d2.org).Scan(&raw))
	require.NoError(t, json.Unmarshal(raw, &doc))
	doc["delivery"].(map[string]any)["updates"] = false
	raw, err = json.Marshal(doc)
	require.NoError(t, err)
	f.SetConfig(d2.org, string(raw))
	d2.run()
	require.Equal(t, []string{"off"}, f.updateOutcomes(d2.org))
	require.Len(t, d2.sink.Messages(), 2)
	require.Len(t, d2.hook.types(), 1)
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_job_changes WHERE org_id = $1 AND update_id IS NULL`, d2.org))
}

func TestUpdateStaysInItsOrg(t *testing.T) {
	f := setup(t)
	a := f.sentDay("alpha", nil)
	b := f.sentDay("beta", nil)

	// Another org's job or technician is not found.
	_, err := a.field.Assign(f.Ctx, admin, a.now(), a.org, b.anaJob, a.ben, 0)
	require.Error(t, err)
	_, err = a.field.Assign(f.Ctx, admin, a.now(), a.org, a.anaJob, b.ben, 0)
	require.Error(t, err)
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_job_changes`))

	_, err = a.field.SetStatus(f.Ctx, admin, a.now(), a.org, a.anaJob, field.StatusCancelled, 0)
	require.NoError(t, err)
	// A task naming another org's technician and date folds nothing.
	f.insertTask(updates.BriefingUpdateArgs{OrgID: b.org, TechnicianID: a.ana, Date: a.today.String()})
	a.run()
	b.run()

	_, texts := a.mail("ana@alpha.test")
	require.Len(t, texts, 2)
	require.Contains(t, texts[1], "CANCELLED")
	require.Contains(t, texts[1], "Status: Scheduled → Cancelled")
	require.Len(t, b.sink.Messages(), 2, "beta's technicians hear nothing")
	require.Len(t, b.hook.types(), 1)
	require.Equal(t, []string{"sent"}, f.updateOutcomes(a.org))
	require.Empty(t, f.updateOutcomes(b.org))
}

// TestUpdatesAtMostEvery15Minutes: a change soon after an update waits
// for the technician's 15 minutes to pass, then goes in the next one.
func TestUpdatesAtMostEvery15Minutes(t *testing.T) {
	f := setup(t)
	d := f.sentDay("gap", nil)
	_, err := d.field.SetStatus(f.Ctx, admin, d.now(), d.org, d.anaJob, field.StatusOnHold, 0)
	require.NoError(t, err)
	d.run()
	_, texts := d.mail("ana@gap.test")
	require.Len(t, texts, 2)

	_, err = d.field.SetStatus(f.Ctx, admin, d.now(), d.org, d.anaJob, field.StatusScheduled, 0)
	require.NoError(t, err)
	res := f.runOnceWith(d.worker(), d.now())
	require.Equal(t, map[string]int{"briefing_update/scheduled": 1}, res.Pending, "it waits for the gap")
	var due time.Time
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT scheduled_at FROM river_job WHERE kind = 'briefing_update' AND state = 'scheduled'`).Scan(&due))
	require.WithinDuration(t, time.Now().Add(updates.MinGap), due, time.Minute, "River's clock is the real one")
	_, texts = d.mail("ana@gap.test")
	require.Len(t, texts, 2)

	// The 15 minutes pass: the last update was made that long ago, and
	// River's clock reaches the task.
	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_briefing_updates SET created_at = created_at - interval '16 minutes' WHERE org_id = $1`, d.org)
	require.NoError(t, err)
	_, err = f.DB.Exec(f.Ctx, `UPDATE river_job SET state = 'available', scheduled_at = now() WHERE kind = 'briefing_update' AND state = 'scheduled'`)
	require.NoError(t, err)
	d.run()
	_, texts = d.mail("ana@gap.test")
	require.Len(t, texts, 3)
	require.Contains(t, texts[2], "Status: On hold → Scheduled")
	require.Equal(t, []string{"sent", "sent"}, f.updateOutcomes(d.org))
}

// TestUpdateDelayFromChangeToMessage measures, on a long-running worker,
// the time from a change's commit to the update
// being accepted by the SMTP server. BRIEFING_UPDATE_DELAY in the
// environment sets the worker's delay (default here: 1s); the figure is
// logged, not asserted (docs/delivery.md, "Updates", gives it).
func TestUpdateDelayFromChangeToMessage(t *testing.T) {
	f := setup(t)
	d := f.sentDay("timing", nil)
	delay := time.Second
	if v := os.Getenv("BRIEFING_UPDATE_DELAY"); v != "" {
		var err error
		delay, err = time.ParseDuration(v)
		require.NoError(t, err)
	}
	w := d.worker()
	w.UpdateDelay = delay
	require.NoError(t, w.Start(f.Ctx))
	t.Cleanup(func() { _ = w.Stop(t.Context()) })

	start := time.Now()
	_, err := d.field.Assign(f.Ctx, admin, d.now(), d.org, d.anaJob, d.ben, 0)
	require.NoError(t, err)
	msgs := d.sink.WaitMessages(t, 4, delay+testutil.Settle)
	took := time.Since(start)
	require.Len(t, msgs, 4)
	t.Logf("BRIEFING_UPDATE_DELAY %s: change to both updates accepted in %s (%s past the delay)", delay, took.Round(time.Millisecond), (took - delay).Round(time.Millisecond))
}
