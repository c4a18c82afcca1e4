package views_test

import (
	"github.com/a-h/templ"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
	"fieldbrief/views/briefview"
)

// dayLinkFixtures are the day link page's user data, and the dates and
// windows its handler formats (internal/locale, not the catalog).
var dayLinkFixtures = []string{
	"Wed, Mar 4, 2026", "Thu, Mar 5", "America/Chicago", "Central Time (Chicago)", "8:00\u2009–\u20099:00\u202fAM CST", "Tue, Mar 3 9:00\u2009–\u200910:00\u202fAM CST",
	"Dogwood Bakery", "500 W 2nd St", "+1 512 555 0100", "Boiler repair", "Gate 4411", "Elm Clinic", "Stuck Stables", "CST",
}

func init() { fixtures = append(fixtures, dayLinkFixtures...) }

// dayLinkPage is the technician's day link page with every section shown:
// jobs (one an emergency), overdue and cancelled ones, lists cut short.
func dayLinkPage(_ views.Page) templ.Component {
	job := func(id int64, window, customer, code string) briefview.Job {
		return briefview.Job{ID: id, Window: window, Customer: customer, StatusCode: code, Status: code}
	}
	first := job(1, "8:00\u2009–\u20099:00\u202fAM", "Dogwood Bakery", "scheduled")
	first.Zone, first.Address, first.MapURL, first.Phone = "CST", "500 W 2nd St", "https://maps.test/", "+1 512 555 0100"
	first.Type, first.Notes, first.Emergency = "Boiler repair", "Gate 4411", true
	return views.TechnicianDayPage(views.TechnicianDay{
		L: i18n.Pseudo(), OrgName: "Acme Field Services", Technician: "Ada Lovelace",
		DateLabel: "Wed, Mar 4, 2026", Timezone: "America/Chicago", ZoneName: "Central Time (Chicago)", Zone: "CST", ValidUntil: "Thu, Mar 5",
		Jobs:      []briefview.Job{first, job(2, "8:00\u2009–\u20099:00\u202fAM CST", "Elm Clinic", "in_progress")},
		Cancelled: []briefview.Job{job(3, "8:00\u2009–\u20099:00\u202fAM CST", "Elm Clinic", "cancelled")},
		Overdue:   []briefview.Job{job(4, "Tue, Mar 3 9:00\u2009–\u200910:00\u202fAM CST", "Stuck Stables", "on_hold")},
		More:      true, MoreOverdue: true,
	})
}
