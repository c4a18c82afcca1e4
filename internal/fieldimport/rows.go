package fieldimport

import (
	"errors"
	"fmt"
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
	// "In progress" and "In_Progress" mean in_progress; field decides
	// whether the result is a status.
	status := strings.ReplaceAll(strings.ToLower(c["status"]), " ", "_")
	if status == "" {
		status = field.StatusScheduled
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

// parseYesNo reads a yes/no cell; empty is def.
func parseYesNo(s string, def bool) (v, ok bool) {
	switch strings.ToLower(s) {
	case "":
		return def, true
	case "yes", "y", "true", "1":
		return true, true
	case "no", "n", "false", "0":
		return false, true
	}
	return def, false
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
