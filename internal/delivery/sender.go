package delivery

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"

	"fieldbrief/internal/database"
	"fieldbrief/internal/daylinks"
	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/text"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/unsubscribe"
	"fieldbrief/views/briefview"
	"fieldbrief/views/mail"
)

// Sender sends deliveries. The two delivery tasks and the settings page's
// test sends all go through it, so a test shows exactly what the
// morning's run would send.
type Sender struct {
	DB       *pgxpool.Pool
	Mailer   transport.Mailer         // SMTP, or the outbox when SMTP_URL is unset
	From     string                   // MAIL_FROM
	BaseURL  string                   // links back to the app: the briefing page, unsubscribe
	Webhooks *transport.WebhookClient // its AllowPrivate is WEBHOOK_ALLOW_PRIVATE_NETWORKS
	Log      *slog.Logger
	Metrics  *Metrics
	Now      func() time.Time   // default time.Now
	Cap      transport.DailyCap // emails per org and day (daily_cap.go); zero is the default
}

// NewSender is the Sender both processes build from their delivery
// settings: mail to SMTP_URL (the outbox when unset), links to BASE_URL,
// webhooks under the private-network switch. Empty MailFrom and BaseURL
// get the defaults.
func NewSender(db *pgxpool.Pool, set transport.Settings, log *slog.Logger) (*Sender, error) {
	mailer, err := transport.NewMailer(set.SMTPURL, db)
	if err != nil {
		return nil, fmt.Errorf("mailer: %w", err)
	}
	return &Sender{
		DB: db, Mailer: mailer, Log: log,
		From:     cmp.Or(set.MailFrom, transport.DefaultMailFrom),
		BaseURL:  cmp.Or(set.BaseURL, transport.DefaultBaseURL),
		Webhooks: &transport.WebhookClient{AllowPrivate: set.AllowPrivateWebhooks},
		Cap:      set.DailyCap,
	}, nil
}

func (s *Sender) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Sender) tenants() *tenants.Store { return &tenants.Store{DB: s.DB} }

func (s *Sender) unsubscribes() *unsubscribe.Store { return &unsubscribe.Store{DB: s.DB} }

// attempt makes one attempt at delivery id of org and records it, holding
// the delivery's row lock throughout (see lockDelivery). A delivery that is
// no longer pending (sent by a duplicate run, or failed) is left alone:
// outcome is "" then. final says this is the task's last attempt. err is
// the send's error; a database error is returned as such too, and River
// retries it like any other.
func (s *Sender) attempt(ctx context.Context, orgID, id int64, final func(deliveryRow) bool, worker string) (d deliveryRow, outcome string, err error) {
	// What the send needs from other tables is read first, on the pool: the
	// locking transaction holds one connection for the whole send, and a
	// second one taken inside it could wait on a pool its peers exhaust.
	var ex extras
	if d, err = readDelivery(ctx, s.DB, orgID, id); err != nil {
		return d, "", err
	}
	if d.State != DeliveryPending {
		return d, "", nil
	}
	if ex, err = s.extras(ctx, d); err != nil {
		return d, "", err
	}
	if ex.void == nil {
		over, err := s.capped(ctx, d)
		if err != nil || over {
			if over {
				d.State = DeliverySkipped
			}
			return d, "", err
		}
	}
	var sendErr error
	var sent bool
	var start time.Time
	txErr := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if d, err = lockDelivery(ctx, tx, orgID, id); err != nil {
			return err
		}
		if d.State != DeliveryPending {
			return nil
		}
		start = s.now()
		sendErr = s.send(ctx, tx, d, ex)
		sent = sendErr == nil
		outcome, err = s.record(ctx, tx, d, start, sendErr, final(d), worker)
		return err
	})
	if txErr != nil && sent && database.Transient(txErr) {
		// The receiver took it, but the connection holding the record went
		// away (pg_terminate_backend, a restart): record it sent on a new
		// one, or the retry would deliver it twice. The row lock went with
		// the old connection; lockDelivery takes it again, and a delivery
		// no longer pending (the commit did land) is left alone.
		txErr = database.RetryTransient(ctx, s.Log, "record sent delivery", func(ctx context.Context) error {
			return database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
				cur, err := lockDelivery(ctx, tx, orgID, id)
				if err != nil || cur.State != DeliveryPending {
					outcome = ""
					return err
				}
				d = cur
				outcome, err = s.record(ctx, tx, d, start, nil, final(d), worker)
				return err
			})
		})
	}
	if txErr != nil {
		return d, "", errors.Join(sendErr, txErr)
	}
	return d, outcome, sendErr
}

