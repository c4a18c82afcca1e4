package views_test

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/a-h/templ"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// "No text outside the catalog" (docs/i18n.md): each page converted to the
// catalog is rendered with the pseudo-locale, whose every message is
// wrapped in ⟦…⟧, and every visible text node and every attribute people
// read (aria-label, title, placeholder, alt) must be inside markers, apart
// from the fixtures' user data, which the page is given and the test
// removes first. A page converted later joins coveredPages.

// fixtures are the user data the pages below show: names, addresses and
// the languages' and locales' own names (autonyms are not translated).
var fixtures = []string{
	"ada@acme.test", "Ada Lovelace", "Acme Field Services", "Globex Repairs", "req-7f3a",
	// CLDR's formats (internal/locale), not the catalog's: dates and zone ids.
	"Thu, Nov 26", "Wed, Nov 25", "America/Chicago", "Central Time (Chicago)", "UTC−06:00", "8:04\u202fAM",
	// The place data's names (internal/places).
	"Chicago", "United States",
	// field pages: the web formats times, dates and zones in the reader's locale
	"Smith & Sons", "1 Main St", "Ana Lima", "Repair", "555-0100", "Back door", "T-1",
	"America/New_York (EST)", "Eastern Time (New York)", "Wednesday, March 4, 2026", "Wed, Mar 4", "9:00 – 11:00 AM EST",
	"ana@acme.test", "1,234",
}

func init() {
	for _, o := range i18n.LanguageOptions() {
		fixtures = append(fixtures, o.Name)
	}
	for _, o := range i18n.Locales() {
		fixtures = append(fixtures, o.Name)
	}
}

