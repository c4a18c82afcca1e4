package worker

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
)

// deliveryConfig is a fieldforce config that delivers to the dispatchers in
// to, to the technicians when techs, and to hook when not "".
func deliveryConfig(zone, at string, to []string, techs bool, hook string) string {
	b := map[string]any{"timezone": zone, "schedule_local_time": at}
	d := map[string]any{}
	if len(to) > 0 || techs {
		e := map[string]any{"technicians": techs}
		if len(to) > 0 {
			e["to"] = to
		}
		d["email"] = e
	}
	if hook != "" {
		d["webhook"] = map[string]any{"url": hook}
	}
	doc, _ := json.Marshal(map[string]any{"briefing": b, "delivery": d})
	return string(doc)
}

func (f *fixture) techWithEmail(orgID int64, name, email string) int64 {
	f.T.Helper()
	id := f.Tech(orgID, name, true)
	_, err := f.DB.Exec(f.Ctx, `UPDATE technicians SET email = $3 WHERE id = $1 AND org_id = $2`, id, orgID, email)
	require.NoError(f.T, err)
	return id
}

// deliveringWorker is a Worker that sends email to smtpURL and may call
// webhooks on loopback, and retries a failed delivery at once.
func (f *fixture) deliveringWorker(smtpURL string, now func() time.Time) *Worker {
	f.T.Helper()
	mailer, err := transport.NewMailer(smtpURL, f.DB)
	require.NoError(f.T, err)
	w := f.worker(now)
	w.RetryPolicy = quickRetries{}
	w.Sender = &delivery.Sender{Mailer: mailer, From: "fieldbrief <briefings@fieldbrief.test>", BaseURL: "https://app.fieldbrief.test",
		Webhooks: &transport.WebhookClient{AllowPrivate: true}}
	return w
}

func (f *fixture) runOnceWith(w *Worker, now time.Time) OnceResult {
	f.T.Helper()
	res, err := w.RunOnce(f.Ctx, now, time.Minute)
	require.NoError(f.T, err)
	return res
}

func (f *fixture) deliveryStates(orgID int64) map[string]string {
	f.T.Helper()
	rows, err := f.DB.Query(f.Ctx, `SELECT recipient, state || '/' || attempts FROM ff_deliveries WHERE org_id = $1`, orgID)
	require.NoError(f.T, err)
	out := map[string]string{}
	var k, v string
	for rows.Next() {
		require.NoError(f.T, rows.Scan(&k, &v))
		out[k] = v
	}
	require.NoError(f.T, rows.Err())
	return out
}