// attemptOnce is attempt for a test send from the web: one attempt that
// nothing else runs, so it needs no row lock, and it holds no connection
// while the receiver answers (up to 30 s): a slow receiver must not take the
// web's connections from every other tenant's pages.
func (s *Sender) attemptOnce(ctx context.Context, orgID, id int64) (outcome string, err error) {
	d, err := readDelivery(ctx, s.DB, orgID, id)
	if err != nil {
		return "", err
	}
	ex, err := s.extras(ctx, d)
	if err != nil {
		return "", err
	}
	start := s.now()
	sendErr := s.send(ctx, s.DB, d, ex)
	// Recorded even when the request's deadline passed during the send:
	// what was sent is never left pending.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	txErr := database.BeginFunc(rctx, s.DB, func(tx pgx.Tx) error {
		outcome, err = s.record(rctx, tx, d, start, sendErr, true, "web")
		return err
	})
	return outcome, errors.Join(sendErr, txErr)
}

// record classifies the send that began at start and records the attempt
// in tx, even when ctx ran out during the send.
func (s *Sender) record(ctx context.Context, tx pgx.Tx, d deliveryRow, start time.Time, sendErr error, final bool, worker string) (outcome string, err error) {
	r := attemptResult{at: start, duration: s.now().Sub(start)}
	r.outcome, r.code, r.detail = classify(sendErr, final)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := recordAttempt(rctx, tx, d, r, worker); err != nil {
		return "", err
	}
	s.Metrics.delivery(d.Channel, r.outcome, s.now().Sub(d.DueAt))
	return r.outcome, nil
}

// extras is what a send needs beyond the delivery and its briefing: the
// recipient's unsubscribe link and a technician's day link, or the org's
// webhook signing secret; or why it must not be sent at all.
type extras struct {
	unsubscribeURL, dayURL, secret string
	void                           *transport.Error // not to be sent any more (see voided)
}

func (s *Sender) extras(ctx context.Context, d deliveryRow) (extras, error) {
	var ex extras
	var err error
	if d.Audience != AudienceTest {
		if ex.void, err = s.voided(ctx, d); err != nil || ex.void != nil {
			return ex, err
		}
	}
	switch {
	case d.Channel == ChannelWebhook:
		ex.secret, err = s.tenants().WebhookSecret(ctx, d.OrgID)
	case d.Audience == AudienceDispatcher:
		// A technician's day sheet is their work: no one-click unsubscribe
		// (docs/delivery.md, "Stopping day sheets").
		ex.unsubscribeURL, err = s.unsubscribes().URL(ctx, s.BaseURL, d.OrgID, d.Recipient)
	}
	if err == nil && d.Audience == AudienceTechnician && d.TechnicianID != 0 {
		ex.dayURL, err = s.dayLink(ctx, d)
	}
	return ex, err
}

