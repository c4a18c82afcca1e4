package fieldimport

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// ErrChanged: the data changed between the preview and the save (a
// technician added, a job edited, the org's zone changed), so saving now
// would not be what was previewed. Nothing was saved; the new preview comes
// with it.
var ErrChanged = apperr.Refuse(apperr.Conflict, "import_changed", nil)

// ErrNotSaveable: the file has errors; nothing was saved.
var ErrNotSaveable = apperr.Refuse(apperr.Invalid, "import_not_saveable", nil)

// Preview is what saving up would do now, computed by doing it in a
// transaction that is rolled back: the preview's "new", "update" and
// "unchanged" are the batch upsert's own answers, not a second opinion.
// now is the caller's clock, which the batch writes at. With overwrite
// the file's values also go to fields changed in fieldbrief since the last
// import; without it those fields keep the app's values.
func (s *Store) Preview(ctx context.Context, up Upload, zone schedule.Zone, now time.Time, overwrite bool) (Plan, error) {
	tx, err := database.Begin(ctx, s.DB)
	if err != nil {
		return Plan{}, fmt.Errorf("preview import: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a rollback is the point
	return plan(ctx, tx, audit.Actor{}, up, zone, planOpts{overwrite: overwrite, now: now})
}

// Save imports the user's upload id in one transaction, all or nothing, if
// it still does what the preview with that digest showed; the upload is
// used up. The plan returned is what was saved, or, with ErrChanged or
// ErrNotSaveable, the new preview. With overwrite, fields changed in
// fieldbrief since the last import are overwritten too (the preview's
// digest is the same either way). Saves of one org's imports take turns
// (lockImports) and lock the rows they match, so of two overlapping saves
// at once exactly one commits; the other finds the rows changed and
// answers ErrChanged with the new preview.
func (s *Store) Save(ctx context.Context, actor audit.Actor, orgID, userID int64, kind Kind, id, digest string, zone schedule.Zone, now time.Time, overwrite bool) (Plan, error) {
	var p Plan
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if err := lockImports(ctx, tx, orgID); err != nil {
			return err
		}
		up, err := takeUpload(ctx, tx, orgID, userID, kind, id, now)
		if err != nil {
			return err
		}
		if p, err = plan(ctx, tx, actor, up, zone, planOpts{overwrite: overwrite, save: true, now: now}); err != nil {
			return err
		}
		switch {
		case !p.OK():
			return ErrNotSaveable
		case p.Digest != digest:
			return ErrChanged
		}
		return nil
	})
	return p, err
}

// takeUpload deletes and returns the upload, locking it: of two saves of
// one upload at once, the second finds it gone.
func takeUpload(ctx context.Context, tx pgx.Tx, orgID, userID int64, kind Kind, id string, now time.Time) (Upload, error) {
	up := Upload{ID: id, OrgID: orgID, UserID: userID, Kind: kind}
	var sum []byte
	var delim string
	err := tx.QueryRow(ctx, `
		DELETE FROM csv_uploads
		 WHERE id = $1 AND org_id = $2 AND user_id = $3 AND kind = $4 AND expires_at > $5
		RETURNING filename, content, sha256, created_at, expires_at, delimiter, technician_aliases`,
		id, orgID, userID, string(kind), now).Scan(&up.Filename, &up.Content, &sum, &up.CreatedAt, &up.ExpiresAt, &delim, &up.Aliases)
	if errors.Is(err, pgx.ErrNoRows) {
		return Upload{}, errUploadGone
	}
	if err != nil {
		return Upload{}, fmt.Errorf("take upload of org %d: %w", orgID, err)
	}
	copy(up.SHA256[:], sum)
	up.Delimiter = ParseDelimiter(delim)
	return up, nil
}