// coveredPages are the pages whose every word comes from the catalog.
func coveredPages() map[string]func(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	signedIn := func(p views.Page) views.Page {
		p.User = &views.User{Email: "ada@acme.test", IsStaff: true}
		p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", Admin: true}, {Slug: "globex", Name: "Globex Repairs"}}
		p.Org = &p.Orgs[0]
		return p
	}
	errorPage := func(status int, title, text, requestID string, in bool) func(p views.Page) templ.Component {
		return func(p views.Page) templ.Component {
			if in {
				p = signedIn(p)
			}
			p.Title = pl.T(title)
			return views.ErrorPage(p, status, pl.T(text), requestID)
		}
	}
	pages := map[string]func(p views.Page) templ.Component{
		"sign-in": func(p views.Page) templ.Component {
			p.Title = pl.T("signin.title")
			return views.Login(p, views.LoginForm{Email: "ada@acme.test", Next: "/orgs/acme/jobs",
				Notice: pl.T("notice.password_reset"), Error: pl.Tn("signin.throttled_account", 30, nil),
				EmailError: pl.T("signin.email_missing"), PasswordError: pl.T("signin.password_missing")})
		},
		"layout (signed in, staff, admin, two orgs)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("profile.title")
			return views.Layout(p)
		},
		"layout (one org, no current org)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Orgs = p.Orgs[:1]
			p.Org = nil
			p.Title = pl.T("profile.title")
			return views.Layout(p)
		},
		"layout (two orgs, no current org)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Org = nil
			p.Title = pl.T("profile.title")
			return views.Layout(p)
		},
		"error 404 (signed out)":   errorPage(404, "error.title.not_found", "error.text.not_found", "", false),
		"error 403":                errorPage(403, "error.title.forbidden", "error.text.forbidden", "", true),
		"error 429":                errorPage(429, "error.title.too_many", "error.text.too_many", "", true),
		"error 500 (with request)": errorPage(500, "error.title.internal", "error.text.internal", "req-7f3a", true),
		"briefings (admin, running, older and newer pages)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("briefings.title")
			zone := pl.Tf("briefings.zone.not_saved", map[string]any{"Zone": "America/Chicago"})
			return views.Briefings(views.BriefingsPage{Page: p, Slug: "acme", Notice: pl.T("briefings.notice.generating"),
				Problem: pl.Tn("briefings.refused.too_many", 12, nil), Admin: true, Usable: true, Paused: true,
				Zone: zone, ZoneID: "America/Chicago", State: pl.Tf("briefings.state.running_days", nil), StateKind: "running",
				NextRun: pl.Tf("briefings.next.run", nil),
				Days: []views.BriefingDay{
					{Date: "2026-11-26", Label: "Thu, Nov 26", Today: true, Status: "ready", Link: "/orgs/acme/briefings/2026-11-26",
						Manual: true, Reason: "generated", Why: pl.T("briefings.day.ready")},
					{Date: "2026-11-25", Label: "Wed, Nov 25", Reason: "not_scheduled", Why: pl.T("briefings.day.not_scheduled")},
				},
				Range: pl.Tf("briefings.range", nil), Older: "/orgs/acme/briefings?to=2026-11-11", Newer: "/orgs/acme/briefings"})
		},
		"briefings (member, latest page)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("briefings.title")
			return views.Briefings(views.BriefingsPage{Page: p, Slug: "acme", Latest: true, StateKind: "invalid_config",
				State: pl.Tf("briefings.state.invalid", nil), Zone: "America/Chicago", ZoneID: "America/Chicago"})
		},
		"zone search results": func(p views.Page) templ.Component {
			return views.ZoneResults(p, "chicago", []views.ZoneOption{{Name: "America/Chicago", City: "Chicago",
				Region: "United States", Offset: "UTC−06:00", Local: "8:04\u202fAM", Label: "Central Time (Chicago)", Unique: true}})
		},
		"zone search, nothing found": func(p views.Page) templ.Component {
			return views.ZoneResults(p, "Chicago", nil)
		},
		"day board (admin, overdue, problem)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.Tf("board.title", map[string]any{"Date": "Wed, Mar 4"})
			return views.DayBoard(views.BoardPage{Page: p, Notice: pl.T("fieldnotice.assigned"),
				DayLabel: "Wednesday, March 4, 2026", Zone: nyZone, IsToday: true,
				Board: fieldBoard(pl, true), Form: jobForm(pl)})
		},
		"day board (member, not today)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.Tf("board.title", map[string]any{"Date": "Wed, Mar 4"})
			return views.DayBoard(views.BoardPage{Page: p, DayLabel: "Wednesday, March 4, 2026",
				Zone: nyZone, Board: fieldBoard(pl, false)})
		},
		"jobs (admin, filter errors, pages)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("jobs.title")
			return views.Jobs(views.JobsPage{Page: p, Base: "/orgs/acme", CanEditField: true, Notice: pl.T("fieldnotice.job_added"),
				Zone: nyZone, Date: "2026-03-04", FilterErrors: views.FormErrors{"status": pl.T("jobs.status_invalid")},
				Technicians: []views.Option{{Value: "1", Label: "Ana Lima"}}, Jobs: fieldJobs(pl),
				PrevPage: "/p1", NextPage: "/p3", Form: jobForm(pl)})
		},
		"jobs (none)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("jobs.title")
			return views.Jobs(views.JobsPage{Page: p, Base: "/orgs/acme", Zone: nyZone, Date: "2026-03-04"})
		},
		"job (member)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = "Smith & Sons"
			return views.Job(views.JobPage{Page: p, Base: "/orgs/acme", Job: fieldJobs(pl)[1], JobDate: "Wed, Mar 4",
				Notes: "Back door", Phone: "555-0100"})
		},
		"job (admin)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = "Smith & Sons"
			return views.Job(views.JobPage{Page: p, Base: "/orgs/acme", CanEditField: true, Notice: pl.T("fieldnotice.ambiguous"),
				Job: fieldJobs(pl)[0], JobDate: "Wed, Mar 4", Form: jobForm(pl)})
		},
		"technicians (admin)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("technicians.title")
			return views.Technicians(views.TechniciansPage{Page: p, Base: "/orgs/acme", CanEditField: true,
				Notice: pl.T("fieldnotice.technician_added"), List: fieldTechs(), Form: techForm(pl)})
		},
		"technicians (none)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("technicians.title")
			return views.Technicians(views.TechniciansPage{Page: p, Base: "/orgs/acme"})
		},
		"technician (admin, inactive)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = "Ana Lima"
			return views.Technician(views.TechnicianPage{Page: p, Base: "/orgs/acme", CanEditField: true, OrgAdmin: true,
				Notice: pl.T("fieldnotice.saved"), Tech: fieldTechs()[1], Form: techForm(pl)})
		},
		"technician (member)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = "Ana Lima"
			return views.Technician(views.TechnicianPage{Page: p, Base: "/orgs/acme", Tech: fieldTechs()[0]})
		},
		"home (staff, two orgs)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Org = nil
			p.Title = pl.T("home.title")
			return views.Home(p)
		},
		"home (no org)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.User.IsStaff = false
			p.Orgs, p.Org = nil, nil
			p.Title = pl.T("home.title")
			return views.Home(p)
		},
		"profile": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("profile.title")
			pp := views.ProfilePage{Page: p, Email: "ada@acme.test", Name: "Ada Lovelace", Language: "es",
				Notice: pl.T("notice.language_saved"), Error: pl.Tn("signin.throttled_network", 2, nil),
				NameError: "", CurrentError: pl.T("profile.current_missing"), NewError: pl.T("profile.new_missing"),
				LanguageError: pl.T("profile.language_invalid")}
			for _, o := range i18n.LanguageOptions() {
				pp.Languages = append(pp.Languages, views.Option{Value: o.Tag, Label: o.Name})
			}
			return views.Profile(pp)
		},
		"technician's day link page": dayLinkPage,

		// --- BRF: the briefing page, members and invites, account pages, API tokens (catalog_brf_test.go) ---
		"briefing (admin, failed, deliveries, day links, history)": briefingPage(true, false),
		"briefing (admin, content with every section)":             briefingPage(true, true),
		"briefing (member, content)":                               briefingPage(false, true),
		"briefing (member, being generated)":                       briefingPageEmpty,
		"members (admin, invites, errors)":                         membersPage(true),
		"members (member)":                                         membersPage(false),
		"invite (new account, errors)":                             invitePage("new"),
		"invite (has an account, throttled)":                       invitePage("account"),
		"invite (signed in as another)":                            invitePage("signed in"),
		"link problem":                                             linkProblemPage,
		"forgot password (errors)":                                 forgotPage(false),
		"forgot password (sent)":                                   forgotPage(true),
		"reset password (error)":                                   resetPage,
		"API tokens (created, list, errors)":                       apiTokensPage,
		"API tokens block (none)":                                  apiTokensEmpty,
		// --- end BRF ---
		// --- PWD: the password rule's hint and refusals, the copy buttons (catalog_pwd_test.go) ---
		"invite (new account, password too easy) [PWD]": pwdInvitePage,
		"reset password (too short) [PWD]":              pwdResetPage,
		"profile (new password too easy) [PWD]":         pwdProfilePage,
		"API tokens block (created, copy button) [PWD]": pwdTokenCreated,
		"settings webhook secret (revealed) [PWD]":      pwdSecretRevealed,
		// --- end PWD ---
		// SET: the briefing settings page, its htmx answers, the test email.
		"settings (errors, preview, delivery, tests, log, history)": settingsPage(pl, false),
		"settings (not configured, late run kept, no log)":          settingsPage(pl, true),
		"settings preview answer (invalid)": func(p views.Page) templ.Component {
			return views.JSONPreviewAnswer(p, views.Preview{Errors: []views.FieldMessage{{Field: "briefing", Message: pl.T("bsettings.msg.briefing_required")}}},
				views.ZoneHint{}, []views.FieldMessage{{Message: pl.Tf("bsettings.msg.json_syntax", map[string]any{"At": "3:16"})}})
		},
		"settings webhook secret (rotated)": func(p views.Page) templ.Component {
			return views.WebhookSecret(p, views.SecretBlock{Revealed: "whsec_abc", Rotated: true, Error: pl.T("bsettings.secret.confirm_missing")})
		},
		"settings test send answer (failed)": func(p views.Page) templ.Component {
			return views.TestSendAnswer(p, views.TestSends{Base: "/b", Email: "ada@acme.test",
				Result: views.TestSendResult{Channel: "webhook", Message: pl.T("bsettings.test.no_webhook")}}, views.DeliveryLog{})
		},
		"test email": func(p views.Page) templ.Component {
			p = signedIn(p)
			return views.TestMessagePage(views.TestMessage{Page: p, When: "Thu, Nov 26", From: "ada@acme.test", To: "ada@acme.test",
				Subject: "Ada Lovelace", Text: "Ada Lovelace", HTMLURL: "/h", Back: "/b"})
		},
		// --- IMP: the import pages, the unsubscribe pages, the day link's 404 and 429
		// (catalog_imports_test.go).
		"import (admin, notice, refused upload)":           importPage,
		"import preview (a problem of every code)":         importPreviewProblems,
		"import preview (can save, conflict, notes, file)": importPreviewSaveable,
		// --- CSVIN: the import preview's reading side and the board link
		// (catalog_import_reading_test.go).
		"import preview (how the file was read, columns step)": importPreviewReading,
		"import (board link after a jobs import)":              importPageBoardLink,
		"unsubscribe (confirm)":                                unsubscribeConfirm,
		"unsubscribe (done)":                                   unsubscribeDone,
		"day link 404 (unknown or expired link)":               errorPage(404, "error.title.not_found", "daylink.error.not_found", "", false),
		"day link 429": func(p views.Page) templ.Component {
			p.Title = pl.T("error.title.too_many")
			return views.ErrorPage(p, 429, pl.Tn("daylink.error.too_many", 3, nil), "")
		},
		// --- end IMP ---
		// --- CSVM: the import preview's updates (old → new, kept changes, overwrite), matching problems, 409 ---
		"import preview (updates old → new, kept changes, overwrite tickbox)": importPreviewUpdates,
		"import preview (409 after overlapping saves, overwrite ticked)":      importPreviewStale,
		"import preview (matching problems)":                                  importPreviewMatchProblems,
		// --- end CSVM ---
	}
	// --- FRM: the 409 answers of a save over a newer version (catalog_frm_test.go) ---
	for name, page := range stalePages() {
		pages[name] = page
	}
	// --- end FRM ---
	// --- DSP: the jobs search across days (catalog_dsp_test.go) ---
	for name, page := range dspPages() {
		pages[name] = page
	}
	// --- end DSP ---
	// --- TL: the day board's timeline, flags, counts and Move (catalog_tl_test.go) ---
	for name, page := range boardTimelinePages() {
		pages[name] = page
	}
	// --- end TL ---
	return pages
}

