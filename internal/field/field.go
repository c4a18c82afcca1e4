// Package field holds an org's field data: technicians and the jobs
// (customer visits) they are assigned to. It is the one place that reads and
// writes them and the one set of validation rules, shared by the screens, the
// CSV import and the JSON API (docs/field-data.md). Every statement carries
// the org key; another org's ids are not found.
package field

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/text"
)

// Job statuses.
const (
	StatusScheduled  = "scheduled"
	StatusInProgress = "in_progress"
	StatusOnHold     = "on_hold"
	StatusDone       = "done"
	StatusCancelled  = "cancelled"
)

// Statuses lists the statuses in the order a job usually goes through them.
var Statuses = []string{StatusScheduled, StatusInProgress, StatusOnHold, StatusDone, StatusCancelled}

// Open reports whether a job of this status is still to be worked:
// neither done nor cancelled. This is the open-job rule; openJobSQL is
// the same rule for the database (and the partial index jobs_org_open_idx
// of migration 00023), and TestOpenRuleAgrees pins the two.
func Open(status string) bool { return status != StatusDone && status != StatusCancelled }

// openJobSQL is Open over jobs j.
const openJobSQL = `j.status NOT IN ('done', 'cancelled')`

// Unassigned reports whether the job needs someone: it has no technician,
// or its technician is inactive (a deactivated technician's jobs need
// someone else). This is the unassigned rule the board, the day's reads
// and the briefing's snapshot all follow; unassignedSQL is the same rule
// for the database, and TestUnassignedRuleAgrees pins the two.
func (j Job) Unassigned() bool { return j.TechnicianID == 0 || !j.TechnicianActive }

// Route is the route the job is on: its technician's id, or 0 when it is
// Unassigned. routeSQL is the same for the database.
func (j Job) Route() int64 {
	if j.Unassigned() {
		return 0
	}
	return j.TechnicianID
}

// unassignedSQL is Unassigned over jobs j LEFT JOIN technicians t (jobFrom).
const unassignedSQL = `(t.id IS NULL OR NOT t.active)`

// routeSQL is Route over jobs j LEFT JOIN technicians t (jobFrom).
const routeSQL = `CASE WHEN ` + unassignedSQL + ` THEN 0 ELSE j.technician_id END`

// ValidStatus reports whether s is one of Statuses.
func ValidStatus(s string) bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// Field limits, in characters (runes). The database checks the newer
// columns too, as a last line; these give the message naming the field.
const (
	MaxName        = text.MaxNameLen
	MaxCustomer    = 200
	MaxAddress     = 500
	MaxNotes       = 4000
	MaxPhone       = 40
	MaxEmail       = text.MaxAddressLen
	MaxExternalRef = 100
	MaxJobType     = 80
)

// Technician is a person who goes out to jobs.
type Technician struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Email       string    `json:"email"`
	Phone       string    `json:"phone"`
	Active      bool      `json:"active"`
	ExternalRef string    `json:"external_ref,omitempty"` // "" = none
	Language    string    `json:"language"`               // their language (i18n.Languages), "" = the org's
	Jobs        int       `json:"-"`                      // how many jobs reference them (lists only)
	Version     int64     `json:"version"`                // goes up with every change a person sees (docs/versions.md)
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// DaySheetsStoppedAt is when the technician asked not to receive their
	// day sheets (docs/delivery.md, "Stopping day sheets"); nil = they
	// receive them. Set and cleared only by SetDaySheets, audited apart.
	DaySheetsStoppedAt *time.Time `json:"-"`
}

// TechnicianInput is a technician as submitted, before validation.
type TechnicianInput struct {
	Name        string
	Email       string
	Phone       string
	Active      bool
	ExternalRef string
	Language    string // "" = the org's; "es", "es-US" (its language) or "ES" are read as "es"
	// Version is the version the change was read at: an update of a
	// technician whose version is another is refused as apperr.Stale and
	// saves nothing. 0 = whatever it is now (last write wins).
	Version int64
}

// Job is one customer visit.
type Job struct {
	ID             int64     `json:"id"`
	ExternalRef    string    `json:"external_ref,omitempty"`
	Customer       string    `json:"customer"`
	CustomerPhone  string    `json:"customer_phone"`
	Address        string    `json:"address"`
	ArrivalStart   time.Time `json:"arrival_start"`
	ArrivalEnd     time.Time `json:"arrival_end"`
	JobType        string    `json:"job_type"`
	Notes          string    `json:"notes"`
	Emergency      bool      `json:"emergency"`
	Status         string    `json:"status"`
	TechnicianID   int64     `json:"technician_id,omitempty"` // 0 = unassigned
	TechnicianRef  string    `json:"technician_ref,omitempty"`
	TechnicianName string    `json:"technician_name,omitempty"`
	// TechnicianActive: the technician is active (false without one); read
	// for Unassigned, not part of the job's record.
	TechnicianActive bool       `json:"-"`
	CompletedAt      *time.Time `json:"completed_at"`
	Version          int64      `json:"version"` // goes up with every change a person sees (docs/versions.md)
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
}

