package field

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"fieldbrief/internal/database"
)

// The jobs search (docs/field-data.md, "Finding work"): a page holds at
// most SearchPageSize jobs and a search goes at most SearchMaxPages deep,
// so no request reads more than SearchPageSize × SearchMaxPages rows.
const (
	SearchPageSize = 50
	SearchMaxPages = 40
	// SearchMinLen is the shortest query searched, in characters: a
	// trigram index needs three characters to narrow anything down.
	SearchMinLen = 3
	// SearchMaxLen is the longest query read, in characters.
	SearchMaxLen = 100
	// SearchMaxWords is how many words of a query are searched. A word
	// shorter than SearchMinLen is not searched at all: the trigram index
	// cannot narrow it, and a query of fifty two-letter words made the
	// index return every row of a 200,000-job org (5.5 s, found in review).
	SearchMaxWords = 5
)

// searchText is the text a job is searched in, as migration 00029's
// index says it: customer, address, reference and the phone's digits,
// lower-cased. The query must say the same expression to use the index.
const searchText = `jobs_search_text(j.customer, j.address, j.external_ref, j.customer_phone)`

// SearchJobs returns page (1, 2, …) of the org's jobs whose customer,
// address, reference or phone contain every word of query, newest first
// (arrival start descending, across all days), at most SearchPageSize.
// A word of digits and phone punctuation ("555-0142", "(555)") also
// matches the phone's digits, so a number is found however it was typed.
// A query without words, or a page past SearchMaxPages, finds nothing.
func (s *Store) SearchJobs(ctx context.Context, orgID int64, query string, page int) (JobPage, error) {
	sql, args, ok := searchSQL(orgID, query, page)
	if !ok {
		return JobPage{}, nil
	}
	rows, err := database.Reader(ctx, s.DB).Query(ctx, sql, args...)
	if err != nil {
		return JobPage{}, fmt.Errorf("search jobs of org %d: %w", orgID, err)
	}
	jobs, err := collectJobs(rows)
	if err != nil {
		return JobPage{}, fmt.Errorf("search jobs of org %d: %w", orgID, err)
	}
	p := JobPage{Jobs: jobs}
	if len(jobs) > SearchPageSize {
		p.Jobs, p.More = jobs[:SearchPageSize], page < SearchMaxPages
	}
	return p, nil
}

// searchSQL is SearchJobs' statement: one LIKE per word over searchText,
// all of them within the org. ok is false when there is nothing to search.
//
// The words are lower-cased by the database, as searchText is: Go's
// ToLower knows all of Unicode, PostgreSQL's lower() in a database without
// a locale only ASCII, and "MÜLLER" must meet itself either way.
func searchSQL(orgID int64, query string, page int) (sql string, args []any, ok bool) {
	words := searchWords(query)
	if len(words) == 0 || page < 1 || page > SearchMaxPages {
		return "", nil, false
	}
	where, args := `j.org_id = $1`, []any{orgID}
	like := func(s string) string {
		args = append(args, "%"+escapeLike(s)+"%")
		return fmt.Sprintf(searchText+` LIKE lower($%d)`, len(args))
	}
	for _, w := range words {
		if d := phoneDigits(w); d != "" && d != w {
			where += " AND (" + like(w) + " OR " + like(d) + ")"
			continue
		}
		where += " AND " + like(w)
	}
	args = append(args, SearchPageSize+1, (page-1)*SearchPageSize)
	return `SELECT ` + jobColumns + jobFrom + ` WHERE ` + where +
		fmt.Sprintf(` ORDER BY j.arrival_start DESC, j.created_at DESC, j.id DESC LIMIT $%d OFFSET $%d`, len(args)-1, len(args)), args, true
}

// searchWords are the words of query that are searched: those of at least
// SearchMinLen characters, the first SearchMaxWords of them.
func searchWords(query string) []string {
	var words []string
	for _, w := range strings.Fields(query) {
		if utf8.RuneCountInString(w) >= SearchMinLen && len(words) < SearchMaxWords {
			words = append(words, w)
		}
	}
	return words
}

// phoneDigits is w's digits when w is a phone number as people type one
// (digits, spaces aside, and + - ( ) . /), "" otherwise.
func phoneDigits(w string) string {
	var b strings.Builder
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case strings.ContainsRune("+-()./", r):
		default:
			return ""
		}
	}
	return b.String()
}

// escapeLike makes s match itself in a LIKE pattern (backslash is LIKE's
// default escape).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// SearchQuery is query as searched: spaces trimmed, at most SearchMaxLen
// characters, and how many characters its longest word has (a query is
// searched when that is at least SearchMinLen).
func SearchQuery(query string) (string, int) {
	q := strings.TrimSpace(query)
	if r := []rune(q); len(r) > SearchMaxLen {
		q = strings.TrimSpace(string(r[:SearchMaxLen]))
	}
	n := 0
	for _, w := range strings.Fields(q) {
		n = max(n, utf8.RuneCountInString(w))
	}
	return q, n
}