// nyZone is a zone as the field pages show it (internal/web zoneLabel).
var nyZone = views.ZoneLabel{Name: "Eastern Time (New York)", ID: "America/New_York", Abbr: "EST"}

// settingsFixtures are the settings pages' data that are not the
// catalog's: CLDR's day names and times, the preview's offsets, an SMTP
// reply, an audit action's code, and the delivery log's attempt counts
// (digits, the same in the four languages below 1,000).
var settingsFixtures = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "6:30\u202fAM", "UTC−05:00",
	"550 mailbox unavailable", "fieldforce.config.update", "whsec_abc", "whsec_••••••••••••••••••••••••", "3h", "15m", "24h", "0", "1", "3"}

func init() {
	// The locale select's names ("English (Canada)") before the bare
	// language names they hold ("English"), which are removed first otherwise.
	var names []string
	for _, o := range i18n.Locales() {
		names = append(names, o.Name)
	}
	fixtures = append(append(names, fixtures...), settingsFixtures...)
}

// settingsPage is the settings page in two states: with errors beside the
// fields, a preview with a DST note, a delivery log and a test's outcome;
// or an org with no schedule saved whose first run is late and kept.
func settingsPage(pl *i18n.Localizer, fresh bool) func(p views.Page) templ.Component {
	return func(p views.Page) templ.Component {
		p.User = &views.User{Email: "ada@acme.test"}
		p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", Admin: true}}
		p.Org = &p.Orgs[0]
		p.Title = pl.T("bsettings.page_title")
		p.Limits = views.Limits{Recipients: 50, SendWithin: "3h", MinSendWithin: "15m", MaxSendWithin: "24h", ZoneQuery: 64, WebhookURLLen: 2048}
		days := []views.DayOption{{"mon", "Mon"}, {"tue", "Tue"}, {"wed", "Wed"}, {"thu", "Thu"}, {"fri", "Fri"}, {"sat", "Sat"}, {"sun", "Sun"}}
		sp := views.SettingsPage{Page: p, Base: "/orgs/acme/settings/fieldforce", Notice: pl.T("bsettings.notice.locale_saved"),
			Form: views.ScheduleForm{Timezone: "America/Chicago", LocalTime: "6:30\u202fAM", Days: []string{"mon"}, Enabled: "true",
				DayOptions: days, TimeExample: "6:30\u202fAM", TimeExamples: "6:30\u202fAM",
				ZoneHint: views.ZoneHint{Name: "Central Time (Chicago)", ID: "America/Chicago", Line: pl.Tf("bsettings.zone_hint", nil)},
				ZoneChoices: []views.ZoneOption{{Name: "America/Chicago", City: "Chicago", Region: "United States", Offset: "UTC−06:00",
					Local: "8:04\u202fAM", Label: "Central Time (Chicago)"}},
				Errors: map[string]string{"": pl.T("bsettings.msg.document_object"), "timezone": pl.Tf("bsettings.msg.zone_choices", nil),
					"schedule_local_time": pl.T("bsettings.msg.time_format"), "days": pl.T("bsettings.msg.days_empty"),
					"delivery_email_to": pl.Tn("bsettings.msg.addresses_too_many", 50, nil), "delivery_webhook_url": pl.T("bsettings.msg.webhook_url"),
					"delivery_send_within": pl.Tf("bsettings.msg.send_within", nil)}},
			Secret: views.SecretBlock{Base: "/b"},
			Tests: views.TestSends{Base: "/b", Email: "ada@acme.test", WebhookURL: "https://hooks.example.com/fieldbrief",
				Result: views.TestSendResult{Channel: "email", OK: true, Message: pl.Tf("bsettings.test.kept", nil), ReadURL: "/r"}},
			Log: views.DeliveryLog{Zone: "Central Time (Chicago)", ZoneID: "America/Chicago", Rows: []views.DeliveryRow{
				{At: "Thu, Nov 26", Date: "Thu, Nov 26", Channel: "email", Audience: "technician", Update: pl.Tn("bsettings.log.update", 2, nil),
					Recipient: "ada@acme.test", State: "failed", Attempts: 3, Code: "550", Detail: "mailbox unavailable"},
				{At: "Thu, Nov 26", Date: "Thu, Nov 26", Channel: "webhook", Audience: "test", Recipient: "ada@acme.test", State: "pending", Attempts: 1},
				{At: "Thu, Nov 26", Date: "Thu, Nov 26", Channel: "email", Audience: "dispatcher", Recipient: "ada@acme.test", State: "skipped",
					Note: pl.Tf("bsettings.late.detail", nil)},
			}},
			JSON: views.JSONForm{Text: "{}", Errors: []views.FieldMessage{{Message: pl.Tf("bsettings.msg.unknown_field", nil)}}},
			Preview: views.Preview{Zone: "Central Time (Chicago)", ZoneID: "America/Chicago", Next: "Thu, Nov 26", Paused: true,
				Runs: []views.PreviewRun{{Date: "Thu, Nov 26", Local: "6:30\u202fAM", UTC: "6:30\u202fAM", Offset: "UTC−05:00", Flag: "gap",
					Note: pl.Tf("briefings.next.gap", nil)}},
				Warnings: []string{pl.Tf("bsettings.preview.warn_gap", nil)}},
			History: []views.AuditRow{{When: "Thu, Nov 26", Actor: "ada@acme.test", Action: "fieldforce.config.update"}},
			Locale:  views.LocaleForm{Action: "/l", Value: "en-US", Error: pl.T("bsettings.locale.invalid")},
			Paused:  true,
		}
		for _, o := range i18n.Locales() {
			sp.Locale.Options = append(sp.Locale.Options, views.Option{Value: o.Tag, Label: o.Name})
		}
		if fresh {
			sp.NotConfigured, sp.ZoneFrom, sp.ZoneFromID, sp.Notice = true, "Central Time (Chicago)", "America/Chicago", ""
			sp.Form.Errors, sp.Form.ZoneChoices, sp.Form.ZoneHint = nil, nil, views.ZoneHint{}
			sp.Log, sp.History, sp.JSON.Errors = views.DeliveryLog{}, nil, nil
			sp.Preview = views.Preview{Zone: "Central Time (Chicago)", ZoneID: "America/Chicago", Next: "Thu, Nov 26",
				CatchUp: pl.Tf("bsettings.preview.catch_up_kept_first", nil), Kept: true,
				Runs: []views.PreviewRun{{Date: "Thu, Nov 26", Local: "6:30\u202fAM", UTC: "6:30\u202fAM", Offset: "UTC−05:00",
					Late: pl.Tf("bsettings.preview.late_kept", nil)}}}
			sp.Tests.WebhookURL = ""
		}
		return views.Settings(sp)
	}
}

