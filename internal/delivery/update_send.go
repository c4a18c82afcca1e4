package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"fieldbrief/views/briefview"
	"fmt"
	"time"

	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/updates"
	"fieldbrief/views/mail"
)

// An update's deliveries (UpdateHandler made them) send what the update
// folded: the technician's email lists the net change of each of their
// jobs, the webhook each job change once (docs/delivery.md, "Updates").

// maxUpdateJobs bounds the jobs one update's email and webhook list; the
// rest are counted ("and 3 more").
const maxUpdateJobs = 50

// maxNoteRunes clips a note shown as old → new in an email.
const maxNoteRunes = 300

// updateContent is what an update delivery sends.
type updateContent struct {
	OrgName, Slug string
	Date          schedule.Date
	Zone          schedule.Zone
	UpdateID      int64
	TechnicianID  int64
	Rows          []updates.Row
	More          int // rows past updates.MaxRows, not read
}

func loadUpdate(ctx context.Context, q database.Querier, d deliveryRow) (updateContent, error) {
	u := updateContent{UpdateID: d.UpdateID}
	var date time.Time
	var zoneName string
	err := q.QueryRow(ctx, `
		SELECT o.name, o.slug, b.briefing_date, b.timezone, u.technician_id
		  FROM ff_briefing_updates u
		  JOIN ff_briefings b ON b.id = u.briefing_id AND b.org_id = u.org_id
		  JOIN orgs o ON o.id = u.org_id
		 WHERE u.org_id = $1 AND u.id = $2`, d.OrgID, d.UpdateID).Scan(&u.OrgName, &u.Slug, &date, &zoneName, &u.TechnicianID)
	if err != nil {
		return u, fmt.Errorf("update %d of org %d: %w", d.UpdateID, d.OrgID, err)
	}
	u.Date = schedule.DateOf(date)
	if u.Zone, err = schedule.LoadZone(zoneName); err != nil {
		return u, err
	}
	u.Rows, u.More, err = updates.UpdateRows(ctx, q, d.OrgID, d.UpdateID, d.Channel == ChannelWebhook)
	return u, err
}

// sendUpdate builds and sends an update delivery's message. The email's
// day link is the one extras minted for this send, as for the briefing
// email (the update's deliveries are the technician's audience).
func (s *Sender) sendUpdate(ctx context.Context, q database.Querier, d deliveryRow, ex extras) error {
	u, err := loadUpdate(ctx, q, d)
	if err != nil {
		return err
	}
	if d.Channel == ChannelWebhook {
		return s.sendUpdateWebhook(ctx, d, u, ex.secret)
	}
	l, err := Reader(ctx, q, d.OrgID, u.TechnicianID)
	if err != nil {
		return err
	}
	m, err := s.updateMessage(ctx, l, d, u, ex)
	if err != nil {
		return err
	}
	return s.Mailer.Send(ctx, m)
}

// updateMessage is the update email as sent to d's recipient. Over
// MaxEmailBytes, the bound of every email as the SMTP server receives it
// (docs/delivery.md, "Updates": fifty jobs whose fields are as long as
// field validation allows would be several megabytes once encoded), it
// lists half as many jobs, and so on until it fits, counting the rest
// ("And 30 more: open your day"). l is the technician's reader.
func (s *Sender) updateMessage(ctx context.Context, l *i18n.Localizer, d deliveryRow, u updateContent, ex extras) (transport.Message, error) {
	m := updateEmail(l, u, updates.NotOver(updates.ForTechnician(u.Rows), s.now()))
	m.DayURL = ex.dayURL // no unsubscribe link: their day is work (docs/delivery.md, "Stopping day sheets")
	id, err := transport.MessageIDFor(d.Key, s.From)
	if err != nil {
		return transport.Message{}, err
	}
	for {
		var html bytes.Buffer
		if err := mail.UpdateHTML(m).Render(ctx, &html); err != nil {
			return transport.Message{}, fmt.Errorf("render update email: %w", err)
		}
		msg := transport.Message{
			From: s.From, To: d.Recipient, Subject: mail.UpdateSubject(l, m.DateLabel), Text: mail.UpdateText(m),
			HTML: html.String(), MessageID: id, OrgID: d.OrgID,
		}
		size, err := transport.Size(msg)
		if err != nil {
			return transport.Message{}, err
		}
		if size <= MaxEmailBytes {
			return msg, nil
		}
		if len(m.Items) == 0 {
			return transport.Message{}, &transport.Error{Permanent: true,
				Detail: fmt.Sprintf("the update email is %d bytes listing no job, over the %d-byte bound", size, MaxEmailBytes)}
		}
		keep := len(m.Items) / 2
		m.More += len(m.Items) - keep
		m.Items = m.Items[:keep:keep]
	}
}