// dayLink mints the technician's day link for this send, on the pool and
// before the send, so the link exists once the email does whatever happens
// to the attempt's transaction. Every attempt mints its own (the token is
// kept nowhere, so a retry cannot send the last one again); the
// Message-ID stays the delivery's. A date whose links are over (a re-send
// days later), or a technician deleted since, gets none, and the email its
// briefing link instead (docs/delivery.md, "Day links").
func (s *Sender) dayLink(ctx context.Context, d deliveryRow) (string, error) {
	var date time.Time
	var zoneName string
	if err := s.DB.QueryRow(ctx, `SELECT briefing_date, timezone FROM ff_briefings WHERE org_id = $1 AND id = $2`,
		d.OrgID, d.BriefingID).Scan(&date, &zoneName); err != nil {
		return "", fmt.Errorf("briefing %d of delivery %d: %w", d.BriefingID, d.ID, err)
	}
	zone, err := schedule.LoadZone(zoneName)
	if err != nil {
		return "", err
	}
	token, err := daylinks.Issue(ctx, s.DB, d.OrgID, d.TechnicianID, schedule.DateOf(date), zone.Loc, s.now(), d.Recipient)
	if errors.Is(err, daylinks.ErrExpired) || errors.Is(err, daylinks.ErrNoTechnician) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return daylinks.URL(s.BaseURL, token), nil
}

// voided says why a delivery must not be sent any more although it is
// pending (a retry, or a re-send): its address unsubscribed since (a
// technician: asked not to receive day sheets), the org
// removed the address from its recipients or changed the technician's, or
// it replaced or removed the webhook URL it was for — a retry must not
// send the day's names and addresses to an address or an endpoint the org
// has dropped.
func (s *Sender) voided(ctx context.Context, d deliveryRow) (*transport.Error, error) {
	if d.Channel == ChannelEmail && d.Audience == AudienceTechnician {
		return s.droppedAddress(ctx, d) // their own request to stop is on their row
	}
	if d.Channel == ChannelEmail {
		var gone bool
		err := s.DB.QueryRow(ctx, `SELECT EXISTS (SELECT FROM email_suppressions WHERE org_id = $1 AND lower(email) = lower($2))`,
			d.OrgID, d.Recipient).Scan(&gone)
		if err != nil {
			return nil, err
		}
		if gone {
			return &transport.Error{Permanent: true, Detail: "the recipient unsubscribed"}, nil
		}
		return s.droppedAddress(ctx, d)
	}
	cfg, err := s.tenants().Fieldforce(ctx, d.OrgID)
	if err != nil {
		return nil, err
	}
	if cfg.Err == nil && cfg.Config.Delivery != nil && cfg.Config.Delivery.Webhook != nil && cfg.Config.Delivery.Webhook.URL == d.Recipient {
		return nil, nil
	}
	return &transport.Error{Permanent: true, Detail: "the webhook URL has changed since; not sent to the old one"}, nil
}

// droppedAddress says why an email delivery's address is no longer one the
// org sends to (docs/security.md, "Deliveries to dropped addresses; webhook ports"): a dispatcher's that is not in
// delivery.email.to any more (compared as addresses are, ignoring case), a
// technician's that changed or whose technician was deleted. nil when it
// still is.
func (s *Sender) droppedAddress(ctx context.Context, d deliveryRow) (*transport.Error, error) {
	switch {
	case d.Audience == AudienceDispatcher:
		cfg, err := s.tenants().Fieldforce(ctx, d.OrgID)
		if err != nil {
			return nil, err
		}
		if cfg.Err == nil && cfg.Config.Delivery != nil && cfg.Config.Delivery.Email != nil {
			for _, to := range cfg.Config.Delivery.Email.To {
				if addr, err := text.ParseAddress(to); err == nil && strings.EqualFold(addr, d.Recipient) {
					return nil, nil
				}
			}
		}
		return &transport.Error{Permanent: true, Detail: "the address is no longer one of the recipients; not sent to it"}, nil
	case d.Audience == AudienceTechnician && d.TechnicianID != 0:
		c, found, err := field.ContactOf(ctx, s.DB, d.OrgID, d.TechnicianID)
		if err != nil {
			return nil, fmt.Errorf("delivery %d: %w", d.ID, err)
		}
		if !found {
			return &transport.Error{Permanent: true, Detail: "the technician was deleted since; not sent"}, nil
		}
		if !strings.EqualFold(c.Email, d.Recipient) {
			return &transport.Error{Permanent: true, Detail: "the technician's address has changed since; not sent to the old one"}, nil
		}
		if c.DaySheetsStoppedAt != nil {
			return &transport.Error{Permanent: true, Detail: "the technician asked not to receive day sheets since " + StoppedDetail(*c.DaySheetsStoppedAt) + "; not sent"}, nil
		}
	}
	return nil, nil
}

