package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"fieldbrief/internal/database"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
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
	m, err := s.updateMessage(ctx, d, u, ex)
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
// ("And 30 more: open your day").
func (s *Sender) updateMessage(ctx context.Context, d deliveryRow, u updateContent, ex extras) (delivery.Message, error) {
	m := updateEmail(u, updates.ForTechnician(u.Rows))
	m.UnsubscribeURL, m.DayURL = ex.unsubscribeURL, ex.dayURL
	id, err := delivery.MessageIDFor(d.Key, s.From)
	if err != nil {
		return delivery.Message{}, err
	}
	for {
		var html bytes.Buffer
		if err := mail.UpdateHTML(m).Render(ctx, &html); err != nil {
			return delivery.Message{}, fmt.Errorf("render update email: %w", err)
		}
		msg := delivery.Message{
			From: s.From, To: d.Recipient, Subject: mail.UpdateSubject(dateLabel(u.Date)), Text: mail.UpdateText(m),
			HTML: html.String(), MessageID: id, UnsubscribeURL: m.UnsubscribeURL, OrgID: d.OrgID,
		}
		size, err := delivery.Size(msg)
		if err != nil {
			return delivery.Message{}, err
		}
		if size <= MaxEmailBytes {
			return msg, nil
		}
		if len(m.Items) == 0 {
			return delivery.Message{}, &delivery.Error{Permanent: true,
				Detail: fmt.Sprintf("the update email is %d bytes listing no job, over the %d-byte bound", size, MaxEmailBytes)}
		}
		keep := len(m.Items) / 2
		m.More += len(m.Items) - keep
		m.Items = m.Items[:keep:keep]
	}
}

// updateEmail is the technician's email model: each item's window as
// their day has it, in the briefing's zone with its abbreviation.
func updateEmail(u updateContent, items []updates.Item) mail.UpdateEmail {
	m := mail.UpdateEmail{OrgName: u.OrgName, DateLabel: dateLabel(u.Date), Timezone: u.Zone.Name}
	if len(items) > maxUpdateJobs {
		m.More = len(items) - maxUpdateJobs
		items = items[:maxUpdateJobs]
	}
	if u.More > 0 {
		m.More += u.More // rows not read: at least one job each, at most
	}
	f := stateFormat{loc: u.Zone.Loc, day: u.Date}
	for _, it := range items {
		now := it.Now()
		mi := mail.UpdateItem{Kind: it.Kind, Window: f.window(now), Customer: now.Customer, Address: now.Address, Emergency: now.Emergency}
		switch it.Kind {
		case updates.Added:
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
	loc *time.Location
	day schedule.Date
}

// window is a job's arrival window: "09:00–11:00 CST", with the date in
// front when it is not the day's ("Fri 27 Nov 09:00–11:00 CST"), and the
// abbreviation of the end too when it differs (a DST change).
func (f stateFormat) window(j updates.JobState) string {
	start, end := j.Start.In(f.loc), j.End.In(f.loc)
	var b strings.Builder
	if schedule.DateOf(start) != f.day {
		b.WriteString(start.Format("Mon 2 Jan "))
	}
	b.WriteString(start.Format("15:04"))
	b.WriteString("–")
	if schedule.DateOf(end) != schedule.DateOf(start) {
		b.WriteString(end.Format("Mon 2 Jan "))
	}
	b.WriteString(end.Format("15:04"))
	zone := start.Format("MST")
	if e := end.Format("MST"); e != zone {
		zone += "/" + e
	}
	return b.String() + " " + zone
}

func (f stateFormat) addedWhy(it updates.Item, techID int64) string {
	switch b := it.Before; {
	case b == nil:
		return "New job"
	case b.TechnicianID == 0:
		return "Assigned to you (it was unassigned)"
	case b.TechnicianID != techID:
		return "Assigned to you (it was " + orSomeone(b.Technician) + "'s)"
	default:
		return "Moved to this day (it was " + f.window(*b) + ")"
	}
}

func (f stateFormat) removedWhy(it updates.Item, techID int64) string {
	switch a := it.After; {
	case a.TechnicianID == 0:
		return "Unassigned: no longer yours"
	case a.TechnicianID != techID:
		return "Reassigned to " + orSomeone(a.Technician)
	default:
		return "Moved to " + f.window(a)
	}
}

func orSomeone(name string) string {
	if name == "" {
		return "someone else"
	}
	return name
}

// fieldLine is one changed field, old → new.
func (f stateFormat) fieldLine(name string, a, b updates.JobState) string {
	pair := func(label, old, new string) string { return label + ": " + orNone(old) + " → " + orNone(new) }
	switch name {
	case updates.FieldWindow:
		return pair("Arrival", f.window(a), f.window(b))
	case updates.FieldAddress:
		return pair("Address", a.Address, b.Address)
	case updates.FieldStatus:
		return pair("Status", field.StatusLabel(a.Status), field.StatusLabel(b.Status))
	case updates.FieldCustomer:
		return pair("Customer", a.Customer, b.Customer)
	case updates.FieldCustomerPhone:
		return pair("Customer phone", a.CustomerPhone, b.CustomerPhone)
	case updates.FieldJobType:
		return pair("Job type", a.JobType, b.JobType)
	case updates.FieldEmergency:
		return pair("Emergency", yesNo(a.Emergency), yesNo(b.Emergency))
	case updates.FieldNotes:
		return pair("Notes", clipRunes(a.Notes, maxNoteRunes), clipRunes(b.Notes, maxNoteRunes))
	}
	return name
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
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
	_, err = s.Webhooks.Post(ctx, delivery.Webhook{URL: d.Recipient, ID: d.Key, Payload: payload, Secret: secret})
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
