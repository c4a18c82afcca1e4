package fieldimport

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"time"

	"fieldbrief/internal/schedule"
)

// Action is what saving does to one row.
type Action string

const (
	Create    Action = "create"
	Update    Action = "update"
	Unchanged Action = "unchanged"
	Invalid   Action = "error" // the row has problems: the file can't be saved
)

// PlannedRow is one data row as it will be saved.
type PlannedRow struct {
	Row    int
	Action Action
	Values []string // as stored, aligned with Plan.Columns
	Notes  []string // in English, e.g. an ambiguous local time and the occurrence taken
	Twice  []Twice  // the same notes as data, for pages in the reader's words
	// Times are the instants of the row's time columns that were read
	// (arrival_from, arrival_to), for pages that write them in the
	// reader's clock; Values has them as "08:00 EST".
	Times map[string]time.Time
	// Changes: an update row's fields that saving changes, old → new
	// (stored formats, like Values). Kept: fields changed in fieldbrief
	// since the last import that saving keeps (Values shows the kept
	// value, File the file's); empty when the plan overwrites them.
	Changes []Change
	Kept    []Kept
	m       matchState
}

// Change is one field of an update row: what it is now and what saving
// makes it.
type Change struct {
	Column   string
	Old, New string
}

// Kept is a field changed in fieldbrief since the last import that saving
// leaves as it is (docs/field-data.md, "Updates: old → new, and changes
// made in fieldbrief are kept"): Value is the kept one, File the file's,
// which "overwrite changes made in fieldbrief" would save.
type Kept struct {
	Column      string
	Value, File string
}

// matchState is what a row met when it was planned: the stored record it
// matched (id, version, what the last import set) and how the file's
// technician was resolved. The digest covers it, so a save goes ahead only
// if every affected row is still as the preview found it.
type matchState struct {
	state      string
	assignRef  bool   // a matched technician without a reference gets the row's
	fileTech   int64  // the job's technician as the file gives it (resolved)
	fileStatus string // the job's status as the file gives it
	fileActive bool   // the technician's active as the file gives it
	baseKnown  bool   // the stored baseline already holds the file's values
}

// Twice is a typed local time that happens twice that night (clocks go
// back): First, its first occurrence, was taken.
type Twice struct {
	Column string
	Date   schedule.Date
	At     schedule.LocalTime
	First  time.Time
}

// Plan is the preview: every row as it will be saved and every problem.
// Saving recomputes it in the saving transaction and goes ahead only when
// its Digest is the one the preview showed.
type Plan struct {
	Kind                        Kind
	Filename                    string
	Expires                     time.Time // when the upload is dropped
	Columns                     []string
	Rows                        []PlannedRow
	Problems                    []Problem // by row, then column in format order
	Skipped                     int
	Created, Updated, Unchanged int
	Digest                      string
	Reading                     Reading // how the file was read (CSVIN: remember.go)
	// Overwrite: fields changed in fieldbrief since the last import are
	// given the file's values too. KeptRows counts the rows that keep such
	// a change (when not overwriting), KeptColumns names their fields.
	Overwrite   bool
	KeptRows    int
	KeptColumns []string
	// Suggestions: technician cells that name nobody but are close to one
	// technician, with the rows that have them (docs/field-data.md,
	// "Preview, then save"). Past: the rows of jobs dated before today in
	// the org's zone (a warning: an office may be entering last week's
	// work, but more often the file's dates are read wrong).
	Suggestions []Suggestion
	Past        []int
	Today       schedule.Date
}

// Suggestion is "did you mean T-1 (Dana O'Neil)?" for every row whose
// technician cell is Value.
type Suggestion struct {
	Value     string // the file's cell
	Ref, Name string // the technician meant: what to read Value as, and their name
	Rows      []int
}

// OK reports whether the file can be saved.
func (p *Plan) OK() bool { return len(p.Problems) == 0 }

// Nothing reports whether saving would change nothing: every row is
// already as the file says (and no change made in fieldbrief would be
// overwritten). The preview then says so and offers no save.
func (p *Plan) Nothing() bool {
	return p.OK() && p.Created == 0 && p.Updated == 0 && p.KeptRows == 0
}

// advise collects the suggestions and the rows dated in the past.
func (p *Plan) advise(zone schedule.Zone, now time.Time) {
	by := map[string]int{}
	for _, pr := range p.Problems {
		if pr.Suggest == "" {
			continue
		}
		i, ok := by[pr.Value]
		if !ok {
			i = len(p.Suggestions)
			by[pr.Value] = i
			p.Suggestions = append(p.Suggestions, Suggestion{Value: pr.Value, Ref: pr.Suggest, Name: pr.SuggestName})
		}
		p.Suggestions[i].Rows = append(p.Suggestions[i].Rows, pr.Row)
	}
	if p.Kind != Jobs || now.IsZero() {
		return
	}
	p.Today = schedule.DateOf(now.In(zone.Loc))
	for _, r := range p.Rows {
		if t, ok := r.Times["arrival_from"]; ok && schedule.DateOf(t.In(zone.Loc)).Before(p.Today) {
			p.Past = append(p.Past, r.Row)
		}
	}
}

// finish counts the actions, orders the problems and computes the digest:
// the file's hash, the zone its times were read in, each row's values as
// the file gives them and the state of the record it meets (its id and
// version, what the last import set, the technician its name resolved
// to), so the same file meeting different data (a technician added since
// the preview, a job edited or assigned on the board, another import
// saved first, another zone) has another digest. The actions are not in
// it: they follow from those, and they differ with "overwrite changes made
// in fieldbrief", which the admin ticks after the preview.
func (p *Plan) finish(fileSum [32]byte, zone string) {
	order := map[string]int{}
	for i, c := range Columns(p.Kind) {
		order[c.Name] = i + 1
	}
	slices.SortStableFunc(p.Problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Row, b.Row), cmp.Compare(order[a.Column], order[b.Column]))
	})
	p.Created, p.Updated, p.Unchanged = 0, 0, 0
	h := sha256.New()
	h.Write(fileSum[:])
	h.Write([]byte(zone + "\x00"))
	for _, r := range p.Rows {
		switch r.Action {
		case Create:
			p.Created++
		case Update:
			p.Updated++
		case Unchanged:
			p.Unchanged++
		}
		h.Write([]byte(strconv.Itoa(r.Row) + "\x00" + r.m.state + "\x00"))
		if r.Action == Invalid {
			h.Write([]byte("!"))
		}
		for _, v := range r.Values {
			h.Write([]byte(strconv.Itoa(len(v)) + ":" + v))
		}
	}
	p.Digest = hex.EncodeToString(h.Sum(nil))
	// Then the page's values: a kept field shows what stays.
	cols := map[string]int{}
	for i, c := range p.Columns {
		cols[c] = i
	}
	kept := map[string]bool{}
	p.KeptRows, p.KeptColumns = 0, nil
	for i := range p.Rows {
		r := &p.Rows[i]
		if len(r.Kept) > 0 && r.Action != Invalid {
			p.KeptRows++
		}
		for _, k := range r.Kept {
			if j, ok := cols[k.Column]; ok && j < len(r.Values) {
				r.Values[j] = k.Value
			}
			kept[k.Column] = true
		}
	}
	for _, c := range p.Columns {
		if kept[c] {
			p.KeptColumns = append(p.KeptColumns, c)
		}
	}
}