// send builds and sends d's message.
func (s *Sender) send(ctx context.Context, q database.Querier, d deliveryRow, ex extras) error {
	if ex.void != nil {
		return ex.void
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	if d.UpdateID != 0 {
		return s.sendUpdate(ctx, q, d, ex)
	}
	c, err := loadContent(ctx, q, d)
	if err != nil {
		return err
	}
	if d.Channel == ChannelWebhook {
		return s.sendWebhook(ctx, d, c, ex.secret)
	}
	var tech int64
	if d.Audience == AudienceTechnician {
		tech = d.TechnicianID
	}
	if c.L, err = Reader(ctx, q, d.OrgID, tech); err != nil {
		return err
	}
	return s.sendEmail(ctx, d, c, ex)
}

// content is what a delivery sends: a revision of a briefing and the org it
// belongs to.
type content struct {
	OrgName, Slug string
	Date          schedule.Date
	Zone          schedule.Zone
	Revision      int
	Snapshot      snapshot.Snapshot
	OrgURL        string          // the org's pages, with the host: BASE_URL/orgs/<slug>
	L             *i18n.Localizer // the email's reader (Reader); nil is English
}

func loadContent(ctx context.Context, q database.Querier, d deliveryRow) (content, error) {
	var c content
	if err := q.QueryRow(ctx, `SELECT name, slug FROM orgs WHERE id = $1`, d.OrgID).Scan(&c.OrgName, &c.Slug); err != nil {
		return c, fmt.Errorf("org %d: %w", d.OrgID, err)
	}
	var raw []byte
	var date time.Time
	var zoneName string
	err := q.QueryRow(ctx, `
		SELECT r.content, b.briefing_date, b.timezone
		  FROM ff_briefing_revisions r
		  JOIN ff_briefings b ON b.id = r.briefing_id AND b.org_id = r.org_id
		 WHERE r.org_id = $1 AND r.briefing_id = $2 AND r.revision = $3`,
		d.OrgID, d.BriefingID, d.Revision).Scan(&raw, &date, &zoneName)
	if err != nil {
		return c, fmt.Errorf("revision %d of briefing %d: %w", d.Revision, d.BriefingID, err)
	}
	if err := json.Unmarshal(raw, &c.Snapshot); err != nil {
		return c, fmt.Errorf("decode revision %d of briefing %d: %w", d.Revision, d.BriefingID, err)
	}
	if len(raw) > snapshot.MaxBytes {
		// Stored before the bounds (docs/briefing-content.md, "Bounds"):
		// the webhook gets it bounded as a new one would be.
		if _, c.Snapshot, err = snapshot.Encode(c.Snapshot); err != nil {
			return c, err
		}
	}
	if c.Zone, err = schedule.LoadZone(zoneName); err != nil {
		return c, err
	}
	c.Date, c.Revision = schedule.DateOf(date), d.Revision
	return c, nil
}

func (s *Sender) orgURL(c content) string {
	return strings.TrimRight(s.BaseURL, "/") + "/orgs/" + url.PathEscape(c.Slug)
}

func (s *Sender) briefingURL(c content) string {
	return s.orgURL(c) + "/briefings/" + c.Date.String()
}

func (s *Sender) sendEmail(ctx context.Context, d deliveryRow, c content, ex extras) error {
	c.OrgURL = s.orgURL(c)
	m := emailModel(c.L, c, d, s.briefingURL(c))
	m.UnsubscribeURL, m.DayURL = ex.unsubscribeURL, ex.dayURL
	id, err := transport.MessageIDFor(d.Key, s.From)
	if err != nil {
		return err
	}
	subject := m.Subject()
	if d.Audience == AudienceTest {
		subject = "[Test] " + subject
	}
	// At most MaxEmailBytes: a long day is shortened, and says so.
	msg, err := fitEmail(ctx, m, func(text, html string) transport.Message {
		return transport.Message{
			From: s.From, To: d.Recipient, Subject: subject, Text: text, HTML: html,
			MessageID: id, UnsubscribeURL: m.UnsubscribeURL, OrgID: d.OrgID,
		}
	})
	if err != nil {
		return err
	}
	return s.Mailer.Send(ctx, msg)
}

// WebhookEvent is the JSON body of a webhook call (docs/delivery.md).
type WebhookEvent struct {
	Type      string      `json:"type"` // "briefing.ready"
	Timestamp time.Time   `json:"timestamp"`
	Data      WebhookData `json:"data"`
}

// WebhookData is the briefing a webhook announces.
type WebhookData struct {
	Org      WebhookOrg        `json:"org"`
	Date     string            `json:"date"`
	Timezone string            `json:"timezone"`
	Revision int               `json:"revision"`
	Test     bool              `json:"test,omitempty"`
	URL      string            `json:"url"`
	Content  snapshot.Snapshot `json:"content"`
}

// WebhookOrg names the org in a webhook.
type WebhookOrg struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

func (s *Sender) sendWebhook(ctx context.Context, d deliveryRow, c content, secret string) error {
	now := s.now()
	payload, err := json.Marshal(WebhookEvent{Type: "briefing.ready", Timestamp: now.UTC(), Data: WebhookData{
		Org: WebhookOrg{Slug: c.Slug, Name: c.OrgName}, Date: c.Date.String(), Timezone: c.Zone.Name,
		Revision: c.Revision, Test: d.Audience == AudienceTest, URL: s.briefingURL(c), Content: c.Snapshot,
	}})
	if err != nil {
		return fmt.Errorf("encode webhook: %w", err)
	}
	// The signature's timestamp is the real clock's (a zero Timestamp):
	// receivers refuse one more than a few minutes off theirs.
	_, err = s.Webhooks.Post(ctx, transport.Webhook{URL: d.Recipient, ID: d.Key, Payload: payload, Secret: secret})
	return err
}

// emailModel is the email for d's recipient, in l's language and formats
// (Reader): a dispatcher (or a test) gets
// the whole day, a technician only their own route. The content is
// snapshot.View's,
// the same as the briefing page's; every time is in the briefing's zone
// with its abbreviation, which may differ within a day (a DST change).
func emailModel(l *i18n.Localizer, c content, d deliveryRow, briefingURL string) mail.BriefingEmail {
	m := mail.BriefingEmail{
		L: l, OrgName: c.OrgName, DateLabel: dateLabel(l, c.Date), ZoneName: zoneName(l, c.Zone, c.Date), Timezone: c.Zone.Name, BriefingURL: briefingURL,
		Recipient: mail.Dispatcher, Shortened: c.Snapshot.Shortened,
	}
	if d.Audience == AudienceTechnician {
		m.Recipient, m.Own = mail.Technician, technicianDay(l, c, d.TechnicianID)
		return m
	}
	v := snapshot.View(c.Snapshot, c.Zone.Loc)
	v.Link(c.OrgURL)
	a := v.ActionItems
	lists := [][]briefview.Job{a.Emergencies, a.Overdue, a.Unassigned, a.OnHold, v.Cancelled}
	for _, r := range v.Routes {
		lists = append(lists, r.Jobs)
	}
	localWindows(l, c.Snapshot, c.Date, c.Zone.Loc, lists...)
	m.Summary, m.ActionItems, m.Routes, m.Cancelled = v.Summary, v.ActionItems, v.Routes, v.Cancelled
	m.MoreCancelled, m.CancelledURL = v.MoreCancelled, v.CancelledURL
	return m
}

// technicianDay is what a technician's email shows of their own work:
// their jobs of the day (cancelled ones apart) and their own jobs overdue
// on it, each list with how many it leaves out.
func technicianDay(l *i18n.Localizer, c content, techID int64) mail.TechnicianDay {
	var jobs, cancelled []snapshot.JobLine
	var moreJobs int
	for _, t := range c.Snapshot.Technicians {
		if t.ID != techID {
			continue
		}
		moreJobs = t.MoreJobs
		for _, j := range t.Jobs {
			if j.Status == "cancelled" {
				cancelled = append(cancelled, j)
			} else {
				jobs = append(jobs, j)
			}
		}
	}
	overdue, moreOverdue := c.Snapshot.OwnOverdueOf(techID)
	own := func(lines []snapshot.JobLine) []mail.Job {
		out := snapshot.ViewJobs(lines, c.Zone.Loc)
		for i := range out {
			out[i].Technician = "" // the reader
			out[i].Window = localWindow(l, lines[i], c.Date, c.Zone.Loc)
			out[i].Zone = localZone(l, lines[i], c.Zone.Loc, out[i].Zone)
		}
		return out
	}
	d := mail.TechnicianDay{Jobs: own(jobs), Overdue: own(overdue), Cancelled: own(cancelled),
		MoreJobs: moreJobs, MoreOverdue: moreOverdue}
	if len(jobs) > 0 {
		d.First = firstVisit(l, jobs[0], c.Zone.Loc)
	}
	return d
}

// firstVisit is a visit as a subject line names it, in the reader's
// language and clock: "8:00 AM at 500 W 2nd St", the street part of the
// address (its customer without one), one short line of it (mail.VisitAt).
func firstVisit(l *i18n.Localizer, j snapshot.JobLine, loc *time.Location) string {
	at, _, _ := strings.Cut(j.Window, "–")
	if !j.ArrivalStart.IsZero() {
		at = l.Locale().Time(j.ArrivalStart.In(loc))
	}
	place, _, _ := strings.Cut(j.Address, ",")
	return mail.VisitAt(l, at, cmp.Or(text.SubjectPart(place), j.Customer))
}

// work is the part both delivery tasks share: one attempt, recorded,
// and River's answer.
func (s *Sender) work(ctx context.Context, orgID, deliveryID int64, job *rivertype.JobRow, maxAttempts int) error {
	final := func(d deliveryRow) bool {
		// Our own count as well as River's: a Retry-After snooze does not use
		// up one of River's attempts, and must not go on for ever.
		return job.Attempt >= job.MaxAttempts || d.Attempts+1 >= maxAttempts
	}
	var worker string
	if n := len(job.AttemptedBy); n > 0 {
		worker = job.AttemptedBy[n-1]
	}
	d, outcome, err := s.attempt(ctx, orgID, deliveryID, final, worker)
	attrs := []any{"job_id", job.ID, "kind", job.Kind, "org_id", orgID, "delivery_id", deliveryID,
		"briefing_id", d.BriefingID, "attempt", job.Attempt, "outcome", outcome}
	switch {
	case outcome == "" && err == nil && d.State == DeliverySkipped:
		s.Log.Warn("delivery skipped: the org's daily email cap is reached", attrs...)
	case outcome == "" && err == nil:
		s.Log.Info("delivery skipped: no longer pending", append(attrs, "state", d.State)...)
	case outcome == AttemptSent:
		s.Log.Info("delivery sent", attrs...)
	case outcome == AttemptFailed:
		s.Log.Warn("delivery failed for good", append(attrs, "error", err)...)
	default:
		s.Log.Warn("delivery attempt failed; River retries it", append(attrs, "error", err)...)
	}
	if outcome == "" {
		return err // a database error: River retries the task
	}
	return riverResult(err, outcome)
}
