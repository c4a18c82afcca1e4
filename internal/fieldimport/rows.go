package fieldimport

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// Reading one record into internal/field's input: only what a CSV cell
// needs (yes/no, a local date and times in the org's zone); every rule on
// the values themselves is field's Validate, run by its batch upsert.

// parsedRow is one record turned into display values, an input for the
// batch (when it parsed), notes and problems.
type parsedRow struct {
	planned  PlannedRow
	tech     field.TechnicianInput
	job      field.JobInput
	problems []Problem
	// unreadable: Read reported a problem on this row (already among the
	// plan's problems); it is not saved.
	unreadable bool
	// blocked: the header has a problem that keeps every row from the
	// batch (blocksRows); the row is still checked.
	blocked bool
}

// batchable reports whether the row goes to the batch upsert.
func (r *parsedRow) batchable() bool {
	return len(r.problems) == 0 && !r.unreadable && !r.blocked
}

// checkValues adds the problems internal/field's rules find in a row the
// batch did not run, on the columns the row has no problem on yet and the
// file has (a missing column is the header's problem, said once);
// present also holds "row/column" for the cells Read refused.
func (r *parsedRow) checkValues(k Kind, present map[string]bool) error {
	var err error
	if k == Technicians {
		in := r.tech
		in.Normalize()
		err = in.Validate()
	} else {
		in := r.job
		in.Normalize()
		err = in.Validate()
	}
	var ve *field.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	has := map[string]bool{}
	for _, p := range r.problems {
		has[p.Column] = true
	}
	row := r.planned.Row
	for _, name := range slices.Sorted(maps.Keys(ve.Fields)) {
		col := columnOf(k, name)
		if has[col] || !present[col] || present[fmt.Sprint(row, "/", col)] {
			continue
		}
		fp, _ := ve.Problem(name)
		if fp.Code == field.CodeRequired && (col == "arrival_from" || col == "arrival_to") &&
			(has["date"] || has["arrival_from"] || has["arrival_to"] || !present["date"]) {
			continue // no time without a date: the date's problem says it
		}
		if strings.HasPrefix(name, "technician_") {
			continue // the technician is matching's (technician_ref's problem)
		}
		r.problem(Problem{Column: col, Code: fp.Code, Value: fp.Value, Limit: fp.Limit}, "%s", sentence(col, ve.Fields[name]))
		has[col] = true
	}
	return nil
}

// problem adds p, on this row, with its English message.
func (r *parsedRow) problem(p Problem, format string, args ...any) {
	p.Row, p.Message = r.planned.Row, fmt.Sprintf(format, args...)
	r.problems = append(r.problems, p)
}

// values returns the display values in format order from cells.
func values(k Kind, cells map[string]string) []string {
	cols := Columns(k)
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = cells[c.Name]
	}
	return out
}

func parseTechnician(rec Record) parsedRow {
	r := parsedRow{planned: PlannedRow{Row: rec.Row}}
	c := rec.Cells
	active, ok := parseYesNo(c["active"], true)
	if !ok {
		r.problem(Problem{Column: "active", Code: CodeYesNo, Value: c["active"]}, "active must be yes or no, not %q.", c["active"])
	}
	r.tech = field.TechnicianInput{ExternalRef: c["external_ref"], Name: c["name"], Email: c["email"], Phone: c["phone"], Active: active,
		Language: c["language"]}
	shown := map[string]string{}
	for k, v := range c {
		shown[k] = v
	}
	shown["active"] = yesNo(active)
	if !ok {
		shown["active"] = c["active"]
	}
	r.planned.Values = values(Technicians, shown)
	return r
}