// fieldJobs are two jobs as the web gives them to the field pages.
func fieldJobs(pl *i18n.Localizer) []views.JobRow {
	return []views.JobRow{
		{ID: 1, Date: "2026-03-04", Window: "9:00 – 11:00 AM EST", Customer: "Smith & Sons", Address: "1 Main St",
			JobType: "Repair", Emergency: true, Status: "on_hold", StatusLabel: pl.T("jobstatus.on_hold"), Ref: "T-1"},
		{ID: 2, Date: "2026-03-04", Window: "9:00 – 11:00 AM EST", Customer: "Smith & Sons", Address: "1 Main St",
			Status: "scheduled", StatusLabel: pl.T("jobstatus.scheduled"), TechnicianID: 1, Technician: "Ana Lima"},
	}
}

func fieldBoard(pl *i18n.Localizer, admin bool) views.Board {
	jobs := fieldJobs(pl)
	b := views.Board{Base: "/orgs/acme", CanEditField: admin, CSRF: "tok", Date: "2026-03-04", I18n: pl,
		Columns: []views.BoardColumn{{Name: pl.T("board.unassigned"), Blocks: fieldBlocks(jobs[:1])}, {TechnicianID: 1, Name: "Ana Lima", Blocks: fieldBlocks(jobs[1:])},
			{TechnicianID: 2, Name: "Ada Lovelace"}},
		Overdue: jobs[:1], Truncated: true, Technicians: []views.Option{{Value: "1", Label: "Ana Lima"}}}
	if admin {
		b.Problem = pl.Tf("board.not_saved", map[string]any{"Field": "technician_id", "Problem": pl.T("board.not_technician")})
		b.Notice = pl.T("fieldnotice.status_changed")
	}
	return b
}

