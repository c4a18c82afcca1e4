package fieldimport

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/pglock"
	"fieldbrief/internal/schedule"
)

// Matching a file's rows to what is stored (docs/field-data.md,
// "Matching rows to records"): technicians by
// reference, else by email (case-insensitive), else by a unique exact
// name, as Jobber's and Housecall Pro's importers do; jobs by reference.
// What a matched record holds now is read here too, for the preview's
// old → new and for the fields changed in fieldbrief since the last import.

// Problem codes of matching (CSVM).
const (
	CodeTechnicianNotFound  = "technician_not_found" // Value: the cell (a name, an email or a reference)
	CodeTechnicianAmbiguous = "technician_ambiguous" // Value: the name or email; Count: how many have it; Names: who
	CodeEmailRepeated       = "email_repeated"       // Value: the email; Other: the row that has it first
	CodeEmailTaken          = "email_taken"          // Value: the email; Names: the technician who has it
)

// storedTech is one of the org's technicians as matching needs it.
type storedTech struct{ field.ImportedTechnician }

// label names a technician in a message: its reference, else its email,
// else its name.
func (t storedTech) label() string {
	return cmpOr(t.Ref, t.Email, t.Name)
}

func cmpOr(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// techIndex is the org's technicians (at most field.MaxTechnicians), by
// each key a file may name them by.
type techIndex struct {
	all     []storedTech
	byRef   map[string]int
	byEmail map[string][]int // lower-cased
	byName  map[string][]int
	maxSeq  int // the highest n of a reference "T-n" (generated references continue from it)
}

// loadTechnicians reads the org's technicians; lock takes their rows for
// the saving transaction (a technicians import that matches by email or
// name must not meet a record changed under it).
func loadTechnicians(ctx context.Context, q database.Querier, orgID int64, lock bool) (*techIndex, error) {
	imported, err := field.ImportedTechnicians(ctx, q, orgID, lock)
	if err != nil {
		return nil, err
	}
	all := make([]storedTech, len(imported))
	for i, t := range imported {
		all[i] = storedTech{t}
	}
	// Locked in id order (as every locker of several technicians), listed
	// oldest first: a message naming two technicians names them in the
	// order they were made, as ids carry no order (docs/security.md,
	// "Ids and ETags").
	slices.SortStableFunc(all, func(a, b storedTech) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.label(), b.label()))
	})
	idx := &techIndex{byRef: map[string]int{}, byEmail: map[string][]int{}, byName: map[string][]int{}}
	for _, t := range all {
		i := len(idx.all)
		idx.all = append(idx.all, t)
		if t.Ref != "" {
			idx.byRef[t.Ref] = i
			idx.seen(t.Ref)
		}
		if t.Email != "" {
			e := strings.ToLower(t.Email)
			idx.byEmail[e] = append(idx.byEmail[e], i)
		}
		idx.byName[t.Name] = append(idx.byName[t.Name], i)
	}
	return idx, nil
}

var generatedRef = regexp.MustCompile(`^T-([0-9]{1,9})$`)

// seen notes a reference, so that generated ones never take it.
func (x *techIndex) seen(ref string) {
	if m := generatedRef.FindStringSubmatch(ref); m != nil {
		if n, _ := strconv.Atoi(m[1]); n > x.maxSeq {
			x.maxSeq = n
		}
	}
}

// generate is the next generated reference: "T-" and one more than the
// highest such number in the org and the file. It depends only on what is
// stored and on the file, so the preview and the save make the same one;
// it is kept for good (the record is matched by it afterwards).
func (x *techIndex) generate() string {
	x.maxSeq++
	return "T-" + strconv.Itoa(x.maxSeq)
}

// labels names the technicians at idxs: "T-1, T-7".
func (x *techIndex) labels(idxs []int) string {
	out := make([]string, len(idxs))
	for i, j := range idxs {
		out[i] = x.all[j].label()
	}
	return strings.Join(out, ", ")
}

