package web

import (
	"github.com/labstack/echo/v4"

	"fieldbrief/internal/i18n"
)

// Where the consoles' handlers send people back to, and what they tell them there.

func settingsURL(slug string) string  { return "/orgs/" + slug + "/settings/fieldforce" }
func briefingsURL(slug string) string { return "/orgs/" + slug + "/briefings" }

// returnURL is where a settings change sends the admin back to: the
// briefings page when it was made there, the settings page otherwise. Only
// these two are possible, so the field cannot redirect off-site.
func returnURL(slug, next string) string {
	if next == "briefings" {
		return briefingsURL(slug)
	}
	return settingsURL(slug)
}

// notices are the messages a redirect can ask the next page to show; a
// code, not the text, travels in the URL so links cannot put words on the page.
var notices = map[string]string{
	"saved":        "Saved.",
	"locale-saved": "Locale saved.",
	"paused":       "Briefings paused. No briefing runs until you resume.",
	"resumed":      "Briefings resumed.",
	"generating":   "Generating today's briefing. Reload in a moment to see it ready.",
	// A press of "generate now" while one is on its way shows it.
	"already-generating": "Today's briefing is being generated already: it shows here when it is ready. Reload in a moment.",
	"resending":          "Sending it again. Reload in a moment to see the outcome.",
	// Field data
	"technician-added":       "Technician added.",
	"technician-deactivated": "Technician deactivated: off the day board and out of new briefings. Their jobs are kept.",
	"technician-activated":   "Technician active again.",
	"day-links-revoked":      "Day links revoked: every link sent to this technician so far no longer opens. Links in their next emails will.",
	"day-sheets-resumed":     "Day sheets resumed: their next day sheet is emailed to them.",
	"job-added":              "Job added.",
	"job-deleted":            "Job deleted.",
	"assigned":               "Job assigned.",
	"status-changed":         "Status changed.",
	"moved":                  "Job moved.",
	"move-undone":            "Move undone.",
	"ambiguous":              "Saved. A time you entered happens twice that night, when the clocks go back: the first occurrence was used (see below).",
}

// noticeIDs are the catalog ids of the notices the pages converted to the
// catalog show (docs/i18n.md); the others still say notices' English.
var noticeIDs = map[string]string{
	"saved":                  "fieldnotice.saved",
	"paused":                 "briefings.notice.paused",
	"resumed":                "briefings.notice.resumed",
	"generating":             "briefings.notice.generating",
	"already-generating":     "briefings.notice.already_generating",
	"resending":              "briefings.notice.resending",
	"technician-added":       "fieldnotice.technician_added",
	"technician-deactivated": "fieldnotice.technician_deactivated",
	"technician-activated":   "fieldnotice.technician_activated",
	"day-links-revoked":      "fieldnotice.day_links_revoked",
	"day-sheets-resumed":     "fieldnotice.day_sheets_resumed",
	"job-added":              "fieldnotice.job_added",
	"job-deleted":            "fieldnotice.job_deleted",
	"assigned":               "fieldnotice.assigned",
	"status-changed":         "fieldnotice.status_changed",
	"moved":                  "fieldnotice.moved",
	"move-undone":            "fieldnotice.move_undone",
	"ambiguous":              "fieldnotice.ambiguous",
	"name-saved":             "notice.name_saved",
	"password-changed":       "notice.password_changed",
	"password-reset":         "notice.password_reset",
	"language-saved":         "notice.language_saved",
	// SET: the settings page
	"locale-saved": "bsettings.notice.locale_saved",
}

// localNotice is a notice code's message in l's language, or in the
// English of notices and accountNotices; "" for a code that is none.
func localNotice(l *i18n.Localizer, code string) string {
	if id, ok := noticeIDs[code]; ok {
		return l.T(id)
	}
	if id, ok := accountNoticeIDs[code]; ok { // the members page's (members.go)
		return l.T(id)
	}
	if n, ok := notices[code]; ok {
		return n
	}
	return accountNotices[code]
}

// pageNotice is the notice the URL asks the page to show, in the reader's
// language.
func pageNotice(c echo.Context) string {
	return localNotice(localizer(c), c.QueryParam("notice"))
}
