package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// Lists and the incremental feed (docs/api.md, "Reading what changed").
//
// A list is read a page at a time with an opaque cursor: a keyset (the
// last row's place in the list's order), bound to the query that made it,
// so a row inserted or changed between two pages neither shifts nor
// repeats the rows that were there. With updated_since the list is the
// feed: rows in the order they last changed, from updated_since up to a
// horizon the answer gives as complete_until (the database's clock less
// feedSettle, so no transaction still open can add a row before it), with
// the rows deleted in that span; the next sync passes complete_until as
// its updated_since and misses nothing.

// Technician feed paging.
const (
	apiTechnicianPage    = 100
	apiMaxTechnicianPage = field.MaxTechnicians
	apiMaxDeleted        = 1000 // deletions in one answer; more move the horizon back
)

// feedCursor is a cursor's content.
type feedCursor struct {
	Query   string    `json:"q"`          // queryKey of the query it continues
	Horizon time.Time `json:"h,omitzero"` // the feed's complete_until, kept across pages
	At      time.Time `json:"a"`          // the last row's key
	Created time.Time `json:"c,omitzero"` //
	ID      int64     `json:"i"`          //
}

func (k feedCursor) encode() string {
	b, _ := json.Marshal(k)
	return base64.RawURLEncoding.EncodeToString(b)
}

// queryKey identifies a list's query, its paging members left out.
func queryKey(path string, q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		if k != "cursor" && k != "limit" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	h := sha256.New()
	h.Write([]byte(path))
	for _, k := range keys {
		h.Write([]byte("\x00" + k + "=" + q.Get(k)))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// listQuery reads a list's query string: one it cannot read, and unknown
// or repeated parameters, are a 400 naming them; bad values are collected
// in bad.
type listQuery struct {
	q   url.Values
	bad map[string]string
	key string
}

func readListQuery(c echo.Context, known ...string) (*listQuery, error) {
	// Parsed here rather than taken from echo, which drops a pair it
	// cannot read (a semicolon, a bad escape) without a word: a filter
	// the client sent would be ignored and the list answered without it.
	q, err := url.ParseQuery(c.Request().URL.RawQuery)
	if err != nil {
		return nil, apperr.Errorf(apperr.Malformed,
			"The query string cannot be read (%v): separate the parameters with & and percent-encode their values.", err)
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range q {
			if !yield(k) {
				return
			}
		}
	}) {
		if !slices.Contains(known, k) {
			return nil, apperr.Errorf(apperr.Malformed, "Unknown query parameter %q: this list takes %s.", k, joinQuoted(known))
		}
		if len(q[k]) > 1 {
			return nil, apperr.Errorf(apperr.Malformed, "The query parameter %q is given %d times: give it once.", k, len(q[k]))
		}
	}
	return &listQuery{q: q, bad: map[string]string{}, key: queryKey(c.Path(), q)}, nil
}

func joinQuoted(names []string) string {
	var out string
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(n)
	}
	return out
}

func (l *listQuery) limit(def, most int) int {
	v := l.q.Get("limit")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		l.bad["limit"] = "want a whole number from 1 to " + strconv.Itoa(most)
	}
	return n
}

func (l *listQuery) date(name string) (schedule.Date, bool) {
	v := l.q.Get(name)
	if v == "" {
		return schedule.Date{}, false
	}
	d, err := schedule.ParseDate(v)
	if err != nil {
		l.bad[name] = "want an org-local date as YYYY-MM-DD"
		return schedule.Date{}, false
	}
	return d, true
}

func (l *listQuery) instant(name string) (time.Time, bool) {
	v := l.q.Get(name)
	if v == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		l.bad[name] = "want an instant in RFC 3339 with its offset, e.g. 2026-03-09T06:00:00Z"
		return time.Time{}, false
	}
	return t, true
}

