package demo

import (
	"fmt"
	"strings"
	"time"
)

// job is one planned visit. tech indexes the org's technicians; -1 is unassigned.
type job struct {
	customer    customer
	phone       string // the customer's
	kind        string // the job type
	emergency   bool
	start, end  time.Time
	tech        int
	status      string
	notes       string
	completedAt *time.Time
}

// slot is an arrival window in local wall-clock time. The windows start at
// 08:00 or later, so they never fall in a DST gap or overlap (those happen at
// night in every demo zone) and time.Date is exact for them.
type slot struct{ hour, minute, hours int }

var slots = []slot{
	{8, 0, 2}, {8, 0, 2}, {9, 30, 2}, {10, 0, 2}, {12, 0, 2}, {13, 0, 3}, {14, 30, 2}, {15, 0, 2},
}

// exception is a (day, slot) whose status is fixed rather than derived from
// the clock: the on-hold, cancelled and missed jobs a real day has.
type exception struct {
	day, slot int
	status    string
	note      string
}

var exceptions = []exception{
	{-1, 2, "on_hold", "Waiting for a replacement part"},
	{-1, 5, "cancelled", "Customer cancelled by phone"},
	{-1, 6, "scheduled", "Nobody home – call to rebook"}, // overdue: yesterday's window passed
	{0, 3, "on_hold", "Waiting for the landlord's approval"},
	{0, 5, "cancelled", "Customer fixed it themselves"},
}

// emergencies are today's urgent calls, one given to a technician and one
// still unassigned, so the briefing's action items lead with them.
var emergencies = map[[2]int]string{
	{0, 6}: "Burst pipe – water coming through the ceiling",
	{0, 7}: "No heating – elderly resident, call before arriving",
}

// unassigned lists the (day, slot) pairs nobody has been given yet.
var unassigned = map[[2]int]bool{{0, 7}: true, {1, 3}: true, {1, 6}: true}

// plan lays out an org's jobs for yesterday, today and tomorrow in the org's
// local days, plus two overdue jobs from earlier in the week. Statuses follow
// the clock: windows already over are done, the current ones in progress,
// later ones scheduled; unassigned jobs stay scheduled.
func plan(o orgSpec, loc *time.Location, now time.Time) []job {
	local := now.In(loc)
	y, m, d := local.Date()
	var jobs []job
	add := func(day, i int, s slot, tech int, status, note string) {
		start := time.Date(y, m, d+day, s.hour, s.minute, 0, 0, loc)
		end := start.Add(time.Duration(s.hours) * time.Hour)
		// Shifting by four per day gives each day its own mix and keeps the
		// on-hold, cancelled and overdue jobs at different customers.
		ci := (i + 4*max(day+1, 0)) % len(o.customers)
		t := tasks[(i+3*(day+5))%len(tasks)]
		if note == "" {
			note = t.note
		}
		j := job{customer: o.customers[ci], phone: fmt.Sprintf(o.dial, 20+ci), kind: t.kind,
			start: start, end: end, tech: tech, status: status, notes: note}
		if urgent, ok := emergencies[[2]int{day, i}]; ok {
			j.emergency, j.kind, j.notes = true, "Emergency call-out", urgent
		}
		if j.status == "" {
			j.status = clockStatus(start, end, now, tech)
		}
		if j.status == "done" { // its window is over, so 90 minutes in is in the past
			done := start.Add(90 * time.Minute)
			j.completedAt = &done
		}
		j.kind, j.notes = inOrgsWords(o, j.kind), inOrgsWords(o, j.notes)
		jobs = append(jobs, j)
	}
	for day := -1; day <= 1; day++ {
		for i, s := range slots {
			tech := i % len(o.techs)
			if unassigned[[2]int{day, i}] {
				tech = -1
			}
			status, note := "", ""
			for _, e := range exceptions {
				if e.day == day && e.slot == i {
					status, note = e.status, e.note
				}
			}
			add(day, i, s, tech, status, note)
		}
	}
	add(-3, 1, slots[1], 1%len(o.techs), "scheduled", "Missed visit – customer asked to rebook")
	add(-4, 4, slots[4], 2%len(o.techs), "on_hold", "Waiting for parts from the wholesaler")
	return jobs
}

func clockStatus(start, end, now time.Time, tech int) string {
	switch {
	case tech < 0 || now.Before(start):
		return "scheduled"
	case now.Before(end):
		return "in_progress"
	default:
		return "done"
	}
}

// german is the demo's job types and notes as a Berlin office writes them:
// they are the org's own data, which fieldbrief shows as typed, so a German
// org's demo must bring them in German (the pages' words come from the
// catalogs, docs/i18n.md). A text missing here stays English.
var german = map[string]string{
	"Maintenance":        "Wartung",
	"Repair":             "Reparatur",
	"Installation":       "Montage",
	"Drain clearing":     "Rohrreinigung",
	"Quote":              "Angebot",
	"Inspection":         "Prüfung",
	"Follow-up":          "Nacharbeit",
	"Emergency call-out": "Notdienst",

	"Annual service":                   "Jahreswartung",
	"No hot water":                     "Kein Warmwasser",
	"Leak under the kitchen sink":      "Undicht unter der Küchenspüle",
	"Thermostat replacement":           "Thermostat tauschen",
	"Radiator bleeding, two rooms":     "Heizkörper entlüften, zwei Räume",
	"Blocked drain":                    "Abfluss verstopft",
	"Boiler pressure keeps dropping":   "Kesseldruck fällt immer wieder ab",
	"Quote for a new heat pump":        "Angebot für eine neue Wärmepumpe",
	"Noisy pipes at night":             "Rohre nachts laut",
	"Safety inspection before tenancy": "Sicherheitsprüfung vor Mietbeginn",
	"Follow-up on last week's repair":  "Nacharbeit zur Reparatur der Vorwoche",

	"Waiting for a replacement part":                      "Wartet auf ein Ersatzteil",
	"Customer cancelled by phone":                         "Kunde hat telefonisch abgesagt",
	"Nobody home – call to rebook":                        "Niemand angetroffen – anrufen und neu vereinbaren",
	"Waiting for the landlord's approval":                 "Wartet auf die Freigabe des Vermieters",
	"Customer fixed it themselves":                        "Kunde hat es selbst behoben",
	"Burst pipe – water coming through the ceiling":       "Rohrbruch – Wasser kommt durch die Decke",
	"No heating – elderly resident, call before arriving": "Heizung ausgefallen – ältere Bewohnerin, vorher anrufen",
	"Missed visit – customer asked to rebook":             "Termin verpasst – Kunde bittet um neuen Termin",
	"Waiting for parts from the wholesaler":               "Wartet auf Teile vom Großhandel",
}

// inOrgsWords is s as the org writes it: German for a German org.
func inOrgsWords(o orgSpec, s string) string {
	if strings.HasPrefix(o.locale, "de") {
		if w, ok := german[s]; ok {
			return w
		}
	}
	return s
}
