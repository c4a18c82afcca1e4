package mail

import (
	"fmt"
	"strings"
)

// UpdateEmail is a technician's "Changes to your day": what changed on
// their day since their briefing (or their last update), every string
// already formatted in the org's zone by the caller (dispatch).
type UpdateEmail struct {
	OrgName        string
	DateLabel      string // "Thu 26 Nov"
	Timezone       string // "America/Chicago"
	Technician     string // their name
	DayURL         string // their day link; "" when none could be made
	UnsubscribeURL string
	Items          []UpdateItem
	More           int // changed jobs not listed (the list is bounded)
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
	Lines     []string // "Arrival: 08:00–10:00 CST → 10:00–12:00 CST", "Reassigned to Ben"
}

// Headline names the item's kind in words.
func (it UpdateItem) Headline() string {
	switch it.Kind {
	case UpdateAdded:
		return "Added to your day"
	case UpdateRemoved:
		return "No longer on your day"
	case UpdateCancelled:
		return "Cancelled"
	}
	return "Changed"
}

// UpdateSubject is an update's subject: "Changes to your day, Thu 26 Nov".
func UpdateSubject(dateLabel string) string { return "Changes to your day, " + dateLabel }

// summary is the update in one line, also the inbox preview.
func (e UpdateEmail) summary() string {
	n := len(e.Items) + e.More
	if n == 1 {
		return "1 job changed on your day."
	}
	return fmt.Sprintf("%d jobs changed on your day.", n)
}

// UpdateText renders the plain-text part, the same content as the HTML.
func UpdateText(e UpdateEmail) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("%s", e.OrgName)
	line("%s", UpdateSubject(e.DateLabel))
	line("Times in %s", e.Timezone)
	line("")
	line("%s", e.summary())
	line("")
	for _, it := range e.Items {
		line("%s", strings.ToUpper(it.Headline()))
		head := "- " + it.Window + "  " + it.Customer
		if it.Emergency {
			head += "  [EMERGENCY]"
		}
		line("%s", head)
		if it.Address != "" {
			line("  %s", it.Address)
		}
		for _, l := range it.Lines {
			line("  %s", indent(l))
		}
		line("")
	}
	if e.More > 0 {
		line("And %d more: open your day to see them all.", e.More)
		line("")
	}
	if e.DayURL != "" {
		line("Open your day: %s", e.DayURL)
		line("")
	}
	line("You receive this because %s sends you your day's briefing and its changes.", e.OrgName)
	line("Unsubscribe: %s", e.UnsubscribeURL)
	return b.String()
}

// indent keeps a multi-line value (notes) under its item.
func indent(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\n    ")
}
