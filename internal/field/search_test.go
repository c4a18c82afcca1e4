package field_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
)

// customers of a page of search results, in order.
func customers(p field.JobPage) []string {
	var out []string
	for _, j := range p.Jobs {
		out = append(out, j.Customer)
	}
	return out
}

// TestSearchJobs: a job is found by its customer, a fragment of its
// address, its reference and its phone's digits however typed, across
// days, newest first, and never another org's.
func TestSearchJobs(t *testing.T) {
	b := setup(t)
	day := func(n int) time.Time { return nine.AddDate(0, 0, n) }
	add := func(orgID int64, customer, address, ref, phone string, d int) {
		in := field.JobInput{Customer: customer, Address: address, ExternalRef: ref, CustomerPhone: phone,
			ArrivalStart: day(d), ArrivalEnd: day(d).Add(time.Hour)}
		b.job(t, orgID, in)
	}
	add(b.acme.ID, "Maria Smith", "12 Elm Street, Springfield", "J-1042", "(555) 014-2233", -30)
	add(b.acme.ID, "Smithers & Co", "9 Oak Avenue", "J-2001", "+1 555 777 0000", 10)
	add(b.acme.ID, "Bob Jones", "3 Elm Street", "", "", 0)
	add(b.other.ID, "Maria Smith of Globex", "12 Elm Street, Springfield", "J-1042", "(555) 014-2233", 0)
	add(b.acme.ID, "MÜLLER Haustechnik", "Straße des 17. Juni 1", "", "", -1)

	search := func(q string) []string {
		t.Helper()
		p, err := b.store.SearchJobs(b.ctx, b.acme.ID, q, 1)
		require.NoError(t, err)
		require.False(t, p.More)
		return customers(p)
	}
	require.Equal(t, []string{"Smithers & Co", "Maria Smith"}, search("smith"), "customer, newest first across days")
	require.Equal(t, []string{"Maria Smith"}, search("MARIA"))
	require.Equal(t, []string{"Bob Jones", "Maria Smith"}, search("elm st"), "address fragment, every word")
	require.Equal(t, []string{"Maria Smith"}, search("springf"))
	require.Equal(t, []string{"Maria Smith"}, search("j-1042"), "reference")
	require.Equal(t, []string{"Maria Smith"}, search("555-014-2233"), "phone as typed differently")
	require.Equal(t, []string{"Maria Smith"}, search("0142233"), "phone digits")
	require.Equal(t, []string{"Smithers & Co"}, search("(555) 777"))
	require.Empty(t, search("globex"), "another org's jobs never appear")
	require.Empty(t, search("smith zzz"), "every word must match")
	require.Empty(t, search("100%"), "LIKE's wildcards are plain characters")
	require.Empty(t, search("_"))
	require.Empty(t, search("   "))
	// Upper-case letters beyond ASCII meet themselves whichever way they
	// are typed: the database lower-cases both sides, in a database whose
	// character type is UTF-8, as the suite's is (docs/field-data.md,
	// "Finding work"; one with the plain C locale lowers ASCII only).
	require.Equal(t, []string{"MÜLLER Haustechnik"}, search("müller"))
	require.Equal(t, []string{"MÜLLER Haustechnik"}, search("MÜLLER"))
	require.Equal(t, []string{"MÜLLER Haustechnik"}, search("straße"))
	// Words shorter than SearchMinLen are not searched: the index cannot
	// narrow them (a query of them alone finds nothing rather than reading
	// every row), and at most SearchMaxWords words are.
	require.Empty(t, search("q z x"))
	require.Equal(t, []string{"Bob Jones", "Maria Smith"}, search("elm st"), "st is too short to search")
	_, args, ok := field.SearchSQL(1, "aaa bbb ccc ddd eee fff ggg", 1)
	require.True(t, ok)
	require.Len(t, args, 1+field.SearchMaxWords+2, "org, five words, limit and offset")
	_, _, ok = field.SearchSQL(1, strings.Repeat("ab ", 30), 1)
	require.False(t, ok)

	p, err := b.store.SearchJobs(b.ctx, b.other.ID, "smith", 1)
	require.NoError(t, err)
	require.Equal(t, []string{"Maria Smith of Globex"}, customers(p), "and the other way round")
}