// cursor is the page's starting key, nil for the first page.
func (l *listQuery) cursor() *feedCursor {
	v := l.q.Get("cursor")
	if v == "" {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	var k feedCursor
	if err != nil || json.Unmarshal(b, &k) != nil || k.ID <= 0 {
		l.bad["cursor"] = "is not a cursor this API gave: pass next_cursor as it is, or leave it out"
		return nil
	}
	if k.Query != l.key {
		l.bad["cursor"] = "belongs to another query: page a list with the parameters that made the cursor"
		return nil
	}
	return &k
}

func (l *listQuery) problems() error {
	if len(l.bad) > 0 {
		return &field.ValidationError{Fields: l.bad}
	}
	return nil
}

// horizon is the feed's complete_until: kept from the cursor, else the
// database's clock less the settle time.
func (a *API) horizon(c echo.Context, cur *feedCursor) (time.Time, error) {
	if cur != nil && !cur.Horizon.IsZero() {
		return cur.Horizon, nil
	}
	ctx := c.Request().Context()
	now, err := field.Now(ctx, database.Reader(ctx, a.db))
	return now.Add(-a.feedSettle), err
}

// apiJobList is GET /api/v1/jobs's answer.
type apiJobList struct {
	Date          string            `json:"date,omitempty"` // the day asked for with date
	From          string            `json:"from,omitempty"`
	To            string            `json:"to,omitempty"`
	Timezone      string            `json:"timezone"`
	Jobs          []apiJobOut       `json:"jobs"`
	NextCursor    *string           `json:"next_cursor"`              // null on the last page
	CompleteUntil *time.Time        `json:"complete_until,omitempty"` // the feed's horizon
	Deleted       []field.Tombstone `json:"deleted,omitempty"`        // the feed's first page: deleted in its span
}

// apiListJobs lists the org's jobs: by org-local dates (date, or from and
// to, inclusive), a technician (technician_ref), a status, and as a feed
// (updated_since); a page at a time.
func (a *API) apiListJobs(c echo.Context) error {
	l, err := readListQuery(c, "date", "from", "to", "updated_since", "technician_ref", "status", "limit", "cursor")
	if err != nil {
		return err
	}
	limit := l.limit(apiJobPage, apiMaxJobPage)
	date, hasDate := l.date("date")
	from, hasFrom := l.date("from")
	to, hasTo := l.date("to")
	if hasDate && (hasFrom || hasTo) {
		l.bad["date"] = "give a date, or from and to, not both"
	}
	if hasDate {
		from, to, hasFrom, hasTo = date, date, true, true
	}
	if hasFrom && hasTo && to.Time().Before(from.Time()) {
		l.bad["to"] = "is before from"
	}
	since, feed := l.instant("updated_since")
	status := l.q.Get("status")
	if status != "" && !field.ValidStatus(status) {
		l.bad["status"] = "want one of scheduled, in_progress, on_hold, done, cancelled"
	}
	cur := l.cursor()
	if err := l.problems(); err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	loc, err := a.apiZone(ctx, orgID)
	if err != nil {
		return err
	}
	f := field.JobFilter{Status: status, Limit: limit, ByUpdate: feed}
	if hasFrom {
		f.From, _ = schedule.DayBounds(loc, from)
	}
	if hasTo {
		_, f.To = schedule.DayBounds(loc, to)
	}
	if ref := l.q.Get("technician_ref"); ref != "" {
		ids, err := field.TechnicianRefs(ctx, database.Reader(ctx, a.db), orgID, []string{ref})
		if err != nil {
			return err
		}
		if f.TechnicianID = ids[ref]; f.TechnicianID == 0 {
			return &field.ValidationError{Fields: map[string]string{"technician_ref": "no technician of this org has this reference"}}
		}
	}
	out := apiJobList{Timezone: loc.String()}
	if hasDate {
		out.Date = date.String()
	} else {
		if hasFrom {
			out.From = from.String()
		}
		if hasTo {
			out.To = to.String()
		}
	}
	var horizon time.Time
	if feed {
		if horizon, err = a.horizon(c, cur); err != nil {
			return err
		}
		if cur == nil {
			if out.Deleted, horizon, err = a.deletedSince(c, field.KindJob, since, horizon); err != nil {
				return err
			}
		}
		f.UpdatedSince, f.UpdatedBefore = since, horizon
		out.CompleteUntil = &horizon
	}
	if cur != nil {
		f.After = &field.JobKey{At: cur.At, Created: cur.Created, ID: cur.ID}
	}
	page, err := a.field.ListJobs(ctx, orgID, f)
	if err != nil {
		return err
	}
	out.Jobs = make([]apiJobOut, 0, len(page.Jobs))
	for _, j := range page.Jobs {
		out.Jobs = append(out.Jobs, apiJob(j, loc, nil))
	}
	if page.More {
		k := field.KeyOf(page.Jobs[len(page.Jobs)-1], feed)
		next := feedCursor{Query: l.key, Horizon: horizon, At: k.At, Created: k.Created, ID: k.ID}.encode()
		out.NextCursor = &next
	}
	return c.JSON(http.StatusOK, out)
}

// deletedSince is the deletions of kind in [since, horizon), and the
// horizon moved back to the last one listed when there are more than an
// answer holds (the next sync starts there).
func (a *API) deletedSince(c echo.Context, kind string, since, horizon time.Time) ([]field.Tombstone, time.Time, error) {
	ctx := c.Request().Context()
	list, err := field.Deleted(ctx, database.Reader(ctx, a.db), Token(c).OrgID, kind, since, horizon, apiMaxDeleted)
	if err != nil {
		return nil, horizon, err
	}
	if len(list) > apiMaxDeleted {
		// The span ends where the first deletion left out was made: all
		// of it (changes and deletions) comes with the next sync.
		horizon = list[apiMaxDeleted].DeletedAt
		for len(list) > 0 && !list[len(list)-1].DeletedAt.Before(horizon) {
			list = list[:len(list)-1]
		}
	}
	return list, horizon, nil
}

// apiTechnicianList is GET /api/v1/technicians's answer.
type apiTechnicianList struct {
	Technicians   []field.Technician `json:"technicians"`
	NextCursor    *string            `json:"next_cursor,omitempty"`
	CompleteUntil *time.Time         `json:"complete_until,omitempty"`
	Deleted       []field.Tombstone  `json:"deleted,omitempty"`
}

// apiListTechnicians returns the org's technicians (at most
// field.MaxTechnicians), active ones first; with updated_since, the feed
// of those changed, a page at a time.
func (a *API) apiListTechnicians(c echo.Context) error {
	l, err := readListQuery(c, "updated_since", "limit", "cursor")
	if err != nil {
		return err
	}
	since, feed := l.instant("updated_since")
	limit := l.limit(apiTechnicianPage, apiMaxTechnicianPage)
	cur := l.cursor()
	if !feed && (l.q.Has("limit") || l.q.Has("cursor")) {
		l.bad["updated_since"] = "is needed to page: without it the list is every technician at once"
	}
	if err := l.problems(); err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	if !feed {
		list, err := a.field.ListTechnicians(ctx, orgID)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, apiTechnicianList{Technicians: append([]field.Technician{}, list...)})
	}
	horizon, err := a.horizon(c, cur)
	if err != nil {
		return err
	}
	var out apiTechnicianList
	if cur == nil {
		if out.Deleted, horizon, err = a.deletedSince(c, field.KindTechnician, since, horizon); err != nil {
			return err
		}
	}
	out.CompleteUntil = &horizon
	var after *field.JobKey
	if cur != nil {
		after = &field.JobKey{At: cur.At, ID: cur.ID}
	}
	list, more, err := field.ListTechniciansChanged(ctx, database.Reader(ctx, a.db), orgID, since, horizon, after, limit)
	if err != nil {
		return err
	}
	out.Technicians = append([]field.Technician{}, list...)
	if more {
		last := list[len(list)-1]
		next := feedCursor{Query: l.key, Horizon: horizon, At: last.UpdatedAt, ID: last.ID}.encode()
		out.NextCursor = &next
	}
	return c.JSON(http.StatusOK, out)
}
