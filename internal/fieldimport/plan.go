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
}

// OK reports whether the file can be saved.
func (p *Plan) OK() bool { return len(p.Problems) == 0 }

// finish counts the actions, orders the problems and computes the digest:
// the file's hash, the zone its times were read in, and each row's action
// and stored values, so the same file meeting different data (a technician
// added since the preview, a job edited, another zone) has another digest.
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
		h.Write([]byte(strconv.Itoa(r.Row) + "\x00" + string(r.Action) + "\x00"))
		for _, v := range r.Values {
			h.Write([]byte(strconv.Itoa(len(v)) + ":" + v))
		}
	}
	p.Digest = hex.EncodeToString(h.Sum(nil))
}
