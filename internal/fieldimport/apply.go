package fieldimport

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// How a row meets what is stored (docs/field-data.md, "Matching rows to records"): which record it
// updates, what it changes (old → new), which fields changed in fieldbrief
// since the last import it keeps, and, on save, what the import set this
// time (the baselines of migration 00028).

type planOpts struct {
	overwrite bool // give fields changed in fieldbrief the file's values too
	save      bool // the saving transaction: lock what is read, write baselines
	// now is the caller's clock, at which the batch writes (field's job
	// writes take it: docs/scheduling.md, "Time comes from the caller").
	now time.Time
	// aliases: technician cells read as another (accepted suggestions).
	aliases map[string]string
}

// match resolves every readable row against the org's records, adding its
// problems, so that every error of the file is in the first preview.
func match(ctx context.Context, tx pgx.Tx, actor audit.Actor, orgID int64, k Kind, rows []parsedRow, zone schedule.Zone, o planOpts) error {
	techs, err := loadTechnicians(ctx, tx, orgID, o.save && k == Technicians)
	if err != nil {
		return err
	}
	if k == Technicians {
		return matchTechnicians(ctx, tx, actor, orgID, rows, techs, o)
	}
	return matchJobs(ctx, tx, orgID, rows, techs, zone, o)
}

// colIndex is the position of column name in kind's Values.
func colIndex(k Kind, name string) int {
	for i, c := range Columns(k) {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func matchTechnicians(ctx context.Context, tx pgx.Tx, actor audit.Actor, orgID int64, rows []parsedRow, x *techIndex, o planOpts) error {
	// References the file gives are taken: generated ones continue after them.
	for i := range rows {
		if !rows[i].unreadable {
			x.seen(rows[i].tech.ExternalRef)
		}
	}
	firstEmail := map[string]int{}
	refCol := colIndex(Technicians, "external_ref")
	var assignIDs []int64
	var assignRefs []string
	for i := range rows {
		r := &rows[i]
		if r.unreadable {
			continue
		}
		in := &r.tech
		ref, email, name := in.ExternalRef, strings.TrimSpace(in.Email), in.Name
		lower := strings.ToLower(email)
		if email != "" {
			if first, dup := firstEmail[lower]; dup {
				r.problem(Problem{Column: "email", Code: CodeEmailRepeated, Value: email, Other: first},
					"email %s is also on row %d: each technician needs their own.", email, first)
			} else {
				firstEmail[lower] = r.planned.Row
			}
		}
		m := -1
		if ref != "" {
			if j, ok := x.byRef[ref]; ok {
				m = j
				for _, o := range x.byEmail[lower] {
					if o != m && email != "" {
						r.problem(Problem{Column: "email", Code: CodeEmailTaken, Value: email, Names: x.all[o].label()},
							"email %s is already the email of technician %s.", email, x.all[o].label())
						break
					}
				}
			}
		}
		emailRefused := false
		if m < 0 && email != "" {
			switch c := x.byEmail[lower]; {
			case len(c) > 1:
				emailRefused = true
				r.problem(Problem{Column: "email", Code: CodeTechnicianAmbiguous, Value: email, Count: len(c), Names: x.labels(c)},
					"%d technicians have the email %s: %s.", len(c), email, x.labels(c))
			case len(c) == 1 && ref != "" && x.all[c[0]].Ref != "":
				// Another reference, the same email: two records would share it.
				emailRefused = true
				r.problem(Problem{Column: "email", Code: CodeEmailTaken, Value: email, Names: x.all[c[0]].label()},
					"email %s is already the email of technician %s.", email, x.all[c[0]].label())
			case len(c) == 1:
				m = c[0]
			}
		}
		if m < 0 && !emailRefused && name != "" {
			// A name matches a record that has no other reference and no
			// other email: two people may share a name, not an email.
			var c []int
			for _, j := range x.byName[name] {
				t := x.all[j]
				if (ref == "" || t.Ref == "") && (email == "" || t.Email == "") {
					c = append(c, j)
				}
			}
			switch {
			case len(c) == 1:
				m = c[0]
			case len(c) > 1:
				r.problem(Problem{Column: "name", Code: CodeTechnicianAmbiguous, Value: name, Count: len(c), Names: x.labels(c)},
					"%d technicians are called %s: %s. Give each row the reference or email of the one it updates.", len(c), name, x.labels(c))
			}
		}
		r.planned.m.fileActive = in.Active
		if m < 0 {
			if ref == "" {
				in.ExternalRef = x.generate()
			}
			r.planned.m.state = "new"
		} else {
			t := &x.all[m]
			switch {
			case t.Ref != "":
				in.ExternalRef = t.Ref
			case ref == "":
				in.ExternalRef = x.generate()
				r.planned.m.assignRef = true
			default:
				r.planned.m.assignRef = true
			}
			base := "-"
			if t.BaseActive != nil {
				base = strconv.FormatBool(*t.BaseActive)
			}
			r.planned.m.state = fmt.Sprintf("%d/%d/%s", t.ID, t.Version, base)
			r.planned.m.baseKnown = t.BaseActive != nil && *t.BaseActive == in.Active
			if !o.overwrite && t.BaseActive != nil && t.Active != *t.BaseActive && in.Active != t.Active {
				r.planned.Kept = append(r.planned.Kept, Kept{Column: "active", Value: yesNo(t.Active), File: yesNo(in.Active)})
				in.Active = t.Active
			}
			ch := &r.planned.Changes
			if t.Ref != in.ExternalRef {
				*ch = append(*ch, Change{Column: "external_ref", Old: t.Ref, New: in.ExternalRef})
			}
			diff(ch, "name", t.Name, in.Name)
			diff(ch, "email", t.Email, email)
			diff(ch, "phone", t.Phone, in.Phone)
			diff(ch, "active", yesNo(t.Active), yesNo(in.Active))
			if in.Language != "" && !strings.EqualFold(in.Language, t.Language) && !strings.HasPrefix(strings.ToLower(in.Language), t.Language+"-") {
				*ch = append(*ch, Change{Column: "language", Old: t.Language, New: in.Language})
			}
			if r.planned.m.assignRef {
				if len(r.problems) == 0 {
					assignIDs, assignRefs = append(assignIDs, t.ID), append(assignRefs, in.ExternalRef)
				}
				// A later row matching the same technician gets the same
				// reference, which the batch refuses as repeated, naming
				// this row.
				t.Ref = in.ExternalRef
				x.byRef[t.Ref] = m
			}
		}
		if refCol >= 0 && refCol < len(r.planned.Values) {
			r.planned.Values[refCol] = in.ExternalRef
		}
	}
	if len(assignIDs) == 0 || !o.save {
		// A preview reads: it gives no reference, so it locks no
		// technician (plan leaves these rows out of its batch).
		return nil
	}
	// Matched technicians without a reference are given one, so that the
	// batch upsert (by reference) updates them; they keep it.
	if err := field.GiveReferences(ctx, tx, orgID, assignIDs, assignRefs); err != nil {
		return err
	}
	// Its own audit entry: the batch's "field.technician.import" counts a
	// technician whose only change is the reference as unchanged (the
	// reference was already there when the batch ran), the preview as
	// updated; with this entry the log has every change the preview showed.
	if err := audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "field.technician.import_reference",
		New: map[string]int{"given": len(assignIDs)}}); err != nil {
		return fmt.Errorf("give %d technicians of org %d a reference: %w", len(assignIDs), orgID, err)
	}
	return nil
}

