package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
)

// boardBlock is the timeline block of job id on doc, with its flags.
func boardBlock(t *testing.T, doc htmlDoc, id int64) (*htmlNode, string) {
	t.Helper()
	b := doc.find(func(n *html.Node) bool {
		return n.Data == "article" && attrIs("data-job", strconv.FormatInt(id, 10))(n)
	})
	require.NotNil(t, b, "no block for job %d", id)
	return b, b.attr("class")
}

// boardCounts are the numbers above the board, by flag.
func boardCounts(t *testing.T, doc htmlDoc) map[string]int {
	t.Helper()
	out := map[string]int{}
	list := doc.byID("board-counts")
	require.NotNil(t, list)
	for _, li := range list.findAll(tagIs("li")) {
		n, err := strconv.Atoi(li.attr("data-count"))
		require.NoError(t, err)
		out[li.attr("data-flag")] = n
	}
	return out
}

// docs/field-data.md, "The day board": the board flags overlapping windows of one technician,
// late jobs (still scheduled after their window) and windows ending within
// the hour, as of the server's clock (10:00 EST on the test's day); and
// its counts are of the blocks it shows (shownCounts): an unassigned
// emergency counts as unassigned and as an emergency, where the briefing
// lists it once, under emergencies, and says so.
func TestBoardFlagsAndCountsOfWhatItShows(t *testing.T) {
	ff := setupField(t)
	ctx := context.Background()
	bo, err := ff.st.CreateTechnician(ctx, audit.System, ff.orgA.ID, field.TechnicianInput{Name: "Bo Berg", Active: true})
	require.NoError(t, err)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return v
	}
	mk := func(customer, from, to string, tech int64, status string, emergency bool) field.Job {
		j, err := ff.st.CreateJob(ctx, audit.System, ff.clock.Now(), ff.orgA.ID, field.JobInput{Customer: customer,
			ArrivalStart: at(from), ArrivalEnd: at(to), TechnicianID: tech, Status: status, Emergency: emergency})
		require.NoError(t, err)
		return j
	}
	// New York is UTC-5 that day; now is 15:00Z, 10:00 EST.
	early := mk("Early Co", "2026-03-04T11:00:00Z", "2026-03-04T13:00:00Z", ff.ana.ID, "scheduled", false)   // 06–08: late
	working := mk("Working Co", "2026-03-04T11:00:00Z", "2026-03-04T13:00:00Z", bo.ID, "in_progress", false) // not scheduled: not late
	one := mk("Overlap One", "2026-03-04T17:00:00Z", "2026-03-04T19:00:00Z", ff.ana.ID, "scheduled", false)  // 12–14
	two := mk("Overlap Two", "2026-03-04T18:00:00Z", "2026-03-04T20:00:00Z", ff.ana.ID, "scheduled", false)  // 13–15
	soon := mk("Soon Co", "2026-03-04T14:30:00Z", "2026-03-04T15:45:00Z", bo.ID, "scheduled", false)         // ends 10:45
	touchA := mk("Touch A", "2026-03-04T19:00:00Z", "2026-03-04T21:00:00Z", bo.ID, "scheduled", false)       // 14–16
	touchB := mk("Touch B", "2026-03-04T21:00:00Z", "2026-03-04T23:00:00Z", bo.ID, "scheduled", false)       // 16–18: touches, no overlap
	nobody := mk("Nobody Co", "2026-03-04T16:00:00Z", "2026-03-04T18:00:00Z", 0, "scheduled", false)
	leak := mk("Leak Co", "2026-03-04T16:00:00Z", "2026-03-04T17:00:00Z", 0, "scheduled", true) // an emergency, counted once, as one
	mk("Held Today", "2026-03-04T20:00:00Z", "2026-03-04T22:00:00Z", bo.ID, "on_hold", false)
	mk("Held Tomorrow", "2026-03-05T14:00:00Z", "2026-03-05T16:00:00Z", ff.ana.ID, "on_hold", false)       // not the day's
	mk("Old Co", "2026-03-02T14:00:00Z", "2026-03-02T16:00:00Z", ff.ana.ID, "scheduled", false)            // overdue
	night := mk("Night Co", "2026-03-05T03:00:00Z", "2026-03-05T07:00:00Z", ff.ana.ID, "scheduled", false) // 22:00–02:00: clipped

	doc := parseDoc(t, ff.admin.get("/orgs/acme/board?date=2026-03-04").Body)
	flags := map[int64][]string{
		early.ID: {"f-late"}, working.ID: nil, one.ID: {"f-overlap"}, two.ID: {"f-overlap"}, soon.ID: {"f-soon"},
		touchA.ID: nil, touchB.ID: nil, nobody.ID: nil, night.ID: {"f-clip"}, leak.ID: {"is-emergency"},
	}
	all := []string{"f-late", "f-overlap", "f-soon", "f-clip", "is-emergency"}
	for id, want := range flags {
		_, class := boardBlock(t, doc, id)
		for _, f := range all {
			has := strings.Contains(" "+class+" ", " "+f+" ")
			require.Equal(t, strings.Contains(strings.Join(want, " "), f), has, "job %d: %s in %q", id, f, class)
		}
	}
	nb, _ := boardBlock(t, doc, nobody.ID)
	require.Contains(t, nb.text(), "needs a technician")
	sb, _ := boardBlock(t, doc, soon.ID)
	require.Contains(t, sb.text(), "ends within the hour")
	// Positions: 06:00 is the first line; Overlap One is 12:00–14:00.
	ob, class := boardBlock(t, doc, one.ID)
	require.Contains(t, class, "gs-25 ge-33", ob.text())
	// The night job runs to the end of the day: the timeline ends at midnight.
	_, class = boardBlock(t, doc, night.ID)
	require.Contains(t, class, "gs-65 ge-73")
	require.NotNil(t, doc.find(hasClass("tl-s72")), "06:00 to 24:00: 72 quarter hours")
	require.NotNil(t, doc.find(hasClass("tl-now")), "today's board shows the current time")
	require.Contains(t, doc.find(hasClass("tl-now")).attr("class"), "gs-17", "10:00 is the 17th line from 06:00")

	counts := boardCounts(t, doc)
	require.Equal(t, map[string]int{"emergencies": 1, "overdue": 1, "unassigned": 2, "on-hold": 1, "overlap": 2, "late": 1, "soon": 1}, counts)
	require.Equal(t, shownCounts(t, doc), counts, "each count is the number of blocks with its mark")

	// The briefing's summary of the same day lists the unassigned
	// emergency once, under emergencies.
	z, err := schedule.LoadZone("America/New_York")
	require.NoError(t, err)
	var sum snapshot.Summary
	require.NoError(t, pgx.BeginTxFunc(ctx, ff.db, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		d, err := snapshot.ReadDay(ctx, tx, ff.orgA.ID, z, schedule.Date{Year: 2026, Month: 3, Day: 4})
		if err != nil {
			return err
		}
		sum, _, _ = d.Snapshot().Summarize()
		return nil
	}))
	require.Equal(t, []int{1, 1, 1, 1}, []int{sum.Emergencies, sum.Overdue, sum.Unassigned, sum.OnHold})

	// Another day's board shows no current time, and nothing is late
	// before its time.
	doc = parseDoc(t, ff.admin.get("/orgs/acme/board?date=2026-03-05").Body)
	require.Nil(t, doc.find(hasClass("tl-now")))
	require.Zero(t, boardCounts(t, doc)["late"])
}