// JobInput is a job as submitted, before validation. The assignee is
// either TechnicianID (screens) or TechnicianRef (CSV, API), never both;
// neither means unassigned. Arrival times are instants: local times are read
// before this (schedule.ParseLocalDateTime), so the rule for DST gaps and
// overlaps is applied once, where the zone is known.
type JobInput struct {
	ExternalRef   string
	Customer      string
	CustomerPhone string
	Address       string
	ArrivalStart  time.Time
	ArrivalEnd    time.Time
	JobType       string
	Notes         string
	Emergency     bool
	Status        string // "" = scheduled
	TechnicianID  int64
	TechnicianRef string
	// Version is the version the change was read at: an update of a job
	// whose version is another is refused as apperr.Stale and saves
	// nothing. 0 = whatever it is now (last write wins).
	Version int64
}

// ValidationError is bad input: a message per field, named as the API and
// the forms name them. Nothing was saved. It is an apperr Invalid error, so
// it maps to 422 wherever errors are mapped.
type ValidationError struct {
	Fields map[string]string
	// Problems has the code and parameters of each field's problem, for
	// callers that say it in their own words; a field without one (made
	// by a caller from its own English message) has only Fields.
	Problems map[string]Problem
}

func (e *ValidationError) Error() string {
	names := make([]string, 0, len(e.Fields))
	for n := range e.Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ": " + e.Fields[n]
	}
	return "invalid " + strings.Join(parts, "; ")
}

// Unwrap makes the error an apperr Invalid one with a problem per field,
// in the order of their names.
func (e *ValidationError) Unwrap() error {
	names := slices.Sorted(maps.Keys(e.Fields))
	fields := make([]apperr.Field, len(names))
	for i, n := range names {
		fields[i] = apperr.Field{Name: n, Code: e.Problems[n].Code, Message: e.Fields[n]}
	}
	return &apperr.Error{Code: apperr.Invalid, Message: e.Error(), Fields: fields}
}

// For returns the message for one field, "" when it is fine.
func (e *ValidationError) For(field string) string { return e.Fields[field] }

// Problem returns the code and parameters of one field's problem; ok is
// false when it has none (or the problem has no code).
func (e *ValidationError) Problem(field string) (p Problem, ok bool) {
	p, ok = e.Problems[field]
	if !ok || p.Code == "" {
		if msg, has := e.Fields[field]; has {
			return Problem{Message: msg}, false
		}
		return Problem{}, false
	}
	return p, true
}

// staleError is the error of an update over a newer version than the one it
// was read at (Version of the inputs): code apperr.Stale, 409 on a page.
// The API turns it into 412 for a stale If-Match.
func staleError(what string) error {
	if what == "job" {
		return apperr.Refuse(apperr.Stale, "job_stale", nil)
	}
	return apperr.Refuse(apperr.Stale, "technician_stale", nil)
}

// fieldError is a ValidationError about one field.
func fieldError(field string, p Problem) *ValidationError {
	return &ValidationError{Fields: map[string]string{field: p.Message}, Problems: map[string]Problem{field: p}}
}

// problem is a Problem with its English message.
func problem(code, format string, args ...any) Problem {
	return Problem{Code: code, Message: fmt.Sprintf(format, args...)}
}

// checker collects the first problem of each field.
type checker map[string]Problem

func (c checker) add(field string, p Problem) {
	if _, ok := c[field]; !ok {
		c[field] = p
	}
}

// has reports whether field has a problem already.
func (c checker) has(field string) bool {
	_, ok := c[field]
	return ok
}

func (c checker) err() error {
	if len(c) == 0 {
		return nil
	}
	ve := &ValidationError{Fields: make(map[string]string, len(c)), Problems: map[string]Problem(c)}
	for f, p := range c {
		ve.Fields[f] = p.Message
	}
	return ve
}

// text checks one text field: valid UTF-8, no NUL or control characters
// (multiline fields may hold line breaks and tabs), at most max characters,
// and present when required.
func (c checker) text(field, v string, max int, required, multiline bool) {
	switch {
	case !utf8.ValidString(v):
		c.add(field, problem(CodeNotUTF8, "is not valid UTF-8 text"))
	case strings.ContainsFunc(v, func(r rune) bool { return controlChar(r, multiline) }):
		c.add(field, problem(CodeControlChars, "must not contain control characters"))
	case required && strings.TrimSpace(v) == "":
		c.add(field, problem(CodeRequired, "is required"))
	case utf8.RuneCountInString(v) > max:
		p := problem(CodeTooLong, "is too long: at most %d characters", max)
		p.Limit = max
		c.add(field, p)
	}
}

// controlChar is text.IsControl, except that line breaks and tabs are
// allowed in multiline fields.
func controlChar(r rune, multiline bool) bool {
	if multiline && (r == '\n' || r == '\r' || r == '\t') {
		return false
	}
	return text.IsControl(r)
}