func diff(ch *[]Change, col, old, new string) {
	if old != new {
		*ch = append(*ch, Change{Column: col, Old: old, New: new})
	}
}

func matchJobs(ctx context.Context, tx pgx.Tx, orgID int64, rows []parsedRow, x *techIndex, zone schedule.Zone, o planOpts) error {
	names := make(map[int64]string, len(x.all))
	for _, t := range x.all {
		names[t.ID] = t.Name
	}
	refs := make([]string, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		if r.unreadable {
			continue
		}
		if r.job.ExternalRef != "" {
			refs = append(refs, r.job.ExternalRef)
		}
		if v := r.job.TechnicianRef; v != "" {
			if a, ok := o.aliases[v]; ok {
				v = a
				if c := colIndex(Jobs, "technician_ref"); c < len(r.planned.Values) {
					r.planned.Values[c] = a
				}
			}
			j, pr, ok := x.resolve(v)
			if !ok {
				pr.Column = "technician_ref"
				r.problem(pr, "%s", pr.Message)
				continue
			}
			r.job.TechnicianRef, r.job.TechnicianID = "", x.all[j].ID
		}
	}
	stored, err := loadJobs(ctx, tx, orgID, refs, o.save)
	if err != nil {
		return err
	}
	for i := range rows {
		r := &rows[i]
		if r.unreadable {
			continue
		}
		in := &r.job
		r.planned.m.fileTech, r.planned.m.fileStatus = in.TechnicianID, in.Status
		s, ok := stored[in.ExternalRef]
		if !ok {
			r.planned.m.state = "new/" + strconv.FormatInt(in.TechnicianID, 10)
			continue
		}
		r.planned.m.state = fmt.Sprintf("%d/%d/%t/%d/%s/%d", s.ID, s.Version, s.Imported, s.BaseTechnicianID, s.BaseStatus, in.TechnicianID)
		r.planned.m.baseKnown = s.Imported && s.BaseTechnicianID == in.TechnicianID && s.BaseStatus == in.Status
		if len(r.problems) > 0 {
			continue
		}
		if s.Imported && !o.overwrite {
			if s.TechnicianID != s.BaseTechnicianID && in.TechnicianID != s.TechnicianID {
				r.planned.Kept = append(r.planned.Kept, Kept{Column: "technician_ref", Value: names[s.TechnicianID], File: names[in.TechnicianID]})
				in.TechnicianID = s.TechnicianID
			}
			if s.Status != s.BaseStatus && in.Status != s.Status {
				r.planned.Kept = append(r.planned.Kept, Kept{Column: "status", Value: s.Status, File: in.Status})
				in.Status = s.Status
			}
		}
		ch := &r.planned.Changes
		diff(ch, "customer", s.Customer, in.Customer)
		diff(ch, "address", s.Address, in.Address)
		diff(ch, "customer_phone", s.Phone, in.CustomerPhone)
		diff(ch, "date", schedule.DateOf(s.Start.In(zone.Loc)).String(), schedule.DateOf(in.ArrivalStart.In(zone.Loc)).String())
		if !s.Start.Equal(in.ArrivalStart) {
			*ch = append(*ch, Change{Column: "arrival_from", Old: clock(s.Start, zone), New: clock(in.ArrivalStart, zone)})
		}
		if !s.End.Equal(in.ArrivalEnd) {
			*ch = append(*ch, Change{Column: "arrival_to", Old: clock(s.End, zone), New: clock(in.ArrivalEnd, zone)})
		}
		diff(ch, "job_type", s.JobType, in.JobType)
		diff(ch, "status", s.Status, in.Status)
		if s.TechnicianID != in.TechnicianID {
			*ch = append(*ch, Change{Column: "technician_ref", Old: names[s.TechnicianID], New: names[in.TechnicianID]})
		}
		diff(ch, "emergency", yesNo(s.Emergency), yesNo(in.Emergency))
		diff(ch, "notes", s.Notes, in.Notes)
	}
	return nil
}

