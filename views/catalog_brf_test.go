package views_test

import (
	"github.com/a-h/templ"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
	"fieldbrief/views/briefview"
)

// The pages helper BRF converted (docs/i18n.md): the briefing page and its
// history, the members page, the invite, password and link pages, and the
// API tokens page. Their entries in coveredPages call these.

// brfFixtures are these pages' user data and what the web formats with
// internal/locale (dates, times, windows, zone names, numbers): every count
// is 1234, written "1,234" by the pseudo-locale's en-US formats.
var brfFixtures = []string{
	"Thursday, November 26, 2026", "Thu, Nov 26, 2026, 6:30\u202fAM CST", "Wed, Nov 25", "Fri, Nov 27",
	"tzdata 2025b (embedded)", "tzdata 2024a (embedded)", "worker-7", "dial tcp: connection refused",
	"8:00\u2009–\u200910:00\u202fAM CST", "Initech HQ", "Initech", "Boiler repair", "Gate 4411",
	"dispatch@acme.test", "550", "mailbox unavailable", "1.2 s",
	"Nov 26, 2026, 12:30 UTC", "Dispatch sync", "fb_live_0123456789abcdef",
}

// Before the others: "Thu, Nov 26" is one of them, and a longer fixture
// must go first.
func init() { fixtures = append(append([]string(nil), brfFixtures...), fixtures...) }

