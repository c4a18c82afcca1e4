package mail

import (
	"fmt"
	"strings"

	"fieldbrief/internal/i18n"
)

// UpdateEmail is a technician's "Changes to your day": what changed on
// their day since their briefing (or their last update), every string
// already formatted in the org's zone by the caller (delivery).
type UpdateEmail struct {
	L          *i18n.Localizer // the technician's language and formats; nil is English
	OrgName    string
	DateLabel  string // "Thu, Nov 26" (en-US), "Do., 26. Nov." (de-DE)
	Timezone   string // "America/Chicago"
	ZoneName   string // "Central Time (Chicago)" in the reader's language; "" for none
	Technician string // their name
	DayURL     string // their day link; "" when none could be made
	Items      []UpdateItem
	More       int // changed jobs not listed (the list is bounded)
}

// Update item kinds, as UpdateItem.Kind holds them.
const (
	UpdateAdded     = "added"
	UpdateRemoved   = "removed"
	UpdateChanged   = "changed"
	UpdateCancelled = "cancelled"
)

// UpdateItem is one job that changed on the technician's day.
type UpdateItem struct {
	Kind      string // UpdateAdded, UpdateRemoved, UpdateChanged or UpdateCancelled
	Window    string // "09:00–11:00 CST", as the day has it
	Customer  string
	Address   string
	Emergency bool
	// An added job's details, as the day sheet shows them; "" for none
	// and for the other kinds (their Lines say what changed).
	Phone, JobType, Notes string
	Lines                 []string // "Arrival: 08:00–10:00 CST → 10:00–12:00 CST", "Reassigned to Ben"
}

// Headline names the item's kind in words.
func (it UpdateItem) Headline(l *i18n.Localizer) string {
	switch it.Kind {
	case UpdateAdded:
		return l.T("mail.update.added")
	case UpdateRemoved:
		return l.T("mail.update.removed")
	case UpdateCancelled:
		return l.T("mail.update.cancelled")
	}
	return l.T("mail.update.changed")
}

// UpdateSubject is an update's subject: "Changes to your day, Thu, Nov 26".
func UpdateSubject(l *i18n.Localizer, dateLabel string) string {
	return l.Tf("mail.update.subject", map[string]any{"Date": dateLabel})
}

// summary is the update in one line, also the inbox preview.
func (e UpdateEmail) summary() string {
	return countOf(e.L, "mail.update.summary", len(e.Items)+e.More)
}

// moreLine is the jobs the list leaves out.
func (e UpdateEmail) moreLine() string { return countOf(e.L, "mail.update.more", e.More) }

// footer is why the technician gets the email.
func (e UpdateEmail) footer() string {
	return e.L.Tf("mail.update.footer", map[string]any{"Org": e.OrgName})
}

// UpdateText renders the plain-text part, the same content as the HTML.
func UpdateText(e UpdateEmail) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("%s", e.OrgName)
	l := e.L
	line("%s", UpdateSubject(l, e.DateLabel))
	line("%s", textTimesIn(l, e.ZoneName, e.Timezone))
	line("")
	line("%s", e.summary())
	line("")
	for _, it := range e.Items {
		line("%s", strings.ToUpper(it.Headline(l)))
		head := "- " + it.Window + "  " + it.Customer
		if it.Emergency {
			head += "  [" + l.T("mail.emergency") + "]"
		}
		line("%s", head)
		if it.Address != "" {
			line("  %s", it.Address)
		}
		for _, v := range []string{it.Phone, it.JobType, it.Notes} {
			if v != "" {
				line("  %s", indent(v))
			}
		}
		for _, l := range it.Lines {
			line("  %s", indent(l))
		}
		line("")
	}
	if e.More > 0 {
		line("%s", e.moreLine())
		line("")
	}
	if e.DayURL != "" {
		line("%s", l.Tf("mail.update.open_day_text", map[string]any{"URL": e.DayURL}))
		line("")
	}
	line("%s", e.footer())
	line("%s", textUnsubscribe(l, true, "", e.DayURL))
	return b.String()
}

// indent keeps a multi-line value (notes) under its item.
func indent(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\n    ")
}