// saveBaselines records what this import set for the rows saved (batch):
// the file's values of the fields a person also changes in the app, even
// where a change made in fieldbrief was kept — so that change is still
// recognised as one at the next import.
func saveBaselines(ctx context.Context, tx pgx.Tx, orgID int64, k Kind, rows []parsedRow, all []int) error {
	// Rows whose baseline already says what the file says are left out:
	// a re-import of an unchanged file writes nothing here either.
	batch := make([]int, 0, len(all))
	for _, i := range all {
		if !rows[i].planned.m.baseKnown {
			batch = append(batch, i)
		}
	}
	if len(batch) == 0 {
		return nil
	}
	refs := make([]string, len(batch))
	if k == Technicians {
		active := make([]bool, len(batch))
		for j, i := range batch {
			refs[j], active[j] = rows[i].tech.ExternalRef, rows[i].planned.m.fileActive
		}
		return field.SetTechnicianBaselines(ctx, tx, orgID, refs, active)
	}
	techs, statuses := make([]int64, len(batch)), make([]string, len(batch))
	for j, i := range batch {
		refs[j], techs[j], statuses[j] = rows[i].job.ExternalRef, rows[i].planned.m.fileTech, rows[i].planned.m.fileStatus
	}
	return field.SetJobBaselines(ctx, tx, orgID, refs, techs, statuses)
}