func TestEmailDeliveryDispatcherAndTechnicians(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	// 2026-03-08 is the spring-forward day in New York: 08:00 is EDT, the
	// day's first hours were EST.
	org := f.Org("northwind", deliveryConfig("America/New_York", "06:45", []string{"dispatch@northwind.test"}, true, ""))
	ana := f.techWithEmail(org, "Ana", "ana@northwind.test")
	ben := f.techWithEmail(org, "Ben", "ben@northwind.test")
	f.techWithEmail(org, "Idle Ida", "ida@northwind.test") // no work that day: no email
	f.Job(org, ana, "Ana's customer <script>", utc("2026-03-08T13:00:00Z"), utc("2026-03-08T15:00:00Z"), "scheduled")
	f.Job(org, ben, "Ben's customer", utc("2026-03-08T06:30:00Z"), utc("2026-03-08T07:30:00Z"), "scheduled")
	f.Job(org, 0, "Nobody's customer", utc("2026-03-08T16:00:00Z"), utc("2026-03-08T17:00:00Z"), "scheduled")
	f.Job(org, ben, "Stuck customer", utc("2026-03-06T14:00:00Z"), utc("2026-03-06T15:00:00Z"), "on_hold")

	now := utc("2026-03-08T11:00:00Z") // 07:00 EDT
	res := f.runOnceWith(f.deliveringWorker(sink.URL, nil), now)
	require.Equal(t, 1, res.Tick.Enqueued)
	require.Empty(t, res.Pending)

	msgs := sink.Messages()
	require.Len(t, msgs, 3)
	byTo := map[string]transporttest.Received{}
	for _, m := range msgs {
		byTo[strings.Join(m.To, ",")] = m
	}
	require.Contains(t, byTo, "dispatch@northwind.test")
	require.Contains(t, byTo, "ana@northwind.test")
	require.Contains(t, byTo, "ben@northwind.test")

	d := byTo["dispatch@northwind.test"]
	parsed, err := d.Parse()
	require.NoError(t, err)
	require.Equal(t, "northwind · briefing for Sun, Mar 8", decodeHeader(t, parsed.Header.Get("Subject")))
	require.Contains(t, parsed.Header.Get("List-Unsubscribe"), "https://app.fieldbrief.test/unsubscribe?t=")
	require.Equal(t, "List-Unsubscribe=One-Click", parsed.Header.Get("List-Unsubscribe-Post"))
	mediaType, params, err := mime.ParseMediaType(parsed.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/alternative", mediaType)
	mr := multipart.NewReader(parsed.Body, params["boundary"])
	var types []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		types = append(types, ct)
	}
	require.Equal(t, []string{"text/plain", "text/html"}, types)

	text, html, err := d.Bodies()
	require.NoError(t, err)
	// Times in the org's zone with the abbreviation in force: Ben's visit
	// began before the 02:00 change (EST), Ana's after it (EDT).
	require.Contains(t, text, "9:00\u2009–\u200911:00\u202fAM EDT")
	require.Contains(t, text, "1:30\u2009–\u20093:30\u202fAM EST/EDT")
	require.Contains(t, text, "Nobody's customer")
	require.Equal(t, 1, strings.Count(text, "Stuck customer street"), "an overdue job on hold is listed once:\n%s", text)
	require.Contains(t, html, "https://app.fieldbrief.test/orgs/northwind/briefings/2026-03-08")
	require.NotContains(t, html, "<script>")

	// A technician sees their own day only.
	anaText, _, err := byTo["ana@northwind.test"].Bodies()
	require.NoError(t, err)
	require.Contains(t, anaText, "Ana's customer")
	require.NotContains(t, anaText, "Ben's customer")
	require.NotContains(t, anaText, "Nobody's customer")

	for _, to := range []string{"dispatch@northwind.test", "ana@northwind.test", "ben@northwind.test"} {
		require.Equal(t, "sent/1", f.deliveryStates(org)[to], to)
	}

	// The same generation job run again (River's rescuer may) sends nothing more.
	var briefingID int64
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT id FROM ff_briefings WHERE org_id = $1`, org).Scan(&briefingID))
	f.insertTask(briefing.GenerateBriefingArgs{OrgID: org, BriefingID: briefingID, Revision: 1, Trigger: briefing.TriggerSchedule, Deliver: true})
	f.runOnceWith(f.deliveringWorker(sink.URL, nil), now)
	require.Len(t, sink.Messages(), 3)
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM ff_deliveries WHERE org_id = $1`, org))
}

func decodeHeader(t *testing.T, v string) string {
	t.Helper()
	s, err := new(mime.WordDecoder).DecodeHeader(v)
	require.NoError(t, err)
	return s
}