func jobForm(pl *i18n.Localizer) views.JobForm {
	return views.JobForm{Action: "/orgs/acme/jobs", Next: "jobs", Customer: "Smith & Sons", Date: "2026-03-04",
		From: "09:00", To: "11:00", ToDate: "2026-03-05", Status: "scheduled", Zone: nyZone,
		Technicians: []views.Option{{Value: "1", Label: pl.Tf("jobs.inactive", map[string]any{"Name": "Ana Lima"})}},
		Errors:      views.FormErrors{"from": pl.T("jobform.time_invalid"), "to_date": pl.T("jobform.to_date_invalid")}}
}

func fieldTechs() []views.TechnicianRow {
	return []views.TechnicianRow{
		{ID: 1, Name: "Ana Lima", Email: "ana@acme.test", Phone: "555-0100", Ref: "T-1", Active: true, Jobs: 1234, JobCount: "1,234"},
		{ID: 2, Name: "Ana Lima", Active: false, Jobs: 1234, JobCount: "1,234"},
	}
}

func techForm(pl *i18n.Localizer) views.TechnicianForm {
	f := views.TechnicianForm{Action: "/orgs/acme/technicians", Name: "Ana Lima", Language: "es",
		Errors: views.FormErrors{"language": pl.T("technicians.language_invalid")}}
	for _, o := range i18n.LanguageOptions() {
		f.Languages = append(f.Languages, views.Option{Value: o.Tag, Label: o.Name})
	}
	return f
}