// parseJob reads a job row; cr reads its dates and times in the org's
// locale.
func parseJob(rec Record, zone schedule.Zone, cr *cellReader) parsedRow {
	r := parsedRow{planned: PlannedRow{Row: rec.Row}}
	c := rec.Cells
	shown := map[string]string{}
	for k, v := range c {
		shown[k] = v
	}
	emergency, ok := parseYesNo(c["emergency"], false)
	if ok {
		shown["emergency"] = yesNo(emergency)
	} else {
		r.problem(Problem{Column: "emergency", Code: CodeYesNo, Value: c["emergency"]}, "emergency must be yes or no, not %q.", c["emergency"])
	}
	// A status as offices write it, in the four languages ("In progress",
	// "Completed", "Erledigt", "Annulé"); field decides whether anything
	// else is a status, and the preview lists the statuses in words.
	status, known := ParseStatus(c["status"])
	if !known {
		status = c["status"]
		r.problem(Problem{Column: "status", Code: field.CodeStatusUnknown, Value: status},
			"status %q is not a status: write one of %s.", status, strings.Join(field.Statuses, ", "))
	}
	shown["status"] = status
	r.job = field.JobInput{
		ExternalRef: c["external_ref"], Customer: c["customer"], CustomerPhone: c["customer_phone"],
		Address: c["address"], JobType: c["job_type"], Notes: c["notes"], Emergency: emergency,
		Status: status, TechnicianRef: c["technician_ref"],
	}
	// A column the file does not have is the header's problem, said
	// once, not every row's.
	_, hasDate := c["date"]
	d, ok := cr.date(rec.Row, c["date"])
	if !ok && hasDate {
		r.problem(Problem{Column: "date", Code: CodeDateInvalid, Value: c["date"]}, "date %q is not a date like 2026-03-09 (YYYY-MM-DD) or as your org's locale writes it.", c["date"])
	}
	for _, col := range []string{"arrival_from", "arrival_to"} {
		raw, has := c[col]
		lt, ok := cr.clock(raw)
		if !ok {
			if has {
				r.problem(Problem{Column: col, Code: CodeTimeInvalid, Value: raw}, "%s %q is not a time like 08:30, 8:30 AM or 14h30.", col, raw)
			}
			continue
		}
		if d.IsZero() {
			continue
		}
		t, note, err := schedule.LocalDateTime(zone.Loc, d, lt)
		if err != nil {
			p := Problem{Column: col, Code: CodeTimeGap, Value: raw}
			errors.As(err, &p.Gap)
			r.problem(p, "%s: %v.", col, err)
			continue
		}
		if note != "" {
			r.planned.Notes = append(r.planned.Notes, col+": "+note+".")
			r.planned.Twice = append(r.planned.Twice, Twice{Column: col, Date: d, At: lt, First: t})
		}
		shown[col] = lt.String() + " " + schedule.ZoneAbbr(t)
		if r.planned.Times == nil {
			r.planned.Times = map[string]time.Time{}
		}
		r.planned.Times[col] = t
		if col == "arrival_from" {
			r.job.ArrivalStart = t
		} else {
			r.job.ArrivalEnd = t
		}
	}
	if !d.IsZero() {
		shown["date"] = d.String()
	}
	r.planned.Values = values(Jobs, shown)
	return r
}

// yesWords and noWords are how a yes/no cell is written, in the four
// languages and as spreadsheets export a tick ("x", "TRUE"); the
// template writes the org's language's words (catalog import.value_yes,
// import.value_no), which tests check are here.
var (
	yesWords = []string{"yes", "y", "true", "1", "x", "ja", "j", "wahr", "sí", "si", "s", "verdadero", "oui", "o", "vrai"}
	noWords  = []string{"no", "n", "false", "0", "nein", "falsch", "falso", "non", "faux"}
)

// parseYesNo reads a yes/no cell; empty is def.
func parseYesNo(s string, def bool) (v, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "":
		return def, true
	case slices.Contains(yesWords, s):
		return true, true
	case slices.Contains(noWords, s):
		return false, true
	}
	return def, false
}

// statusWords are the names offices give a job's status, in the four
// languages (Jobber's "Upcoming" and "Completed", Housecall Pro's
// "Canceled", the app's own names in each catalog), compared as headers
// are (normHeader: no case, accents, spaces or punctuation).
var statusWords = map[string][]string{
	field.StatusScheduled: {"scheduled", "planned", "open", "upcoming", "booked", "not started", "pending",
		"geplant", "eingeplant", "offen", "terminiert", "programado", "programada", "pendiente", "planificado",
		"planifiée", "planifié", "prévu", "prévue", "programmé", "à venir"},
	field.StatusInProgress: {"in progress", "in_progress", "started", "working", "en route", "on the way", "dispatched",
		"in arbeit", "in bearbeitung", "begonnen", "unterwegs", "en curso", "en progreso", "en proceso", "en camino",
		"en cours", "commencée", "en route"},
	field.StatusOnHold: {"on hold", "on_hold", "hold", "paused", "waiting", "pausiert", "angehalten", "wartet", "zurückgestellt",
		"en pausa", "en espera", "pausado", "en attente", "en pause", "suspendu", "suspendue"},
	field.StatusDone: {"done", "complete", "completed", "finished", "closed", "erledigt", "abgeschlossen", "fertig",
		"hecho", "terminado", "completado", "finalizado", "cerrado", "terminée", "terminé", "fait", "faite", "clôturé", "achevé"},
	field.StatusCancelled: {"cancelled", "canceled", "storniert", "abgesagt", "cancelado", "cancelada", "anulado",
		"annulée", "annulé"},
}

var statusByWord = func() map[string]string {
	out := map[string]string{}
	for st, words := range statusWords {
		for _, w := range words {
			if prev, dup := out[normHeader(w)]; dup && prev != st {
				panic("fieldimport: status word " + w + " means " + prev + " and " + st)
			}
			out[normHeader(w)] = st
		}
	}
	return out
}()

// ParseStatus reads a status cell; empty is scheduled. ok false: not a
// status (the row's problem lists the statuses).
func ParseStatus(s string) (string, bool) {
	if strings.TrimSpace(s) == "" {
		return field.StatusScheduled, true
	}
	st, ok := statusByWord[normHeader(s)]
	return st, ok
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// columnOf is the file's column for one of field's field names.
func columnOf(k Kind, fieldName string) string {
	if k == Jobs {
		switch fieldName {
		case "arrival_start":
			return "arrival_from"
		case "arrival_end":
			return "arrival_to"
		}
	}
	return fieldName
}
