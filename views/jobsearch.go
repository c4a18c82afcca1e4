package views

// JobSearch is the jobs page's search across days (docs/field-data.md,
// "Finding work"): the query, why it was refused, and one page of results,
// newest first.
type JobSearch struct {
	Query    string
	Error    string // the query is too short: nothing was searched
	Rows     []JobSearchRow
	PrevPage string // links, "" when there is none
	NextPage string
	MinLen   int    // the shortest query searched, for the hint
	DayLabel string // the day list's date in the reader's words, for the way back
}

// JobSearchRow is one job found: its row, its date in the reader's words
// and the address of its day on the board.
type JobSearchRow struct {
	JobRow
	DateLabel string // "Thu, Nov 26, 2026"
	BoardURL  string
}