func TestCoveredPagesHaveNoTextOutsideTheCatalog(t *testing.T) {
	t.Parallel()
	for name, page := range coveredPages() {
		p := views.Page{CSRF: "tok", I18n: i18n.Pseudo()}
		var buf bytes.Buffer
		require.NoError(t, page(p).Render(context.Background(), &buf), name)
		out := buf.String()
		doc, err := html.Parse(strings.NewReader(out))
		require.NoError(t, err, name)
		var texts []string
		walkVisible(doc, func(s string) { texts = append(texts, s) })
		require.NotEmpty(t, texts, name)
		for _, s := range texts {
			if rest := outsideMarkers(s); rest != "" {
				t.Errorf("%s: text outside the catalog: %q (in %q)", name, rest, s)
			}
		}
		// The markers are really there: a page with none would pass vacuously.
		require.Contains(t, out, i18n.MarkOpen, name)
		// A message id the catalog lacks is printed as itself, in markers.
		for _, m := range missingID.FindAllStringSubmatch(out, -1) {
			t.Errorf("%s: no message %q in the catalog", name, m[1])
		}
	}
}

// missingID is a message id printed for want of its message: "⟦briefings.col.date⟧".
var missingID = regexp.MustCompile(i18n.MarkOpen + `([a-z_]+(?:\.[a-z_]+)+)` + i18n.MarkClose)