// shownCounts counts the blocks doc shows by mark, as a reader counts
// them: open emergencies anywhere, open jobs in the Unassigned row, jobs
// on hold anywhere, the overdue section's jobs, and the flags.
func shownCounts(t *testing.T, doc htmlDoc) map[string]int {
	t.Helper()
	out := map[string]int{"emergencies": 0, "overdue": 0, "unassigned": 0, "on-hold": 0, "overlap": 0, "late": 0, "soon": 0}
	open := func(b htmlNode) bool { s := b.attr("data-status"); return s != "done" && s != "cancelled" }
	for _, b := range doc.findAll(hasClass("blk")) {
		out["emergencies"] += btoi(open(b) && hasClass("is-emergency")(b.n))
		out["on-hold"] += btoi(b.attr("data-status") == "on_hold")
		out["overlap"] += btoi(hasClass("f-overlap")(b.n))
		out["late"] += btoi(hasClass("f-late")(b.n))
		out["soon"] += btoi(hasClass("f-soon")(b.n))
	}
	if od := doc.byID("overdue"); od != nil {
		out["overdue"] = len(od.findAll(hasClass("blk")))
	}
	row := doc.find(func(n *html.Node) bool { return n.Data == "section" && attrIs("data-technician", "0")(n) })
	require.NotNil(t, row, "the Unassigned row")
	for _, b := range row.findAll(hasClass("blk")) {
		out["unassigned"] += btoi(open(b))
	}
	return out
}

