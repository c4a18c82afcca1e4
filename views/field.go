package views

import "strconv"

// Models of the field data screens: technicians, jobs and the day board
// (docs/field-data.md). Times arrive formatted in the org's zone.

// Option is one choice of a select.
type Option struct {
	Value, Label string
}

// FormErrors are messages by form field name.
type FormErrors map[string]string

// Error is the message for field, "" when it is fine.
func (e FormErrors) Error(field string) string { return e[field] }

// TechnicianRow is a technician in a list.
type TechnicianRow struct {
	ID                 int64
	Name, Email, Phone string
	Ref                string
	Active             bool
	Jobs               int
	JobCount           string // Jobs as the reader's locale writes numbers
	// NoDaySheetsSince is when they asked not to receive day sheets, in
	// the reader's formats and the org's zone; "" = they receive them
	// (docs/delivery.md, "Stopping day sheets").
	NoDaySheetsSince string
}

// NoDaySheets is the office's line for a technician who asked not to
// receive day sheets: "Does not receive day sheets since …".
func (p Page) NoDaySheets(t TechnicianRow) string {
	return p.Tf("technicians.no_day_sheets", map[string]any{"When": t.NoDaySheetsSince})
}

// TechnicianForm is the add or edit form of a technician.
type TechnicianForm struct {
	Action             string // where it posts
	Name, Email, Phone string
	Ref                string
	Active             bool
	Language           string   // "" = the org's
	Languages          []Option // Value the tag ("es"), Label its name in itself ("Español")
	Errors             FormErrors
	Version            int64 // the version the form was read at; 0 for a new one
}

// TechniciansPage lists an org's technicians; admins get the add form.
type TechniciansPage struct {
	Page
	Base         string // /orgs/{slug}
	CanEditField bool   // edits field data: an admin or a dispatcher
	Notice       string
	List         []TechnicianRow
	Form         TechnicianForm
}

// TechnicianPage is one technician: an edit form for admins, the details
// for members.
type TechnicianPage struct {
	Page
	Base         string
	CanEditField bool // edits field data: an admin or a dispatcher
	OrgAdmin     bool // revokes the technician's day links
	Notice       string
	Tech         TechnicianRow
	Form         TechnicianForm
	Stale        *StaleNotice // a save over a newer version was refused (409)
}

// JobRow is a job in a list or on the board.
type JobRow struct {
	ID           int64
	Date         string // the org-local date of its start, YYYY-MM-DD
	Window       string // "9:00 – 11:00 AM EDT" in the reader's clock, with dates when not on Date
	Start        string // the window's local start, HH:MM (the board's Move forms)
	Customer     string
	Address      string
	JobType      string
	Emergency    bool
	Status       string
	StatusLabel  string // in the reader's language
	TechnicianID int64
	Technician   string
	Ref          string
	Version      int64 // the board's quick changes carry it
}

// JobForm is the add or edit form of a job. Date, From and To are local
// in the org's zone.
type JobForm struct {
	Action        string
	Next          string // where to go after saving: "board" or "jobs"
	Customer      string
	CustomerPhone string
	Address       string
	Date          string
	From, To      string
	ToDate        string // the day the window ends when not Date's ("" = Date)
	JobType       string
	Notes         string
	Emergency     bool
	Status        string
	TechnicianID  string
	Ref           string
	Zone          ZoneLabel // the zone the times are read in
	DSTNotes      []string  // times that happen twice that night: which one was taken
	Technicians   []Option
	Errors        FormErrors
	Version       int64 // the version the form was read at; 0 for a new job
	// Told says who a saved change of this job is emailed to
	// (docs/delivery.md, "Updates"); "" on the add form.
	Told string
}

// JobsPage lists an org's jobs by local date, status and technician.
type JobsPage struct {
	Page
	Base         string
	CanEditField bool // edits field data: an admin or a dispatcher
	Notice       string
	Zone         ZoneLabel
	Date         string
	Status       string
	Technician   string // technician id, "none" (unassigned) or "" (all)
	FilterErrors FormErrors
	Technicians  []Option
	Jobs         []JobRow
	PrevPage     string // links, "" when there is none
	NextPage     string
	Form         JobForm
	Search       *JobSearch // a search across days (jobsearch.go); nil lists the day
}

// JobPage is one job: an edit form for admins, the details for members.
type JobPage struct {
	Page
	Base         string
	CanEditField bool // edits field data: an admin or a dispatcher
	Notice       string
	Job          JobRow
	JobDate      string // the job's local date in the reader's words: "Thu, Nov 26"
	Notes        string
	Phone        string
	Form         JobForm
	Stale        *StaleNotice // a save over a newer version was refused (409)
}

// BoardColumn is one technician's row of the day's timeline, or the
// unassigned jobs' (TechnicianID 0), first.
type BoardColumn struct {
	TechnicianID int64
	Name         string
	Blocks       []BoardBlock // in arrival order
	// NoDaySheetsSince: they asked not to receive day sheets since then
	// (TechnicianRow.NoDaySheetsSince); "" = they receive them.
	NoDaySheetsSince string
}