func TestEmailTemporaryThenAccepted(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	sink.Script(451, 250)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", []string{"greylisted@acme.test"}, false, ""))
	w := f.deliveringWorker(sink.URL, func() time.Time { return utc("2026-03-10T07:00:00Z") })
	require.NoError(t, w.Start(f.Ctx))
	t.Cleanup(func() { _ = w.Stop(context.WithoutCancel(t.Context())) })
	f.tick(utc("2026-03-10T07:00:00Z"))

	require.Eventually(t, func() bool { return f.deliveryStates(org)["greylisted@acme.test"] == "sent/2" },
		settle, 50*time.Millisecond, "states: %v", f.deliveryStates(org))
	require.Equal(t, 2, sink.Attempts())
	msgs := sink.Messages()
	require.Len(t, msgs, 1)
	// The Message-ID comes from the delivery row's key, which names the
	// revision and the recipient, not the attempt: every retry and re-send
	// carries the same one.
	var key string
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT key FROM ff_deliveries WHERE org_id = $1`, org).Scan(&key))
	require.True(t, strings.HasPrefix(key, "msg_"), key) // which revision and recipient it names: dispatch's TestDeliveryKey
	want, err := transport.MessageIDFor(key, "briefings@fieldbrief.test")
	require.NoError(t, err)
	parsed, err := msgs[0].Parse()
	require.NoError(t, err)
	require.Equal(t, "<"+want+">", parsed.Header.Get("Message-Id"))
	require.Equal(t, []string{"retry 451", "sent "}, f.attemptList(org))
}

func TestEmailPermanentFailureIsNotRetried(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	sink.SetFallback(550)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", []string{"gone@acme.test"}, false, ""))
	res := f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-10T07:00:00Z"))
	require.Empty(t, res.Pending)
	require.Equal(t, "failed/1", f.deliveryStates(org)["gone@acme.test"])
	require.Equal(t, 1, sink.Attempts())
	require.Empty(t, sink.Messages())
	require.Equal(t, []string{"failed 550"}, f.attemptList(org))
}

// attemptList lists the org's delivery attempts as "outcome code", oldest first.
func (f *fixture) attemptList(orgID int64) []string {
	f.T.Helper()
	return f.Strings(`SELECT outcome || ' ' || code FROM ff_delivery_attempts WHERE org_id = $1 ORDER BY id`, orgID)
}

func TestWebhookDeliveryRetriesWithOneID(t *testing.T) {
	f := setup(t)
	var mu sync.Mutex
	var ids []string
	var calls atomic.Int32
	var secret string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		wh, err := standardwebhooks.NewWebhook(secret)
		if err == nil {
			err = wh.Verify(body, r.Header)
		}
		if err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		ids = append(ids, r.Header.Get("webhook-id"))
		mu.Unlock()
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var ev delivery.WebhookEvent
		if json.Unmarshal(body, &ev) != nil || ev.Type != "briefing.ready" || ev.Data.Date != "2026-03-10" {
			http.Error(w, "unexpected body", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", nil, false, hook.URL+"/fieldbrief"))
	var err error
	secret, err = (&tenants.Store{DB: f.DB}).WebhookSecret(f.Ctx, org)
	require.NoError(t, err)

	// Its clock stays at the tick, so its own minute ticks fire nothing more.
	w := f.deliveringWorker("", func() time.Time { return utc("2026-03-10T07:00:00Z") })
	w.Log = slog.New(slog.NewTextHandler(t.Output(), nil))
	require.NoError(t, w.Start(f.Ctx))
	t.Cleanup(func() { _ = w.Stop(context.WithoutCancel(t.Context())) })
	f.tick(utc("2026-03-10T07:00:00Z"))
	require.Eventually(t, func() bool { return f.deliveryStates(org)[hook.URL+"/fieldbrief"] == "sent/3" },
		settle, 50*time.Millisecond, "states: %v", f.deliveryStates(org))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, ids, 3)
	require.Equal(t, ids[0], ids[1])
	require.Equal(t, ids[0], ids[2])
}

func TestWebhookGoneFailsAtOnce(t *testing.T) {
	f := setup(t)
	var calls atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusGone)
	}))
	t.Cleanup(hook.Close)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", nil, false, hook.URL))
	res := f.runOnceWith(f.deliveringWorker("", nil), utc("2026-03-10T07:00:00Z"))
	require.Empty(t, res.Pending)
	require.Equal(t, "failed/1", f.deliveryStates(org)[hook.URL])
	require.EqualValues(t, 1, calls.Load())

	// An admin re-sends it: the same row, a new attempt.
	var id int64
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT id FROM ff_deliveries WHERE org_id = $1`, org).Scan(&id))
	other := f.Org("other", "")
	require.Error(t, f.deliveries.Resend(f.Ctx, other, id, admin, time.Now()), "another org's delivery")
	require.NoError(t, f.deliveries.Resend(f.Ctx, org, id, admin, time.Now()))
	require.Error(t, f.deliveries.Resend(f.Ctx, org, id, admin, time.Now()), "it is pending now")
	f.runOnceWith(f.deliveringWorker("", nil), utc("2026-03-10T07:05:00Z"))
	require.Equal(t, "failed/2", f.deliveryStates(org)[hook.URL])
	require.EqualValues(t, 2, calls.Load())

	// The org moves its webhook elsewhere: sending the old delivery again
	// must not post the day to the endpoint it dropped.
	f.SetConfig(org, deliveryConfig("Etc/UTC", "07:00", nil, false, "https://hooks.example.com/new"))
	require.NoError(t, f.deliveries.Resend(f.Ctx, org, id, admin, time.Now()))
	f.runOnceWith(f.deliveringWorker("", nil), utc("2026-03-10T07:10:00Z"))
	require.Equal(t, "failed/3", f.deliveryStates(org)[hook.URL])
	require.EqualValues(t, 2, calls.Load(), "the old URL is not called again")
	require.Equal(t, "failed ", f.attemptList(org)[2])
	var detail string
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT last_detail FROM ff_deliveries WHERE id = $1`, id).Scan(&detail))
	require.Contains(t, detail, "webhook URL has changed")
}

// TestUnsubscribedAddressIsNotRetried: an address that unsubscribes while
// its delivery waits for a retry (or is sent again) gets nothing more.
func TestUnsubscribedAddressIsNotRetried(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	sink.SetFallback(550)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", []string{"leaving@acme.test"}, false, ""))
	f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-10T07:00:00Z"))
	require.Equal(t, "failed/1", f.deliveryStates(org)["leaving@acme.test"])
	require.Equal(t, 1, sink.Attempts())

	_, err := f.DB.Exec(f.Ctx, `INSERT INTO email_suppressions (org_id, email) VALUES ($1, 'Leaving@acme.test')`, org)
	require.NoError(t, err)
	sink.SetFallback(250)
	var id int64
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT id FROM ff_deliveries WHERE org_id = $1`, org).Scan(&id))
	require.NoError(t, f.deliveries.Resend(f.Ctx, org, id, admin, time.Now()))
	f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-10T07:05:00Z"))
	require.Equal(t, "failed/2", f.deliveryStates(org)["leaving@acme.test"])
	require.Equal(t, 1, sink.Attempts(), "no second message to an address that unsubscribed")
	require.Empty(t, sink.Messages())
}

