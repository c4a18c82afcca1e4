package views_test

import (
	"time"

	"github.com/a-h/templ"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
	"fieldbrief/views/briefview"
)

// The pages converted (docs/i18n.md): the briefing page and its
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
	"Nov 26, 2026, 12:30 UTC", "Dispatch sync", "fb_live_0123456789abcdef", "Authorization: Bearer fb_…",
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
			ZoneRulesShown:        pl.Tf("briefing.rules.embedded", map[string]any{"Version": "2025b"}),
			ContentZoneRulesShown: pl.Tf("briefing.rules.host", map[string]any{"Version": "2024a"}),
			LastError:             "dial tcp: connection refused", Notice: pl.T("briefings.notice.generating"),
			Prev: views.DayLink{Date: "2026-11-25", Label: "Wed, Nov 25", Why: pl.T("briefings.day.missed"), Nearest: "2026-11-20",
				NearestText: "Wed, Nov 25", NearestLink: "/orgs/acme/briefings/2026-11-20"},
			Next: views.DayLink{Date: "2026-11-27", Label: "Fri, Nov 27", Why: pl.T("briefings.day.not_yet"), Nearest: "2026-11-27",
				NearestText: "Fri, Nov 27", NearestLink: "/orgs/acme/briefings/2026-11-27"},
			Revisions: []views.BriefingRevision{{Number: 1234, Trigger: "manual", Generated: at, ZoneRules: "tzdata 2025b (embedded)",
				ZoneRulesShown: pl.Tf("briefing.rules.embedded", map[string]any{"Version": "2025b"})},
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

// signedInBRF is a signed-in admin of acme.
func signedInBRF(p views.Page) views.Page {
	p.User = &views.User{Email: "ada@acme.test"}
	p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", Admin: true}}
	p.Org = &p.Orgs[0]
	return p
}

// membersPage is the members page: an admin's with a pending and an
// expired invite, a refusal and the invite form's errors, or a member's.
func membersPage(admin bool) func(p views.Page) templ.Component {
	return func(p views.Page) templ.Component {
		pl := i18n.Pseudo()
		p = signedInBRF(p)
		p.Title = pl.T("nav.members")
		at := time.Date(2026, 11, 26, 12, 30, 0, 0, time.UTC)
		mp := views.MembersPage{Page: p, Base: "/orgs/acme", CanManage: admin, SelfID: 1,
			Members: []views.MemberRow{{UserID: 1, Name: "Ada Lovelace", Email: "ada@acme.test", Role: "admin", LastSignIn: at, LastSignInText: "Nov 26, 2026, 12:30 UTC"},
				{UserID: 2, Email: "ana@acme.test", Role: "member"}}}
		if admin {
			mp.Notice = pl.T("members.notice.invited")
			mp.Error = pl.Tn("members.err.invites_waiting", 100, map[string]any{"Count": "1,234"})
			mp.Invite = views.InviteForm{Email: "ana@acme.test", Role: "admin",
				EmailError: pl.Tf("members.err.already_member", map[string]any{"Email": "ana@acme.test"}), RoleError: pl.T("members.role_choose")}
			mp.Invites = []views.InviteRow{{ID: 1, Email: "ana@acme.test", Role: "member", InvitedBy: "ada@acme.test", SentAt: at, ExpiresAt: at,
				SentText: "Nov 26, 2026, 12:30 UTC", ExpiresText: "Nov 26, 2026, 12:30 UTC"},
				{ID: 2, Email: "ana@acme.test", Role: "admin", InvitedBy: "ada@acme.test", SentAt: at, SentText: "Nov 26, 2026, 12:30 UTC", Expired: true}}
		}
		return views.Members(mp)
	}
}

// invitePage is an invite link's page in each of its three forms.
func invitePage(form string) func(p views.Page) templ.Component {
	return func(p views.Page) templ.Component {
		pl := i18n.Pseudo()
		p.Title = pl.Tf("invite.title", map[string]any{"Org": "Acme Field Services"})
		ip := views.InvitePage{Page: p, Action: "/invites/tok", OrgName: "Acme Field Services", Email: "ana@acme.test", Role: "admin"}
		switch form {
		case "signed in":
			p = signedInBRF(p)
			ip.Page, ip.SignedInAs = p, "ada@acme.test"
			ip.Error = pl.Tf("members.err.invite_other_account", map[string]any{"Email": "ana@acme.test", "Current": "ada@acme.test"})
		case "account":
			ip.HasAccount, ip.Role = true, "member"
			ip.PassError = pl.Tf("invite.wrong_password", map[string]any{"Email": "ana@acme.test"})
			ip.Error = pl.Tn("signin.throttled_account", 30, nil)
		default:
			ip.Name = "Ana Lima"
			ip.NameError = pl.Tf("members.err.name_required", map[string]any{"Max": "1,234"})
			ip.PassError = pl.Tf("invite.password_choose", map[string]any{"Max": "1,234"})
		}
		return views.InviteAccept(ip)
	}
}

// linkProblemPage is a link that does not work.
func linkProblemPage(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p.Title = pl.T("link.invite_heading")
	return views.LinkProblem(views.LinkProblemPage{Page: p, Heading: pl.T("link.invite_heading"), Message: pl.T("link.invite_invalid"),
		Next: "/", NextText: pl.T("link.start")})
}

// forgotPage is the reset request: its form with errors, or its answer.
func forgotPage(sent bool) func(p views.Page) templ.Component {
	return func(p views.Page) templ.Component {
		pl := i18n.Pseudo()
		p.Title = pl.T("forgot.title")
		fp := views.ForgotPage{Page: p, Email: "ana@acme.test", Sent: sent}
		if !sent {
			fp.EmailError = pl.T("signin.email_missing")
			fp.Error = pl.Tn("forgot.throttled", 30, map[string]any{"Count": "1,234"})
		}
		return views.Forgot(fp)
	}
}

func resetPage(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p.Title = pl.T("reset.title")
	return views.Reset(views.ResetPage{Page: p, Action: "/password/reset/tok", Email: "ana@acme.test",
		PassError: pl.Tf("reset.password_choose", map[string]any{"Max": "1,234"})})
}

// apiTokensPage is the API tokens page: a token just created, a live, a
// used and a revoked one, a notice and a name error.
func apiTokensPage(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p = signedInBRF(p)
	p.Title = pl.T("tokens.title")
	at := time.Date(2026, 11, 26, 12, 30, 0, 0, time.UTC)
	stamp := "Nov 26, 2026, 12:30 UTC"
	return views.APITokens(views.APITokensPage{Page: p, Block: views.APITokensBlock{I18n: pl, Base: "/orgs/acme/settings/api-tokens", CSRF: "tok",
		Name: "Dispatch sync", Error: pl.Tf("tokens.err.name_taken", map[string]any{"Name": "Dispatch sync"}),
		Created: "fb_live_0123456789abcdef", Notice: pl.Tf("tokens.revoked_notice", map[string]any{"Name": "Dispatch sync"}), NameLen: 80,
		Tokens: []views.APITokenRow{
			{ID: 1, Name: "Dispatch sync", Hint: "fb_live_0123456789abcdef", CreatedBy: "ada@acme.test", CreatedAt: at, CreatedText: stamp},
			{ID: 2, Name: "Dispatch sync", Hint: "fb_live_0123456789abcdef", CreatedBy: "ada@acme.test", CreatedAt: at, CreatedText: stamp, LastUsedAt: at, LastUsedText: stamp},
			{ID: 3, Name: "Dispatch sync", Hint: "fb_live_0123456789abcdef", CreatedBy: "ada@acme.test", CreatedAt: at, CreatedText: stamp, RevokedAt: at, RevokedText: stamp,
				RevokedWhy: pl.T("tokens.revoked_creator_not_admin")},
			{ID: 4, Name: "Dispatch sync", Hint: "fb_live_0123456789abcdef", CreatedBy: "system", OrgOwned: true, CreatedAt: at, CreatedText: stamp},
		}}})
}

// apiTokensEmpty is the block alone (htmx), no token yet.
func apiTokensEmpty(_ views.Page) templ.Component {
	return views.APITokensBlockView(views.APITokensBlock{I18n: i18n.Pseudo(), Base: "/orgs/acme/settings/api-tokens", CSRF: "tok", NameLen: 80})
}
