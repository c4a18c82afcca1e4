package views_test

import (
	"github.com/a-h/templ"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// DSP: the jobs page's search across days (results with dates and board
// links, pages; a query too short), in coveredPages. The user's query and
// the dates are fixtures (the query is the reader's text, the dates CLDR's).

func dspPages() map[string]func(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	signedIn := func(p views.Page) views.Page {
		p.User = &views.User{Email: "ada@acme.test"}
		p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", EditField: true}}
		p.Org = &p.Orgs[0]
		p.Title = pl.T("jobs.title")
		return p
	}
	rows := func() []views.JobSearchRow {
		var out []views.JobSearchRow
		for _, j := range fieldJobs(pl) {
			out = append(out, views.JobSearchRow{JobRow: j, DateLabel: "Wed, Mar 4", BoardURL: "/orgs/acme/board?date=2026-03-04"})
		}
		return out
	}
	return map[string]func(p views.Page) templ.Component{
		"jobs search (dispatcher, results, pages)": func(p views.Page) templ.Component {
			return views.Jobs(views.JobsPage{Page: signedIn(p), Base: "/orgs/acme", CanEditField: true, Zone: nyZone, Date: "2026-03-04",
				Search: &views.JobSearch{Query: "Smith & Sons", Rows: rows(), PrevPage: "/p1", NextPage: "/p3", MinLen: 3, DayLabel: "Wed, Mar 4"}})
		},
		"jobs search (none)": func(p views.Page) templ.Component {
			return views.Jobs(views.JobsPage{Page: signedIn(p), Base: "/orgs/acme", Zone: nyZone, Date: "2026-03-04",
				Search: &views.JobSearch{Query: "Smith & Sons", MinLen: 3, DayLabel: "Wed, Mar 4"}})
		},
		"jobs search (too short)": func(p views.Page) templ.Component {
			return views.Jobs(views.JobsPage{Page: signedIn(p), Base: "/orgs/acme", Zone: nyZone, Date: "2026-03-04",
				Search: &views.JobSearch{Query: "T-1", MinLen: 3, DayLabel: "Wed, Mar 4",
					Error: pl.Tf("jobsearch.too_short", map[string]any{"Count": 3})}})
		},
	}
}