// An unconverted text is caught: the test above can fail.
func TestOutsideMarkersCatchesPlainText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Sign in", outsideMarkers("Sign in"))
	require.Equal(t, "Back to", outsideMarkers("Back to ⟦Acme⟧"))
	require.Equal(t, "", outsideMarkers(" ⟦Sign in⟧ · ✓ "))
	require.Equal(t, "", outsideMarkers("ada@acme.test"))
}

// walkVisible calls fn with every text people read: text nodes outside
// script and style, and the attributes read aloud or shown.
func walkVisible(n *html.Node, fn func(string)) {
	switch n.Type {
	case html.TextNode:
		if strings.TrimSpace(n.Data) != "" {
			fn(n.Data)
		}
	case html.ElementNode:
		if n.Data == "script" || n.Data == "style" {
			return
		}
		for _, a := range n.Attr {
			switch a.Key {
			case "aria-label", "title", "placeholder", "alt":
				fn(a.Val)
			case "value":
				if n.Data == "button" || (n.Data == "input" && attr(n, "type") == "submit") {
					fn(a.Val)
				}
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkVisible(c, fn)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// outsideMarkers is what remains of s once the catalog's messages and the
// fixtures are removed, when it has a letter or digit: "" if nothing
// readable is left (spacing, punctuation and symbols such as "✓" are no
// words).
func outsideMarkers(s string) string {
	var b strings.Builder
	depth := 0 // messages nest: a page title inside "{{.Title}} · fieldbrief"
	for _, r := range s {
		switch string(r) {
		case i18n.MarkOpen:
			depth++
		case i18n.MarkClose:
			depth--
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	rest := b.String()
	// Longest first: a short fixture (a column name such as "date") must
	// not cut a longer one ("fieldforce.config.update") before it is
	// removed whole.
	byLength := slices.Clone(fixtures)
	slices.SortStableFunc(byLength, func(a, b string) int { return len(b) - len(a) })
	for _, f := range byLength {
		rest = strings.ReplaceAll(rest, f, "")
	}
	if depth != 0 {
		return "unbalanced markers: " + s
	}
	if !strings.ContainsFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return ""
	}
	return strings.TrimSpace(rest)
}