// TestGenerateNowThenScheduledDeliversOnce: a look at 06:00 sends nothing;
// the 08:00 firing delivers once, whatever runs again.
func TestGenerateNowThenScheduledDeliversOnce(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("acme", deliveryConfig("Europe/Berlin", "08:00", []string{"dispatch@acme.test"}, false, ""))
	at := func(hhmm string) time.Time { return utc("2026-03-10T" + hhmm + ":00Z") } // CET = UTC+1

	_, err := f.store.GenerateNow(f.Ctx, org, at("05:00"), admin)
	require.NoError(t, err)
	w := func() *Worker { return f.deliveringWorker(sink.URL, nil) }
	f.runOnceWith(w(), at("05:00"))
	require.Empty(t, sink.Messages(), "generate now sends nothing")

	for _, hhmm := range []string{"06:59", "07:00", "07:01", "07:30"} {
		f.runOnceWith(w(), at(hhmm))
	}
	require.Len(t, sink.Messages(), 1)
	require.Equal(t, []string{"dispatch@acme.test"}, sink.Messages()[0].To)
}

// TestReplicasDeliverOnce: several workers at once over many due orgs, each
// recipient gets exactly one message.
func TestReplicasDeliverOnce(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	const orgsDue, replicas = 300, 5
	for i := range orgsDue {
		f.Org("org-"+strconv.Itoa(i), deliveryConfig("Etc/UTC", "07:00", []string{"dispatch-" + strconv.Itoa(i) + "@acme.test"}, false, ""))
	}
	now := utc("2026-03-10T07:00:00Z")
	var wg sync.WaitGroup
	for range replicas {
		wg.Go(func() {
			// Each replica has its own pool, as separate processes would.
			cfg := f.DB.Config()
			cfg.MaxConns = 8 // cmd/worker's pool: its concurrency + 3 and more
			pool, err := pgxpool.NewWithConfig(f.Ctx, cfg)
			require.NoError(t, err)
			defer pool.Close()
			w := f.deliveringWorker(sink.URL, nil)
			w.DB, w.Sender.DB = pool, pool
			_, err = w.RunOnce(f.Ctx, now, time.Minute)
			require.NoError(t, err)
		})
	}
	wg.Wait()
	msgs := sink.Messages()
	seen := map[string]int{}
	for _, m := range msgs {
		seen[strings.Join(m.To, ",")]++
	}
	require.Len(t, seen, orgsDue)
	for to, n := range seen {
		require.Equal(t, 1, n, to)
	}
	require.Equal(t, orgsDue, f.Count(`SELECT count(*) FROM ff_deliveries WHERE state = 'sent'`))
}