// updateEmail is the technician's email model, in l's language and
// formats (Reader): each item's window as their day has it, in the
// briefing's zone with its abbreviation.
func updateEmail(l *i18n.Localizer, u updateContent, items []updates.Item) mail.UpdateEmail {
	m := mail.UpdateEmail{L: l, OrgName: u.OrgName, DateLabel: dateLabel(l, u.Date), Timezone: u.Zone.Name,
		ZoneName: zoneName(l, u.Zone, u.Date)}
	if len(items) > maxUpdateJobs {
		m.More = len(items) - maxUpdateJobs
		items = items[:maxUpdateJobs]
	}
	if u.More > 0 {
		m.More += u.More // rows not read: at least one job each, at most
	}
	f := stateFormat{l: l, loc: u.Zone.Loc, day: u.Date}
	for _, it := range items {
		now := it.Now()
		mi := mail.UpdateItem{Kind: it.Kind, Window: f.window(now), Customer: now.Customer, Address: now.Address, Emergency: now.Emergency}
		switch it.Kind {
		case updates.Added:
			// A job new to their day is all they know of it: everything the
			// day sheet would have shown (its phone, type and notes).
			mi.Phone, mi.JobType, mi.Notes = now.CustomerPhone, now.JobType, now.Notes
			mi.Lines = append(mi.Lines, f.addedWhy(it, u.TechnicianID))
		case updates.Removed:
			mi.Lines = append(mi.Lines, f.removedWhy(it, u.TechnicianID))
		case updates.Changed:
			if it.After.Status == field.StatusCancelled && it.Before.Status != field.StatusCancelled {
				mi.Kind = mail.UpdateCancelled
			}
			for _, name := range it.Fields {
				mi.Lines = append(mi.Lines, f.fieldLine(name, *it.Before, it.After))
			}
		}
		m.Items = append(m.Items, mi)
	}
	return m
}

// stateFormat words job states for one technician's day in its zone.
type stateFormat struct {
	l   *i18n.Localizer
	loc *time.Location
	day schedule.Date
}

// window is a job's arrival window in the reader's clock: "9:00 – 11:00
// AM CST" (en-US), "09:00–11:00 Uhr MEZ" (de-DE), with the date in front
// when it is not the day's ("Fri, Nov 27 9:00 AM – 11:00 AM CST"), and the
// abbreviation of the end too when it differs (a DST change).
func (f stateFormat) window(j updates.JobState) string {
	start, end := j.Start.In(f.loc), j.End.In(f.loc)
	zone := f.l.Locale().ZoneAbbrs(start, end) // the reader's letters (docs/i18n.md, "Zone abbreviations")
	return windowIn(f.l, start, end, f.day, f.loc) + " " + zone
}

func (f stateFormat) addedWhy(it updates.Item, techID int64) string {
	l := f.l
	switch b := it.Before; {
	case b == nil:
		return l.T("mail.update.new_job")
	case b.TechnicianID == 0:
		return l.T("mail.update.assigned_unassigned")
	case b.TechnicianID != techID:
		return l.Tf("mail.update.assigned_from", map[string]any{"Name": f.orSomeone(b.Technician)})
	default:
		return l.Tf("mail.update.moved_here", map[string]any{"Window": f.window(*b)})
	}
}

func (f stateFormat) removedWhy(it updates.Item, techID int64) string {
	l := f.l
	switch a := it.After; {
	case a.TechnicianID == 0:
		return l.T("mail.update.unassigned")
	case a.TechnicianID != techID:
		return l.Tf("mail.update.reassigned", map[string]any{"Name": f.orSomeone(a.Technician)})
	default:
		return l.Tf("mail.update.moved_to", map[string]any{"Window": f.window(a)})
	}
}

func (f stateFormat) orSomeone(name string) string {
	if name == "" {
		return f.l.T("mail.update.someone")
	}
	return name
}

