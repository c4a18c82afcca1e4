package views_test

import (
	"github.com/a-h/templ"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// FRM: the pages answering a save over a newer version (409,
// docs/versions.md, "Forms"), in coveredPages: the notice, what differs
// (labels and values from the catalog, or the fixtures' user data) and the
// reload link.

func stalePages() map[string]func(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	signedIn := func(p views.Page) views.Page {
		p.User = &views.User{Email: "ada@acme.test"}
		p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", Admin: true}}
		p.Org = &p.Orgs[0]
		return p
	}
	change := func(field, label, theirs, yours string) views.StaleChange {
		return views.StaleChange{Field: field, Label: pl.T(label), Theirs: theirs, Yours: yours}
	}
	return map[string]func(p views.Page) templ.Component{
		"settings (409: changed by someone else)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("bsettings.page_title")
			p.Limits = views.Limits{Recipients: 50, SendWithin: "3h", MinSendWithin: "15m", MaxSendWithin: "24h", ZoneQuery: 64, WebhookURLLen: 2048}
			return views.Settings(views.SettingsPage{Page: p, Base: "/orgs/acme/settings/fieldforce", Version: 3,
				Form: views.ScheduleForm{Timezone: "America/Chicago", LocalTime: "6:30\u202fAM", Days: []string{"mon"}, Enabled: "true",
					DayOptions: []views.DayOption{{Value: "mon", Label: "Mon"}}, TimeExample: "6:30\u202fAM", TimeExamples: "6:30\u202fAM"},
				Secret:  views.SecretBlock{Base: "/b"},
				Tests:   views.TestSends{Base: "/b", Email: "ada@acme.test"},
				Preview: views.Preview{Zone: "Central Time (Chicago)", ZoneID: "America/Chicago", Next: "Thu, Nov 26"},
				Locale:  views.LocaleForm{Action: "/l", Value: "en-US"},
				Stale: &views.StaleNotice{Reload: "/orgs/acme/settings/fieldforce", Changes: []views.StaleChange{
					change("schedule_local_time", "bsettings.local_time", "8:04\u202fAM", "6:30\u202fAM"),
					change("days", "bsettings.days", "Mon, Tue", "Mon"),
					change("enabled", "stale.briefings", pl.T("briefings.badge.running"), pl.T("briefings.badge.paused")),
					change("delivery_email_technicians", "bsettings.delivery.technicians", pl.T("stale.yes"), pl.T("stale.no")),
					change("delivery_send_within", "stale.send_within", "3h", ""),
				}}})
		},
		"job (409: changed by someone else)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = "Smith & Sons"
			job := fieldJobs(pl)[1]
			form := jobForm(pl)
			form.Errors, form.Version = nil, 4
			return views.Job(views.JobPage{Page: p, Base: "/orgs/acme", CanEditField: true, Job: job, JobDate: "Wed, Mar 4", Form: form,
				Stale: &views.StaleNotice{Reload: "/orgs/acme/jobs/2", Changes: []views.StaleChange{
					change("status", "jobform.status", pl.T("jobstatus.done"), pl.T("jobstatus.scheduled")),
					change("technician_id", "jobform.technician", "Ana Lima", pl.T("jobform.unassigned")),
					change("notes", "jobform.notes", "", "Back door"),
				}}})
		},
		"technician (409: nothing differs)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = "Ana Lima"
			form := techForm(pl)
			form.Errors, form.Version = nil, 2
			return views.Technician(views.TechnicianPage{Page: p, Base: "/orgs/acme", CanEditField: true, Tech: fieldTechs()[0], Form: form,
				Stale: &views.StaleNotice{Reload: "/orgs/acme/technicians/1"}})
		},
		"members (409: role changed by someone else)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("nav.members")
			return views.Members(views.MembersPage{Page: p, Base: "/orgs/acme", CanManage: true, SelfID: 1,
				Members: []views.MemberRow{{UserID: 1, Email: "ada@acme.test", Role: "admin", Version: 1},
					{UserID: 2, Email: "ana@acme.test", Role: "admin", Chosen: "member", Version: 3}},
				Stale: &views.StaleNotice{Reload: "/orgs/acme/members", Changes: []views.StaleChange{{Field: "role",
					Label: pl.Tf("members.role_of", map[string]any{"Email": "ana@acme.test"}), Theirs: pl.T("members.role_admin"), Yours: pl.T("members.role_member")}}}})
		},
		"board fragment (409: quick change over a newer version)": func(p views.Page) templ.Component {
			b := fieldBoard(pl, true)
			b.Problem, b.Notice = "", ""
			b.Stale = &views.StaleNotice{Board: true, Reload: "/orgs/acme/board?date=2026-03-04", Changes: []views.StaleChange{
				change("technician_id", "jobform.technician", "Ana Lima", pl.T("board.unassigned"))}}
			return views.BoardView(b)
		},
	}
}