// resolve finds the technician a jobs file names in its technician column:
// a reference, else an email (case-insensitive), else an exact name.
// ok false comes with the problem (without its row).
func (x *techIndex) resolve(v string) (int, Problem, bool) {
	if i, ok := x.byRef[v]; ok {
		return i, Problem{}, true
	}
	if c := x.byEmail[strings.ToLower(v)]; strings.Contains(v, "@") && len(c) > 0 {
		if len(c) == 1 {
			return c[0], Problem{}, true
		}
		return -1, Problem{Code: CodeTechnicianAmbiguous, Value: v, Count: len(c), Names: x.labels(c),
			Message: fmt.Sprintf("%d technicians have the email %s: %s. Name one by its reference.", len(c), v, x.labels(c))}, false
	}
	switch c := x.byName[v]; len(c) {
	case 0:
		p := Problem{Code: CodeTechnicianNotFound, Value: v,
			Message: fmt.Sprintf("No technician of this org has the name, email or reference %q.", v)}
		if j, ok := x.suggest(v); ok {
			p.Suggest, p.SuggestName = x.all[j].label(), x.all[j].Name
			p.Message += fmt.Sprintf(" Did you mean %s (%s)?", p.Suggest, p.SuggestName)
		}
		return -1, p, false
	case 1:
		return c[0], Problem{}, true
	default:
		return -1, Problem{Code: CodeTechnicianAmbiguous, Value: v, Count: len(c), Names: x.labels(c),
			Message: fmt.Sprintf("%d technicians are called %s: %s. Name one by its reference or email.", len(c), v, x.labels(c))}, false
	}
}

// storedJob is one of the org's jobs a file names by reference, as it is
// now and as the last import left its assignment and status.
type storedJob = field.ImportedJob

// loadJobs reads the org's jobs with refs, locked for a save: the board's
// quick changes wait until the import commits, so what the preview called
// "changed in fieldbrief" cannot change under the save.
func loadJobs(ctx context.Context, q database.Querier, orgID int64, refs []string, lock bool) (map[string]storedJob, error) {
	return field.ImportedJobs(ctx, q, orgID, refs, lock)
}

// lockImports serialises the saves of one org's imports (both kinds: a
// jobs file names technicians): a second save waits for the first to
// commit, then plans against what it wrote, so its digest differs and it
// answers 409 with the new preview rather than "created" twice.
func lockImports(ctx context.Context, q database.Querier, orgID int64) error {
	if err := pglock.XactLock(ctx, q, pglock.LockImports, orgID); err != nil {
		return fmt.Errorf("lock imports of org %d: %w", orgID, err)
	}
	return nil
}

// clock is how a preview writes a stored instant: "08:00 EST", like the
// file's times once read.
func clock(t time.Time, z schedule.Zone) string {
	t = t.In(z.Loc)
	return t.Format("15:04") + " " + schedule.ZoneAbbr(t)
}

// squash is a reference or name as a near miss is compared: lower case,
// accents, spaces and punctuation dropped ("T1", "t-1" and "T 1" are
// "t1"; "Dana O'Neil" is "danaoneil").
func squash(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// minPrefix is the shortest cell offered a technician whose name it
// begins: "Da" names too many people to guess.
const minPrefix = 3

// suggest is the one active technician a cell that names nobody most
// likely means (docs/field-data.md, "Preview, then save"): a reference
// or name that differs only in case, spacing or punctuation ("T1" for
// "T-1"), else the only name that begins with it ("Dana" for "Dana
// O'Neil"). None when two could be meant: a guess must be unique.
func (x *techIndex) suggest(v string) (int, bool) {
	sv := squash(v)
	if sv == "" {
		return -1, false
	}
	unique := func(keep func(t storedTech) bool) (int, bool) {
		found := -1
		for i, t := range x.all {
			if !t.Active || !keep(t) {
				continue
			}
			if found >= 0 {
				return -1, false
			}
			found = i
		}
		return found, found >= 0
	}
	if i, ok := unique(func(t storedTech) bool { return t.Ref != "" && squash(t.Ref) == sv }); ok {
		return i, true
	}
	if i, ok := unique(func(t storedTech) bool { return squash(t.Name) == sv }); ok {
		return i, true
	}
	if len([]rune(sv)) < minPrefix {
		return -1, false
	}
	return unique(func(t storedTech) bool { return strings.HasPrefix(squash(t.Name), sv) })
}