// fieldLine is one changed field, old → new.
func (f stateFormat) fieldLine(name string, a, b updates.JobState) string {
	l := f.l
	orNone := func(s string) string {
		if s == "" {
			return l.T("mail.update.none")
		}
		return s
	}
	pair := func(label, old, new string) string {
		return l.Tf("mail.update.pair", map[string]any{"Label": l.T("mail.update.field." + label), "Old": orNone(old), "New": orNone(new)})
	}
	yesNo := func(b bool) string {
		if b {
			return l.T("mail.update.yes")
		}
		return l.T("mail.update.no")
	}
	status := func(s string) string { return briefview.JobStatus(l, s) }
	switch name {
	case updates.FieldWindow:
		return pair("arrival", f.window(a), f.window(b))
	case updates.FieldAddress:
		return pair("address", a.Address, b.Address)
	case updates.FieldStatus:
		return pair("status", status(a.Status), status(b.Status))
	case updates.FieldCustomer:
		return pair("customer", a.Customer, b.Customer)
	case updates.FieldCustomerPhone:
		return pair("customer_phone", a.CustomerPhone, b.CustomerPhone)
	case updates.FieldJobType:
		return pair("job_type", a.JobType, b.JobType)
	case updates.FieldEmergency:
		return pair("emergency", yesNo(a.Emergency), yesNo(b.Emergency))
	case updates.FieldNotes:
		return pair("notes", clipRunes(a.Notes, maxNoteRunes), clipRunes(b.Notes, maxNoteRunes))
	}
	return name
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// UpdateEvent is the JSON body of a briefing.updated webhook
// (docs/delivery.md, "briefing.updated").
type UpdateEvent struct {
	Type      string     `json:"type"` // "briefing.updated"
	Timestamp time.Time  `json:"timestamp"`
	Data      UpdateData `json:"data"`
}

// UpdateData lists the job changes an update announces.
type UpdateData struct {
	Org      WebhookOrg     `json:"org"`
	Date     string         `json:"date"`
	Timezone string         `json:"timezone"`
	URL      string         `json:"url"` // the briefing page
	UpdateID int64          `json:"update_id"`
	Changes  []UpdateChange `json:"changes"`
	More     int            `json:"more,omitempty"` // changes not listed (the list is bounded)
}

// UpdateChange is one job's net change: which fields, the job before and
// after, and the technicians who were told.
type UpdateChange struct {
	JobID         int64             `json:"job_id"`
	ExternalRef   string            `json:"external_ref,omitempty"`
	Kind          string            `json:"kind"`   // "created" or "changed"
	Fields        []string          `json:"fields"` // what changed; empty for a created job
	Before        *updates.JobState `json:"before"` // null for a created job
	After         updates.JobState  `json:"after"`
	TechnicianIDs []int64           `json:"technician_ids"`
}

func (s *Sender) sendUpdateWebhook(ctx context.Context, d deliveryRow, u updateContent, secret string) error {
	payload, err := s.updatePayload(u)
	if err != nil {
		return err
	}
	_, err = s.Webhooks.Post(ctx, transport.Webhook{URL: d.Recipient, ID: d.Key, Payload: payload, Secret: secret})
	return err
}

// maxUpdatePayloadBytes bounds a briefing.updated body: 1 MiB
// (docs/delivery.md, "briefing.updated"). Fifty changes whose jobs' fields
// are as long as field validation allows, before and after, would be 3 MB.
const maxUpdatePayloadBytes = snapshot.MaxBytes

// updatePayload is the briefing.updated body of u: at most maxUpdateJobs
// changes, and over maxUpdatePayloadBytes half as many, and so on until it
// fits; more counts the rest.
func (s *Sender) updatePayload(u updateContent) ([]byte, error) {
	changes := updates.ForWebhook(u.Rows)
	data := UpdateData{
		Org: WebhookOrg{Slug: u.Slug, Name: u.OrgName}, Date: u.Date.String(), Timezone: u.Zone.Name,
		URL:      s.briefingURL(content{Slug: u.Slug, Date: u.Date}),
		UpdateID: u.UpdateID, Changes: []UpdateChange{}, More: u.More,
	}
	if len(changes) > maxUpdateJobs {
		data.More += len(changes) - maxUpdateJobs
		changes = changes[:maxUpdateJobs]
	}
	for _, c := range changes {
		uc := UpdateChange{JobID: c.JobID, ExternalRef: c.After.ExternalRef, Kind: "changed", Fields: c.Fields,
			Before: c.Before, After: c.After, TechnicianIDs: c.Technicians}
		if c.Before == nil {
			uc.Kind, uc.Fields = "created", []string{}
		}
		data.Changes = append(data.Changes, uc)
	}
	at := s.now().UTC()
	for {
		payload, err := json.Marshal(UpdateEvent{Type: "briefing.updated", Timestamp: at, Data: data})
		if err != nil {
			return nil, fmt.Errorf("encode update webhook: %w", err)
		}
		if len(payload) <= maxUpdatePayloadBytes || len(data.Changes) == 0 {
			return payload, nil
		}
		keep := len(data.Changes) / 2
		data.More += len(data.Changes) - keep
		data.Changes = data.Changes[:keep:keep]
	}
}