// BoardBlock is a job on the timeline: grid lines From and To of its
// row's track (1-based, a line every quarter hour from Timeline's start),
// and what it is flagged for.
type BoardBlock struct {
	JobRow
	From, To  int
	ClipEnd   bool // the window goes on past the board's day (multi-day): cut at its end, marked
	Overlap   bool // another of the technician's jobs has a window that overlaps this one
	Late      bool // still scheduled after its window ended
	Soon      bool // still scheduled, the window ends within the hour
	Attention bool // on today's board, unassigned and open
}

// Timeline is the board's hours: Slots quarter hours from the first hour
// shown, the hour marks (grid line and label, in the org's zone: a day
// the clocks change has 23 or 25 of them), and the current time's grid
// line on today's board (0: not shown).
type Timeline struct {
	Slots    int
	Hours    []HourMark
	Now      int
	NowLabel string
}

// HourMark is one hour of the timeline's head.
type HourMark struct {
	Line  int
	Label string
}

// BoardCounts are the numbers above the board, each the number of blocks
// the board shows with that mark (a job counts under every mark it has:
// docs/field-data.md, "The day board").
type BoardCounts struct {
	Emergencies, Overdue, Unassigned, OnHold int
	Overlaps, Late, Soon                     int
}

// Board is one org-local day: a timeline row per active technician and
// one for unassigned jobs, with overdue jobs of earlier days apart
// (folded).
type Board struct {
	Base         string
	CanEditField bool // edits field data: an admin or a dispatcher
	CSRF         string
	Date         string
	Problem      string // a rejected change, said above the board
	Notice       string // a change made with htmx, said above the board
	Columns      []BoardColumn
	Timeline     Timeline
	Counts       BoardCounts
	Overdue      []JobRow
	OverdueAll   int  // overdue jobs in all (Overdue holds at most the board's bound)
	OverdueOpen  bool // the reader unfolded the overdue section this session
	Truncated    bool // more jobs than one board shows
	Technicians  []Option
	Move         *JobRow      // the job whose move form is shown (?move=id, the way without JavaScript)
	I18n         Translator   // the reader's language (the fragment has no Page)
	Stale        *StaleNotice // a quick change over a newer version was refused (409)
	Undo         *BoardUndo   // the move just made, which Notice offers to undo
}

// BoardUndo is a move's way back, offered in its notice for a short time
// (static/board.js takes the button away): the same move form, sent with
// the version the move made, so a job someone changed since is refused.
type BoardUndo struct {
	JobID, Version int64
	Assign         bool   // send TechnicianID (the job's technician before the move)
	TechnicianID   int64  // 0: none
	StartAt        string // the window's start before the move (RFC 3339); "" keeps it
}

// T is the message id in the board reader's language.
func (b Board) T(id string) string { return Page{I18n: b.I18n}.T(id) }

// Tf is the message id with its data filled in.
func (b Board) Tf(id string, data map[string]any) string { return Page{I18n: b.I18n}.Tf(id, data) }

// Tn is the plural message id for count.
func (b Board) Tn(id string, count int, data map[string]any) string {
	return Page{I18n: b.I18n}.Tn(id, count, data)
}

// BoardPage is the day board's page.
type BoardPage struct {
	Page
	Notice   string
	DayLabel string // the reader's long date: "Monday, March 9, 2026"
	Zone     ZoneLabel
	Prev     string
	Next     string
	Today    string
	IsToday  bool
	Board    Board
	Form     JobForm
}

// Statuses are the job statuses in their usual order; a page names each
// one with the catalog's "jobstatus.<value>" (statusLabel).
var Statuses = []Option{
	{"scheduled", "Scheduled"}, {"in_progress", "In progress"}, {"on_hold", "On hold"},
	{"done", "Done"}, {"cancelled", "Cancelled"},
}

// techValue is a technician id as a form sends it: "" for none.
func techValue(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// statusLabel is a status's name in the reader's language.
func statusLabel(t interface{ T(string) string }, status string) string {
	return t.T("jobstatus." + status)
}

func jobStatusBadge(status string) string {
	switch status {
	case "done":
		return "badge-ready"
	case "in_progress", "on_hold":
		return "badge-pending"
	}
	return "badge-muted"
}

// ZoneLabel is a zone as the field pages name it: as people know it, in
// the reader's language, with its IANA id and that day's abbreviation in
// small print ("Eastern Time (New York)", "America/New_York (EST)").
type ZoneLabel struct {
	Name string // "Eastern Time (New York)"; says why it is UTC when the org has no zone
	ID   string // "America/New_York"; "" when Name is the id already
	Abbr string // "EST", the abbreviation in force that day; "" when there is none
}

// gs and ge are the timeline classes of a block's first and last grid
// lines (static/field.css: .gs-1 … .gs-101, .ge-2 … .ge-101).
func gs(line int) string { return "gs-" + strconv.Itoa(line) }
func ge(line int) string { return "ge-" + strconv.Itoa(line) }

// revokeLinksURL is where the technician's "revoke day links" posts.
func revokeLinksURL(base string, id int64) string {
	return base + "/technicians/" + strconv.FormatInt(id, 10) + "/revoke-links"
}