func (c checker) email(field, v string) {
	c.text(field, v, MaxEmail, false, false)
	if v == "" || c.has(field) {
		return
	}
	// text.NormalizeRecipient: we mail technicians their day, so never
	// to an IP literal or an internal or dotless domain (docs/security.md, "Email addresses we send to").
	a, err := text.NormalizeRecipient(v)
	if code, ok := notPublic[text.AddressCode(err)]; ok && err != nil {
		c.add(field, problem(code, "is not an address at a public domain: %s", err.Error()))
	} else if err != nil || a != v {
		c.add(field, problem(CodeEmailInvalid, "is not an email address like name@example.com"))
	}
}

// notPublic are the address codes of a well-formed address we never send
// to, with the problem codes that say why.
var notPublic = map[string]string{
	text.CodeAddressIP:       CodeEmailIPLiteral,
	text.CodeAddressDotless:  CodeEmailDotless,
	text.CodeAddressInternal: CodeEmailInternal,
}

// lastArrival bounds arrival times: every one is before it.
var lastArrival = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// Normalize trims surrounding spaces; Validate reports what is wrong.
func (in *TechnicianInput) Normalize() {
	in.Name = strings.TrimSpace(in.Name)
	in.Email = strings.TrimSpace(in.Email)
	in.Phone = strings.TrimSpace(in.Phone)
	in.ExternalRef = strings.TrimSpace(in.ExternalRef)
	in.Language = strings.TrimSpace(in.Language)
	if l, err := i18n.ParseLanguage("language", in.Language); err == nil {
		in.Language = l
	}
}

// Validate checks a normalized technician; the error is a *ValidationError.
func (in TechnicianInput) Validate() error {
	c := checker{}
	c.text("name", in.Name, MaxName, true, false)
	c.email("email", in.Email)
	c.text("phone", in.Phone, MaxPhone, false, false)
	c.text("external_ref", in.ExternalRef, MaxExternalRef, false, false)
	if _, err := i18n.ParseLanguage("language", in.Language); err != nil {
		c.add("language", problem(CodeLanguageUnknown, "must be one of %s, or empty for the org's language", strings.Join(i18n.Languages(), ", ")))
	}
	return c.err()
}

// Normalize trims surrounding spaces (notes keep their inner layout),
// defaults the status to scheduled and keeps arrival times to the
// microsecond.
func (in *JobInput) Normalize() {
	for _, s := range []*string{&in.ExternalRef, &in.Customer, &in.CustomerPhone, &in.Address,
		&in.JobType, &in.Notes, &in.Status, &in.TechnicianRef} {
		*s = strings.TrimSpace(*s)
	}
	if in.Status == "" {
		in.Status = StatusScheduled
	}
	// PostgreSQL keeps microseconds (pgx drops the rest): compare what will
	// be stored, or the same nanosecond time sent again is a change.
	in.ArrivalStart = in.ArrivalStart.Truncate(time.Microsecond)
	in.ArrivalEnd = in.ArrivalEnd.Truncate(time.Microsecond)
}

// Validate checks a normalized job; the error is a *ValidationError. That
// the assignee belongs to the org is checked by the store.
func (in JobInput) Validate() error {
	c := checker{}
	c.text("external_ref", in.ExternalRef, MaxExternalRef, false, false)
	c.text("customer", in.Customer, MaxCustomer, true, false)
	c.text("customer_phone", in.CustomerPhone, MaxPhone, false, false)
	c.text("address", in.Address, MaxAddress, false, false)
	c.text("job_type", in.JobType, MaxJobType, false, false)
	c.text("notes", in.Notes, MaxNotes, false, true)
	c.text("status", in.Status, 20, true, false)
	if !c.has("status") && !ValidStatus(in.Status) {
		c.add("status", problem(CodeStatusUnknown, "must be one of %s", strings.Join(Statuses, ", ")))
	}
	c.text("technician_ref", in.TechnicianRef, MaxExternalRef, false, false)
	if in.TechnicianID < 0 {
		c.add("technician_id", problem(CodeTechnicianInvalid, "is not a technician"))
	}
	if in.TechnicianID != 0 && in.TechnicianRef != "" {
		c.add("technician_ref", problem(CodeTechnicianBoth, "give the technician by id or by reference, not both"))
	}
	switch {
	case in.ArrivalStart.IsZero():
		c.add("arrival_start", problem(CodeRequired, "is required"))
	case in.ArrivalEnd.IsZero():
		c.add("arrival_end", problem(CodeRequired, "is required"))
	case in.ArrivalEnd.Before(in.ArrivalStart):
		c.add("arrival_end", problem(CodeWindowReversed, "must not be before the start of the window"))
	case in.ArrivalStart.Year() < 2000:
		p := problem(CodeTooEarly, "is out of range: before 2000")
		p.Limit = 2000
		c.add("arrival_start", p)
	case !in.ArrivalEnd.Before(lastArrival):
		// In UTC, and a year short of 9999: times are shown in the org's
		// zone (up to 14 hours ahead) and written as JSON (the API, the
		// audit log), which cannot write a year past 9999.
		p := problem(CodeTooLate, "is out of range: after 9998")
		p.Limit = 9998
		c.add("arrival_end", p)
	}
	return c.err()
}
