package views

import (
	"strings"

	"fieldbrief/internal/i18n"
	"fieldbrief/views/briefview"
)

// The briefing page's words (docs/i18n.md): the content says what the
// briefing email says, with the email's own messages (mail.*) for its
// headings, sections, statuses and counts, so the two never disagree.

// loc is the page's reader; a page built without one (tests of the
// content's order) is English.
func (p BriefingPage) loc() *i18n.Localizer {
	if p.L == nil {
		return i18n.English
	}
	return p.L
}

// number is n as the reader's locale groups it: "1,234", "1.234".
func (p BriefingPage) number(n int) string { return p.loc().Locale().Number(n) }

// headingCount is a list's heading with how many jobs it holds, as the
// email writes it: "Overdue (3)".
func (p BriefingPage) headingCount(title string, n int) string {
	return p.Tf("mail.heading_count", map[string]any{"Title": title, "Count": p.number(n)})
}

// statusWords is the briefing's status in words: the briefings list's.
func (p BriefingPage) statusWords() string {
	switch p.Status {
	case "ready", "pending", "failed":
		return p.T("briefings.day." + p.Status)
	}
	return label(p.Status)
}

// triggerWords says who asked for a revision or an attempt.
func (p BriefingPage) triggerWords(trigger string) string {
	if trigger == "manual" {
		return p.T("briefing.trigger.manual")
	}
	return p.T("briefing.trigger.schedule")
}

// runOutcome says a generation attempt's outcome in words.
func (p BriefingPage) runOutcome(outcome string) string {
	switch outcome {
	case "completed", "retry", "failed", "skipped":
		return p.T("briefing.run." + outcome)
	}
	return label(outcome)
}

// sectionTitle is an action item section's heading (briefview.SectionTitle).
func (p BriefingPage) sectionTitle(s briefview.Section) string {
	return briefview.SectionTitle(p.loc(), s)
}

// sectionEmpty is what an empty action item section says.
func (p BriefingPage) sectionEmpty(s briefview.Section) string {
	switch s.ID {
	case "emergencies", "overdue", "unassigned", "on-hold":
		return p.T("briefing.empty." + strings.ReplaceAll(s.ID, "-", "_"))
	}
	return s.Empty
}

// jobStatus is a job's status in the reader's words.
func (p BriefingPage) jobStatus(j briefview.Job) string {
	if j.StatusCode == "" {
		return j.Status
	}
	return briefview.JobStatus(p.loc(), j.StatusCode)
}

// zoneWithAbbrev is the zone as people know it with the abbreviations in
// force that day: "Eastern Time (New York) (EST)".
func (p BriefingPage) zoneWithAbbrev(abbrev string) string {
	name := p.ZoneName
	if name == "" {
		name = p.Timezone
	}
	if abbrev == "" {
		return name
	}
	return name + " (" + abbrev + ")"
}

// label is the date as the reader writes it.
func (d DayLink) label() string {
	if d.Label != "" {
		return d.Label
	}
	return d.Date
}

func (d DayLink) nearestLabel() string {
	if d.NearestText != "" {
		return d.NearestText
	}
	return d.Nearest
}

// deliveryState says a delivery's state in words: a pending delivery that
// was tried already is being retried.
func (p BriefingPage) deliveryState(state string, attempts int) string {
	switch {
	case state == "sent", state == "failed", state == "skipped":
		return p.T("briefing.delivery." + state)
	case attempts > 0:
		return p.T("briefing.delivery.retrying")
	}
	return p.T("briefing.delivery.waiting")
}

// attemptOutcome says a delivery attempt's outcome in words.
func (p BriefingPage) attemptOutcome(outcome string) string {
	switch outcome {
	case "sent", "retry", "failed":
		return p.T("briefing.attempt." + outcome)
	}
	return label(outcome)
}

// audience says who a delivery was for.
func (p BriefingPage) audience(audience string) string {
	switch audience {
	case "dispatcher", "technician", "webhook", "test":
		return p.T("briefing.audience." + audience)
	}
	return audienceLabel(audience)
}

// channel is a delivery's channel in words.
func (p BriefingPage) channel(channel string) string {
	switch channel {
	case "email", "webhook":
		return p.T("briefing.channel." + channel)
	}
	return channel
}

// linkState is a day link's state in words.
func (p BriefingPage) linkState(state string) string {
	switch state {
	case "valid", "expired", "revoked":
		return p.T("briefing.day_link." + state)
	}
	return state
}

// countLabel is the plural message id for n without its number: the
// summary strip shows the number large, apart. The catalog's plurals all
// show their count (the catalog tests), so the number is taken out of the
// sentence rather than left out of the message: "2 jobs today" → "jobs
// today", in any language's word order.
func (p BriefingPage) countLabel(id string, n int) string {
	num := p.number(n)
	return strings.TrimSpace(strings.Replace(p.Tn(id, n, map[string]any{"Count": num}), num, "", 1))
}