// TestSearchJobsPages: a page holds at most SearchPageSize jobs, More says
// another follows, and no page past SearchMaxPages is read.
func TestSearchJobsPages(t *testing.T) {
	b := setup(t)
	n := field.SearchPageSize + 7
	_, err := b.store.DB.Exec(b.ctx, `
		INSERT INTO jobs (org_id, customer, address, arrival_start, arrival_end)
		SELECT $1, 'Pager ' || i, 'Lane ' || i, $2::timestamptz + i * interval '1 hour', $2::timestamptz + i * interval '1 hour'
		  FROM generate_series(1, $3) i`, b.acme.ID, nine, n)
	require.NoError(t, err)

	p1, err := b.store.SearchJobs(b.ctx, b.acme.ID, "pager", 1)
	require.NoError(t, err)
	require.Len(t, p1.Jobs, field.SearchPageSize)
	require.True(t, p1.More)
	require.Equal(t, fmt.Sprintf("Pager %d", n), p1.Jobs[0].Customer, "newest first")
	p2, err := b.store.SearchJobs(b.ctx, b.acme.ID, "pager", 2)
	require.NoError(t, err)
	require.Len(t, p2.Jobs, 7)
	require.False(t, p2.More)
	require.Equal(t, "Pager 1", p2.Jobs[6].Customer)

	for _, page := range []int{0, -1, field.SearchMaxPages + 1} {
		p, err := b.store.SearchJobs(b.ctx, b.acme.ID, "pager", page)
		require.NoError(t, err)
		require.Empty(t, p.Jobs, "page %d", page)
	}
}

// TestSearchJobsUsesItsIndex: migration 00029's trigram index exists, and
// the planner uses it for the search's statement on a busy org.
func TestSearchJobsUsesItsIndex(t *testing.T) {
	b := setup(t)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM pg_indexes WHERE tablename = 'jobs' AND indexname = 'jobs_search_trgm_idx'
		AND indexdef LIKE '%USING gin (jobs_search_text(customer, address, external_ref, customer_phone) gin_trgm_ops)%'`))
	// A busy org: 20,000 jobs, one of them the one looked for.
	_, err := b.store.DB.Exec(b.ctx, `
		INSERT INTO jobs (org_id, customer, address, customer_phone, arrival_start, arrival_end)
		SELECT $1, 'Customer ' || i, i || ' Main Street', '555 ' || lpad(i::text, 7, '0'), $2::timestamptz + i * interval '1 hour',
		       $2::timestamptz + i * interval '1 hour'
		  FROM generate_series(1, 20000) i`, b.acme.ID, nine)
	require.NoError(t, err)
	b.job(t, b.acme.ID, field.JobInput{Customer: "Maria Smith", Address: "12 Elm Street", CustomerPhone: "(555) 014-2233",
		ArrivalStart: nine, ArrivalEnd: nine.Add(time.Hour)})
	_, err = b.store.DB.Exec(b.ctx, `ANALYZE jobs`)
	require.NoError(t, err)
	sql, args, ok := field.SearchSQL(b.acme.ID, "smith 014-2233", 1)
	require.True(t, ok)
	rows, err := b.store.DB.Query(b.ctx, `EXPLAIN `+sql, args...)
	require.NoError(t, err)
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, strings.Join(plan, "\n"), "jobs_search_trgm_idx", strings.Join(plan, "\n"))
	p, err := b.store.SearchJobs(b.ctx, b.acme.ID, "smith 014-2233", 1)
	require.NoError(t, err)
	require.Equal(t, []string{"Maria Smith"}, customers(p))
}