// plan reads the upload, checks every row and runs the batch upsert in tx,
// which the caller commits (save) or rolls back (preview).
func plan(ctx context.Context, tx pgx.Tx, actor audit.Actor, up Upload, zone schedule.Zone, o planOpts) (Plan, error) {
	tab, cr, err := readUpload(ctx, tx, up) // CSVIN: encoding, delimiter, columns step, dates in the org's locale
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Kind: up.Kind, Filename: up.Filename, Expires: up.ExpiresAt, Problems: tab.Problems, Skipped: tab.Skipped, Overwrite: o.overwrite}
	for _, c := range Columns(up.Kind) {
		p.Columns = append(p.Columns, c.Name)
	}
	unreadable := map[int]bool{} // rows with a problem Read found (a cell not UTF-8, a column too many)
	headerBlocks := false        // a field missing or ambiguous: no row is run (blocksRows)
	for _, pr := range tab.Problems {
		unreadable[pr.Row] = true
		headerBlocks = headerBlocks || blocksRows(pr)
	}
	rows := make([]parsedRow, len(tab.Records))
	firstRow := map[string]int{}
	for i, rec := range tab.Records {
		if up.Kind == Technicians {
			rows[i] = parseTechnician(rec)
		} else {
			rows[i] = parseJob(rec, zone, cr)
		}
		// A header problem (a required column missing) leaves every row
		// out of the batch: its rows are checked but not upserted.
		rows[i].unreadable = unreadable[rec.Row]
		rows[i].blocked = headerBlocks
		// Duplicates are found here, in the file's row numbers; the batch
		// then never sees one.
		if ref := rec.Cells["external_ref"]; ref != "" {
			if first, dup := firstRow[ref]; dup {
				rows[i].problem(Problem{Column: "external_ref", Code: field.CodeRefRepeated, Value: ref, Other: first},
					"external_ref %q is also on row %d: each row needs its own.", ref, first)
			} else {
				firstRow[ref] = rec.Row
			}
		}
	}
	// Rows meet what is stored: technicians matched and named, jobs'
	// current values and what the last import set (match.go, apply.go).
	o.aliases = up.Aliases
	if err := match(ctx, tx, actor, up.OrgID, up.Kind, rows, zone, o); err != nil {
		return Plan{}, err
	}
	// Rows with a problem of the file's are "error"; the others go to the
	// batch. When the batch finds problems of its own, those rows become
	// "error" too and the batch runs again without them, so every row that
	// can be saved shows what saving does to it.
	for {
		var batch []int // indexes into rows
		// The references a preview leaves out of its batch (below), for
		// the batch's check that no two rows share one.
		given := map[string]int{} // reference → index into rows
		for i := range rows {
			if !rows[i].batchable() {
				continue
			}
			ref := rows[i].tech.ExternalRef
			if first, ok := given[ref]; ok && !o.save && up.Kind == Technicians {
				col := columnOf(up.Kind, "external_ref")
				rows[i].problem(Problem{Column: col, Code: field.CodeRefRepeated, Value: ref, Other: rows[first].planned.Row},
					"%s", sentence(col, fmt.Sprintf("%q is also used by row %d", ref, rows[first].planned.Row)))
				continue
			}
			if !o.save && rows[i].planned.m.assignRef {
				given[ref] = i
				// A matched technician the save gives a reference: it
				// updates them (it is an update whatever else changes,
				// below), and the preview, which gives none, checks the
				// row as the batch would instead of writing it.
				rows[i].planned.Action = Update
				rows[i].tech.Normalize()
				if err := rows[i].tech.Validate(); err != nil {
					var ve *field.ValidationError
					if !errors.As(err, &ve) {
						return Plan{}, err
					}
					for _, name := range slices.Sorted(maps.Keys(ve.Fields)) {
						fp, _ := ve.Problem(name)
						col := columnOf(up.Kind, name)
						rows[i].problem(Problem{Column: col, Code: fp.Code, Value: fp.Value, Limit: fp.Limit}, "%s", sentence(col, ve.Fields[name]))
					}
				}
				continue
			}
			batch = append(batch, i)
		}
		res, err := upsert(ctx, tx, actor, o.now, up.Kind, up.OrgID, rows, batch)
		var be *field.BatchError
		if errors.As(err, &be) {
			for _, re := range be.Rows {
				r := &rows[batch[re.Row]]
				col := columnOf(up.Kind, re.Field)
				p := Problem{Column: col, Code: re.Code, Value: re.Value, Limit: re.Limit}
				if re.Code == field.CodeRefRepeated {
					p.Other = rows[batch[re.Other]].planned.Row // the file's row, not the batch's index
				}
				r.problem(p, "%s", sentence(col, re.Message))
			}
			continue
		}
		if err != nil {
			return Plan{}, err
		}
		for j, i := range batch {
			rows[i].planned.Action = actionOf(res.Outcomes[j])
			if rows[i].planned.m.assignRef && rows[i].planned.Action == Unchanged {
				rows[i].planned.Action = Update // it was given a reference
			}
		}
		if o.save {
			if err := saveBaselines(ctx, tx, up.OrgID, up.Kind, rows, batch); err != nil {
				return Plan{}, err
			}
		}
		break
	}
	// Rows the batch did not run are still checked value by value, so the
	// first preview has every problem of the file (a bad status beside a
	// bad date, on a row whose technician is unknown).
	present := map[string]bool{}
	for _, h := range tab.Header {
		present[h] = true
	}
	for _, pr := range tab.Problems {
		if pr.Row > 1 && pr.Column != "" {
			present[fmt.Sprint(pr.Row, "/", pr.Column)] = true
		}
	}
	for i := range rows {
		if !rows[i].batchable() {
			if err := rows[i].checkValues(up.Kind, present); err != nil {
				return Plan{}, err
			}
		}
	}
	p.Rows = make([]PlannedRow, len(rows))
	for i, r := range rows {
		if !r.batchable() {
			r.planned.Action = Invalid
			p.Problems = append(p.Problems, r.problems...)
		}
		p.Rows[i] = r.planned
	}
	p.Reading = readingOf(tab, cr)
	p.finish(up.SHA256, zone.Name)
	p.advise(zone, o.now)
	return p, nil
}

// upsert runs internal/field's batch upsert on the rows at batch.
func upsert(ctx context.Context, tx pgx.Tx, actor audit.Actor, now time.Time, k Kind, orgID int64, rows []parsedRow, batch []int) (field.BatchResult, error) {
	if len(batch) == 0 {
		return field.BatchResult{}, nil
	}
	if k == Technicians {
		ins := make([]field.TechnicianInput, len(batch))
		for j, i := range batch {
			ins[j] = rows[i].tech
		}
		return field.UpsertTechniciansByRef(ctx, tx, actor, orgID, ins)
	}
	ins := make([]field.JobInput, len(batch))
	for j, i := range batch {
		ins[j] = rows[i].job
	}
	return field.UpsertJobsByRef(ctx, tx, actor, now, orgID, ins)
}

// sentence makes one of field's messages ("is required", "must be one
// of …", or a whole clause) a sentence about the column.
func sentence(col, msg string) string {
	for _, p := range []string{"is ", "must ", "give "} {
		if strings.HasPrefix(msg, p) {
			return col + " " + msg + "."
		}
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

func actionOf(o field.Outcome) Action {
	switch o {
	case field.Created:
		return Create
	case field.Updated:
		return Update
	}
	return Unchanged
}