func (f *fixture) outboxSender() *delivery.Sender {
	return &delivery.Sender{DB: f.DB, Mailer: transport.NewOutboxMailer(f.DB), From: "fieldbrief <briefings@fieldbrief.test>",
		BaseURL: "https://app.fieldbrief.test", Webhooks: &transport.WebhookClient{AllowPrivate: true}}
}

// sendTest is the settings page's "send a test to me" at now.
func (f *fixture) sendTest(sender *delivery.Sender, org int64, channel, to string, now time.Time) (delivery.Delivery, error) {
	return f.store.SendTest(f.Ctx, f.deliveries, sender, org, channel, to, now)
}

// TestSendTestIsBounded: an admin's test sends are a check, not a mailer:
// one at a time per org, and each a briefing generated on request, so
// MaxRequestsPerHour an hour, "generate now" included.
func TestSendTestIsBounded(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "07:00"))
	other := f.Org("globex", config("Etc/UTC", "07:00"))
	sender := f.outboxSender()
	now := utc("2026-03-10T06:00:00Z")
	_, err := f.store.GenerateNow(f.Ctx, org, now, admin)
	require.NoError(t, err)
	for i := range briefing.MaxRequestsPerHour - 1 {
		d, err := f.sendTest(sender, org, delivery.ChannelEmail, "admin@acme.test", now.Add(time.Duration(i)*time.Minute))
		require.NoError(t, err, "test %d", i+1)
		require.Equal(t, delivery.DeliverySent, d.State)
	}
	_, err = f.sendTest(sender, org, delivery.ChannelEmail, "admin@acme.test", now.Add(10*time.Minute))
	require.Equal(t, apperr.TooMany, apperr.Code(err), "%v", err)
	require.Equal(t, 50*time.Minute, apperr.RetryAfter(err))
	require.Equal(t, "test_too_many", apperr.ReasonOf(err))
	require.Contains(t, i18n.English.Message(err), "You can send a test again in 50 minutes.")
	require.Equal(t, briefing.MaxRequestsPerHour-1, f.Count(`SELECT count(*) FROM mail_outbox WHERE org_id = $1`, org))
	require.Equal(t, briefing.MaxRequestsPerHour, f.Count(`SELECT max(requested_revision) FROM ff_briefings WHERE org_id = $1`, org),
		"the refused test made no revision")

	// Another org has its own allowance; a test in flight holds the next one back.
	d, err := f.sendTest(sender, other, delivery.ChannelEmail, "admin@globex.test", now)
	require.NoError(t, err)
	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_deliveries SET state = 'pending' WHERE id = $1`, d.ID)
	require.NoError(t, err)
	_, err = f.sendTest(sender, other, delivery.ChannelEmail, "admin@globex.test", now.Add(time.Second))
	require.Equal(t, apperr.TooMany, apperr.Code(err), "%v", err)
	require.Equal(t, "test_in_flight", apperr.ReasonOf(err))
	require.Contains(t, i18n.English.Message(err), "being sent already")
}

// TestSendTestHoldsNoConnectionWhileWaiting: a slow receiver must not hold
// one of the web's database connections while it takes its time.
func TestSendTestHoldsNoConnectionWhileWaiting(t *testing.T) {
	f := setup(t)
	arrived, release := make(chan struct{}), make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(arrived)
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", nil, false, hook.URL))
	done := make(chan error, 1)
	go func() {
		_, err := f.sendTest(f.outboxSender(), org, delivery.ChannelWebhook, hook.URL, utc("2026-03-10T06:00:00Z"))
		done <- err
	}()
	<-arrived
	held := f.DB.Stat().AcquiredConns()
	close(release)
	require.NoError(t, <-done)
	require.Zero(t, held, "a connection was held while the receiver answered")
	require.Equal(t, "sent/1", f.deliveryStates(org)[hook.URL])
}