// briefingPage is one briefing with everything shown: a failed run with
// its error (admin), the content with every section and "and N more",
// deliveries with attempts and a re-send, day links, revisions and runs.
func briefingPage(admin, content bool) func(p views.Page) templ.Component {
	return func(p views.Page) templ.Component {
		pl := i18n.Pseudo()
		p.User = &views.User{Email: "ada@acme.test"}
		p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", Admin: admin}}
		p.Org = &p.Orgs[0]
		at := "Thu, Nov 26, 2026, 6:30\u202fAM CST"
		bp := views.BriefingPage{Page: p, L: pl, Slug: "acme", Date: "2026-11-26", DateLabel: "Thursday, November 26, 2026",
			YesterdayLabel: "Wed, Nov 25", Timezone: "America/Chicago", ZoneName: "Central Time (Chicago)",
			Status: "failed", Trigger: "manual", FiredAt: at, GeneratedAt: at, Admin: admin,
			ZoneRules: "tzdata 2025b (embedded)", ContentZoneRules: "tzdata 2024a (embedded)",
			LastError: "dial tcp: connection refused", Notice: pl.T("briefings.notice.generating"),
			Prev: views.DayLink{Date: "2026-11-25", Label: "Wed, Nov 25", Why: pl.T("briefings.day.missed"), Nearest: "2026-11-20",
				NearestText: "Wed, Nov 25", NearestLink: "/orgs/acme/briefings/2026-11-20"},
			Next: views.DayLink{Date: "2026-11-27", Label: "Fri, Nov 27", Why: pl.T("briefings.day.not_yet"), Nearest: "2026-11-27",
				NearestText: "Fri, Nov 27", NearestLink: "/orgs/acme/briefings/2026-11-27"},
			Revisions: []views.BriefingRevision{{Number: 1234, Trigger: "manual", Generated: at, ZoneRules: "tzdata 2025b (embedded)"},
				{Number: 1234, Trigger: "schedule", Generated: at}},
			Runs: []views.BriefingRun{{Revision: 1234, Attempt: 1234, Trigger: "schedule", Outcome: "retry", Started: at, Finished: at,
				Worker: "worker-7", Error: "dial tcp: connection refused"}, {Revision: 1234, Attempt: 1234, Trigger: "manual", Outcome: "skipped", Started: at}},
			Deliveries: []views.DeliveryRow{
				{ID: 1, Channel: "email", Audience: "dispatcher", Recipient: "dispatch@acme.test", State: "failed", Attempts: 1234, Revision: 1234,
					Code: "550", Detail: "mailbox unavailable", ResendURL: "/orgs/acme/briefings/2026-11-26/deliveries/1/resend",
					History: []views.DeliveryAttemptRow{{At: at, Outcome: "failed", Code: "550", Detail: "mailbox unavailable", Duration: "1.2 s", Worker: "worker-7"},
						{At: at, Outcome: "retry", Duration: "1.2 s"}, {At: at, Outcome: "sent", Duration: "1.2 s"}}},
				{ID: 2, Channel: "webhook", Audience: "webhook", Recipient: "dispatch@acme.test", State: "pending", Attempts: 1234, Revision: 1234},
				{ID: 3, Channel: "email", Audience: "technician", Recipient: "dispatch@acme.test", State: "pending", Revision: 1234},
				{ID: 4, Channel: "email", Audience: "test", Recipient: "dispatch@acme.test", State: "sent", Revision: 1234},
				{ID: 5, Channel: "email", Audience: "technician", Recipient: "dispatch@acme.test", State: "skipped", Revision: 1234},
			},
			TechnicianLinks: []views.TechnicianLinkRow{{Technician: "Ana Lima", Sent: at, ValidUntil: at, State: "valid"},
				{Technician: "Ana Lima", Sent: at, ValidUntil: at, State: "expired"}, {Technician: "Ana Lima", Sent: at, ValidUntil: at, State: "revoked"}},
		}
		if content {
			bp.Status, bp.Trigger, bp.ContentZoneRules = "ready", "schedule", ""
			job := func(code string, emergency bool, tech string) briefview.Job {
				return briefview.Job{ID: 1, Window: "8:00\u2009–\u200910:00\u202fAM", Zone: "CST", Customer: "Initech", Address: "Initech HQ",
					MapURL: "https://maps.test/", Phone: "555-0100", Type: "Boiler repair", Notes: "Gate 4411", Technician: tech,
					Status: code, StatusCode: code, Emergency: emergency}
			}
			jobs := []briefview.Job{job("scheduled", true, "Ana Lima"), job("in_progress", false, ""), job("on_hold", false, "Ana Lima"),
				job("done", false, ""), job("cancelled", false, "")}
			n := 1234
			bp.Content = &briefview.Content{Date: "2026-11-26", Timezone: "America/Chicago", Zone: "CST", Shortened: true,
				Summary: briefview.Summary{Jobs: n, Cancelled: n, TechniciansOut: n, Unassigned: n, Overdue: n, Emergencies: n, OnHold: n, Technicians: n},
				ActionItems: briefview.ActionItems{Emergencies: jobs, Overdue: jobs[:1], MoreOverdue: n, OverdueURL: "/orgs/acme/board",
					MoreUnassigned: n},
				Routes: []briefview.Route{{Technician: "Ana Lima", Phone: "555-0100", Jobs: jobs, More: n, MoreURL: "/orgs/acme/jobs"},
					{Technician: "Ada Lovelace"}},
				Cancelled: jobs[4:], MoreCancelled: n, CancelledURL: "/orgs/acme/jobs",
				Yesterday: briefview.Yesterday{Date: "2026-11-25", Scheduled: n, Completed: n}}
		}
		p.Title = pl.Tf("mail.title", map[string]any{"Date": "Thu, Nov 26"})
		bp.Page = p
		return views.Briefing(bp)
	}
}

// briefingPageEmpty is a member's view of a briefing being generated:
// nothing sent, no run yet, no neighbours with briefings.
func briefingPageEmpty(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p.User = &views.User{Email: "ada@acme.test"}
	p.Title = pl.Tf("mail.title", map[string]any{"Date": "Thu, Nov 26"})
	return views.Briefing(views.BriefingPage{Page: p, L: pl, Slug: "acme", Date: "2026-11-26", DateLabel: "Thursday, November 26, 2026",
		YesterdayLabel: "Wed, Nov 25", Timezone: "America/Chicago", ZoneName: "Central Time (Chicago)", Status: "pending",
		Trigger: "schedule", FiredAt: "Thu, Nov 26, 2026, 6:30\u202fAM CST",
		Prev: views.DayLink{Date: "2026-11-25", Label: "Wed, Nov 25", Link: "/orgs/acme/briefings/2026-11-25"}})
}
