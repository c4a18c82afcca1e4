package web

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// The forms' side of docs/versions.md: every form that edits a stored
// thing carries the version it was read at (the hidden "version" field);
// a save over a newer one is refused with 409 and the page again, showing
// what is stored now against what was sent, nothing saved.

// formVersion reads the form's "version". A form without one (a client
// that is not our page: a script posting the form's fields) gets absent,
// the store's "whatever it is now", last write wins as before versions;
// our pages always send it. Anything but a whole number ≥ 0 is malformed.
func formVersion(c echo.Context, absent int64) (int64, error) {
	v := strings.TrimSpace(c.FormValue("version"))
	if v == "" {
		return absent, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, apperr.Errorf(apperr.Malformed, "The form's version is not a number.")
	}
	return n, nil
}

// isStale reports whether err refuses a save over a newer version.
func isStale(err error) bool { return apperr.Code(err) == apperr.Stale }

// changes lists what differs between the stored values and the sent ones.
type changes struct {
	l   *i18n.Localizer
	out []views.StaleChange
}

// add notes field (labelled by the catalog's label id) when theirs and
// yours differ.
func (c *changes) add(field, label, theirs, yours string) {
	if theirs != yours {
		c.out = append(c.out, views.StaleChange{Field: field, Label: c.l.T(label), Theirs: theirs, Yours: yours})
	}
}

// yesNo is a checkbox's value in the reader's words.
func yesNo(l *i18n.Localizer, b bool) string {
	if b {
		return l.T("stale.yes")
	}
	return l.T("stale.no")
}

// settingsChanges is what differs between the stored settings (theirs)
// and the ones sent (yours), in the form's words; the delivery only when
// the form sent its section.
func settingsChanges(l *i18n.Localizer, theirs, yours scheduleInput) []views.StaleChange {
	lc := l.Locale()
	c := changes{l: l}
	c.add("timezone", "bsettings.picker.label", theirs.timezone, yours.timezone)
	c.add("schedule_local_time", "bsettings.local_time", shownClock(lc, theirs.localTime), shownClock(lc, yours.localTime))
	c.add("days", "bsettings.days", formDays(l, theirs.days), formDays(l, yours.days))
	running := func(in scheduleInput) string {
		if in.on() {
			return l.T("briefings.badge.running")
		}
		return l.T("briefings.badge.paused")
	}
	c.add("enabled", "stale.briefings", running(theirs), running(yours))
	if t, y := theirs.delivery, yours.delivery; t != nil && y != nil {
		c.add("delivery_email_to", "bsettings.delivery.to", strings.Join(t.recipients(), ", "), strings.Join(y.recipients(), ", "))
		c.add("delivery_email_technicians", "bsettings.delivery.technicians", yesNo(l, t.technicians == true), yesNo(l, y.technicians == true))
		c.add("delivery_webhook_url", "bsettings.delivery.webhook", t.webhookURL, y.webhookURL)
		c.add("delivery_send_within", "stale.send_within", t.sendWithin, y.sendWithin)
		c.add("delivery_updates", "bsettings.delivery.updates", yesNo(l, t.updates), yesNo(l, y.updates))
	}
	return c.out
}

// formDays are document day names in the reader's abbreviations, Monday
// first: "Mon, Tue, Wed".
func formDays(l *i18n.Localizer, days []string) string {
	var out []string
	for _, o := range dayOptions(l.Locale()) {
		for _, d := range days {
			if d == o.Value {
				out = append(out, o.Label)
				break
			}
		}
	}
	return strings.Join(out, ", ")
}

// technicianNames are the org's technicians' names by id, as a form's
// technician_id spells it.
func technicianNames(list []field.Technician) map[string]string {
	out := make(map[string]string, len(list))
	for _, t := range list {
		out[strconv.FormatInt(t.ID, 10)] = t.Name
	}
	return out
}

// jobChanges is what differs between the stored job (theirs, as its form
// shows it) and the form sent (yours).
func jobChanges(l *i18n.Localizer, names map[string]string, theirs, yours views.JobForm) []views.StaleChange {
	c := changes{l: l}
	c.add("customer", "jobform.customer", theirs.Customer, yours.Customer)
	c.add("address", "jobform.address", theirs.Address, yours.Address)
	c.add("customer_phone", "jobform.customer_phone", theirs.CustomerPhone, yours.CustomerPhone)
	c.add("window", "jobform.window", formWindow(theirs), formWindow(yours))
	tech := func(id string) string {
		if id == "" {
			return l.T("jobform.unassigned")
		}
		if name, ok := names[id]; ok {
			return name
		}
		return id
	}
	c.add("technician_id", "jobform.technician", tech(theirs.TechnicianID), tech(yours.TechnicianID))
	c.add("status", "jobform.status", statusName(l, theirs.Status), statusName(l, yours.Status))
	c.add("job_type", "jobform.type", theirs.JobType, yours.JobType)
	c.add("emergency", "jobform.emergency", yesNo(l, theirs.Emergency), yesNo(l, yours.Emergency))
	c.add("notes", "jobform.notes", theirs.Notes, yours.Notes)
	c.add("external_ref", "jobform.ref", theirs.Ref, yours.Ref)
	return c.out
}

// formWindow is a job form's window as typed: "2026-11-26 09:00–11:00",
// with the end's date when it is another day.
func formWindow(f views.JobForm) string {
	end := f.To
	if f.ToDate != "" && f.ToDate != f.Date {
		end = f.ToDate + " " + f.To
	}
	return f.Date + " " + f.From + "–" + end
}

// technicianChanges is what differs between the stored technician
// (theirs) and the form sent (yours).
func technicianChanges(l *i18n.Localizer, theirs, yours field.TechnicianInput) []views.StaleChange {
	theirs.Normalize()
	yours.Normalize()
	c := changes{l: l}
	c.add("name", "technicians.name", theirs.Name, yours.Name)
	c.add("email", "technicians.email", theirs.Email, yours.Email)
	c.add("phone", "technicians.phone", theirs.Phone, yours.Phone)
	lang := func(tag string) string {
		if tag == "" {
			return l.T("technicians.language_org")
		}
		for _, o := range languageOptions() {
			if o.Value == tag {
				return o.Label
			}
		}
		return tag
	}
	c.add("language", "technicians.language", lang(theirs.Language), lang(yours.Language))
	c.add("external_ref", "technicians.ref", theirs.ExternalRef, yours.ExternalRef)
	c.add("active", "technicians.active_box", yesNo(l, theirs.Active), yesNo(l, yours.Active))
	return c.out
}