// The timeline's hours are real instants: on the day clocks spring
// forward (New York, 2026-03-08) 2:00 AM does not exist and the day has
// 23 hours; on the day they fall back (2026-11-01) 1:00 AM comes twice.
func TestBoardTimelineOnDSTDays(t *testing.T) {
	ff := setupField(t)
	hours := func(date string) []string {
		var out []string
		for _, h := range parseDoc(t, ff.admin.get("/orgs/acme/board?date="+date).Body).findAll(hasClass("tl-hour")) {
			out = append(out, h.text())
		}
		return out
	}
	// A job from 00:30 to 04:00 local: the timeline starts at midnight.
	spring := ff.job(ff.orgA.ID, "Spring Co", time.Date(2026, 3, 8, 5, 30, 0, 0, time.UTC), ff.ana.ID) // 00:30 EST – 03:30 EDT
	h := hours("2026-03-08")
	require.Equal(t, []string{"12:00 AM", "1:00 AM", "3:00 AM", "4:00 AM"}, h[:4])
	require.Len(t, h, 19, "00:00 to 20:00 local is 19 real hours that day")
	_, class := boardBlock(t, parseDoc(t, ff.admin.get("/orgs/acme/board?date=2026-03-08").Body), spring.ID)
	require.Contains(t, class, "gs-3 ge-11", "00:30 is 2 quarter hours in, 03:30 EDT 2½ real hours later")

	ff.job(ff.orgA.ID, "Fall Co", time.Date(2026, 11, 1, 4, 30, 0, 0, time.UTC), ff.ana.ID) // 00:30 EDT
	h = hours("2026-11-01")
	require.Equal(t, []string{"12:00 AM", "1:00 AM", "1:00 AM", "2:00 AM"}, h[:4])
}

// docs/field-data.md, "The day board": the overdue section is folded unless the reader
// unfolded it this session (the cookie static/board.js sets).
func TestBoardOverdueFoldedAndRemembered(t *testing.T) {
	ff := setupField(t)
	ff.job(ff.orgA.ID, "Old Co", time.Date(2026, 3, 1, 14, 0, 0, 0, time.UTC), ff.ana.ID)
	open := func() bool {
		d := parseDoc(t, ff.membr.get("/orgs/acme/board").Body).byID("overdue")
		require.NotNil(t, d)
		require.Equal(t, "details", d.n.Data)
		require.Contains(t, d.text(), "Old Co")
		require.Contains(t, d.text(), "1 job")
		_, ok := hasAttr(d.n, "open")
		return ok
	}
	require.False(t, open(), "folded by default")
	u, _ := url.Parse(ff.membr.base + "/orgs/acme/board")
	ff.membr.hc.Jar.SetCookies(u, []*http.Cookie{{Name: boardOverdueCookie, Value: "open", Path: "/orgs/acme/board"}})
	require.True(t, open(), "unfolded, as the reader left it")
	ff.membr.hc.Jar.SetCookies(u, []*http.Cookie{{Name: boardOverdueCookie, Value: "closed", Path: "/orgs/acme/board"}})
	require.False(t, open())
}

// The Move action without JavaScript: ?move=id shows the job's plain
// forms to admins (members get none), and the form assigns with the
// version it was read at.
func TestBoardMovePanel(t *testing.T) {
	ff := setupField(t)
	j := ff.job(ff.orgA.ID, "Corner Bakery", time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC), 0)
	path := fmt.Sprintf("/orgs/acme/board?date=2026-03-04&move=%d", j.ID)
	require.Nil(t, parseDoc(t, ff.membr.get(path).Body).byID("move-panel"))
	doc := parseDoc(t, ff.admin.get(path).Body)
	require.NotNil(t, doc.byID("move-panel"))
	b, _ := boardBlock(t, doc, j.ID)
	require.Equal(t, fmt.Sprintf("?date=2026-03-04&move=%d#move-panel", j.ID), b.find(hasClass("mv")).attr("href"))
	form := formOf(t, ff.admin.get(path).Body, attrIs("id", "move-plain"))
	require.Equal(t, fmt.Sprint(j.Version), form.Get("version"))
	form.Set("technician_id", fmt.Sprint(ff.ana.ID))
	r := ff.admin.post(fmt.Sprintf("/orgs/acme/jobs/%d/assign", j.ID), form)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, ff.ana.ID, ff.storedJob(ff.orgA.ID, j.ID).TechnicianID)
	// Another org's job: no panel.
	theirs := ff.job(ff.orgB.ID, "Globex customer", time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC), 0)
	body := ff.admin.get(fmt.Sprintf("/orgs/acme/board?date=2026-03-04&move=%d", theirs.ID)).Body
	require.Nil(t, parseDoc(t, body).byID("move-panel"))
	require.NotContains(t, body, "Globex customer")
}
