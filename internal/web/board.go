package web

import (
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// maxOverdue bounds the board's overdue section; the job list pages
// through the rest.
const maxOverdue = 200

// board shows one org-local day (?date=YYYY-MM-DD, today by default).
func (s *Server) board(c echo.Context) error {
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	d, err := s.boardDate(c, c.QueryParam("date"), z)
	if err != nil {
		return err
	}
	form := newJobForm(d, "board")
	return s.renderBoard(c, http.StatusOK, z, d, "", form)
}

// boardDate reads a board date; empty is the org's today.
func (s *Server) boardDate(c echo.Context, v string, z orgZone) (schedule.Date, error) {
	if v == "" {
		return z.Today, nil
	}
	d, err := schedule.ParseDate(v)
	if err != nil {
		return d, apperr.FieldError("date", "Enter the date as YYYY-MM-DD.")
	}
	return d, nil
}

// renderBoardFor re-renders the board of the job form's date (today when
// the date is what was wrong) with the rejected form.
func (s *Server) renderBoardFor(c echo.Context, status int, z orgZone, form views.JobForm) error {
	d, err := schedule.ParseDate(form.Date)
	if err != nil {
		d = z.Today
	}
	return s.renderBoard(c, status, z, d, "", form)
}

func (s *Server) renderBoard(c echo.Context, status int, z orgZone, d schedule.Date, problem string, form views.JobForm) error {
	return s.renderBoardWith(c, status, z, d, problem, form, nil)
}

// renderBoardWith is renderBoard with a refused stale quick change said
// above the board (nil for none).
func (s *Server) renderBoardWith(c echo.Context, status int, z orgZone, d schedule.Date, problem string, form views.JobForm, stale *views.StaleNotice) error {
	m := currentMembership(c)
	b, err := s.boardModel(c, z, d, problem)
	if err != nil {
		return err
	}
	b.Stale = stale
	today := z.Today
	l := localizer(c)
	p := views.BoardPage{
		Page: s.page(c, l.Tf("board.title", map[string]any{"Date": l.Locale().Date(d.Time())})), Notice: pageNotice(c),
		DayLabel: dayLabel(l.Locale(), d),
		Prev:     d.AddDays(-1).String(), Next: d.AddDays(1).String(), Today: today.String(), IsToday: d == today,
		Board: b,
	}
	p.Zone = zoneLabel(l, z, d)
	p.Section = "board"
	form.Action = orgBase(m.Org.Slug) + "/jobs"
	form.Next = "board"
	form.Technicians = b.Technicians
	if form.Zone.Name == "" {
		form.Zone = zoneLabel(l, z, d)
	}
	p.Form = form
	return s.render(c, status, views.DayBoard(p))
}

// boardOverdueCookie remembers, for the browser session, that the reader
// unfolded the overdue section (static/board.js sets it when the section
// is opened or closed; a session cookie, a view preference only).
const boardOverdueCookie = "board_overdue"

// boardModel gathers one day: the org's active technicians as timeline
// rows, the day's jobs by route (field.Job.Route: jobs of inactive
// technicians are unassigned here as in the briefing), the open
// jobs whose window ended before the day, and the counts above the board,
// counted from those rows (countShown).
func (s *Server) boardModel(c echo.Context, z orgZone, d schedule.Date, problem string) (views.Board, error) {
	ctx := c.Request().Context()
	m := currentMembership(c)
	csrf, _ := c.Get(ctxCSRF).(string)
	l := localizer(c)
	b := views.Board{Base: orgBase(m.Org.Slug), CanEditField: m.CanEditField(), CSRF: csrf, Date: d.String(), Problem: problem, I18n: l}
	if ck, err := c.Cookie(boardOverdueCookie); err == nil && ck.Value == "open" {
		b.OverdueOpen = true
	}
	techs, err := s.field.ListTechnicians(ctx, m.Org.ID)
	if err != nil {
		return b, err
	}
	b.Technicians = technicianOptions(l, techs, 0)
	b.Columns = []views.BoardColumn{{Name: l.T("board.unassigned")}}
	column := map[int64]int{}
	for _, t := range techs {
		if t.Active {
			column[t.ID] = len(b.Columns)
			col := views.BoardColumn{TechnicianID: t.ID, Name: t.Name}
			if t.DaySheetsStoppedAt != nil {
				col.NoDaySheetsSince = stamp(l.Locale(), *t.DaySheetsStoppedAt, z.Loc)
			}
			b.Columns = append(b.Columns, col)
		}
	}
	start, end := schedule.DayBounds(z.Loc, d)
	day, err := s.field.ListJobs(ctx, m.Org.ID, field.JobFilter{From: start, To: end, Limit: field.MaxJobPage})
	if err != nil {
		return b, err
	}
	rows := make([][]field.Job, len(b.Columns))
	for _, j := range day.Jobs {
		i := column[j.Route()] // 0: unassigned (field.Job.Unassigned)
		rows[i] = append(rows[i], j)
	}
	var blocks [][]views.BoardBlock
	b.Timeline, blocks, b.Counts = timeline(l, z.Loc, d, s.now(), d == z.Today, rows)
	for i := range b.Columns {
		b.Columns[i].Blocks = blocks[i]
	}
	overdue, err := s.field.ListJobs(ctx, m.Org.ID, field.JobFilter{OverdueAt: start, Limit: maxOverdue})
	if err != nil {
		return b, err
	}
	for _, j := range overdue.Jobs {
		b.Overdue = append(b.Overdue, jobRow(l, z.Loc, j, d))
	}
	countShown(&b)
	b.Truncated = day.More || overdue.More
	if v := c.QueryParam("move"); v != "" && b.CanEditField {
		// The move form without JavaScript: the job's technician and
		// status forms above the board.
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			if j, err := s.field.Job(ctx, m.Org.ID, id); err == nil {
				row := jobRow(l, z.Loc, j, d)
				b.Move = &row
			}
		}
	}
	return b, nil
}

// countShown sets the action counts above the board from the blocks it
// shows (docs/field-data.md, "The day board", "Counts"): each chip is the
// number of blocks that carry its mark, so a job counts under every mark
// it has (an unassigned emergency is unassigned and an emergency). The
// briefing lists each job once, in its most urgent section, and says so.
func countShown(b *views.Board) {
	c := &b.Counts
	c.Emergencies, c.Overdue, c.Unassigned, c.OnHold = 0, len(b.Overdue), 0, 0
	mark := func(j views.JobRow, unassignedRow bool) {
		open := field.Open(j.Status)
		c.Emergencies += btoi(open && j.Emergency)
		c.Unassigned += btoi(open && unassignedRow)
		c.OnHold += btoi(j.Status == field.StatusOnHold)
	}
	for i, col := range b.Columns {
		for _, blk := range col.Blocks {
			mark(blk.JobRow, i == 0) // row 0: Unassigned (field.Job.Unassigned)
		}
	}
	for _, j := range b.Overdue {
		mark(j, false)
	}
}

// jobAssign gives a job to a technician (technician_id; empty takes it
// away) from the board, if the job is still at the card's version.
func (s *Server) jobAssign(c echo.Context) error {
	var techID int64
	if v := c.FormValue("technician_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return s.boardChangeRejected(c, "technician_id", localizer(c).T("board.not_technician"))
		}
		techID = id
	}
	version, err := formVersion(c, 0)
	if err != nil {
		return err
	}
	return s.boardChange(c, "assigned", func(jobID int64) (*views.BoardUndo, error) {
		_, err := s.field.Assign(c.Request().Context(), actor(c), s.now(), currentMembership(c).Org.ID, jobID, techID, version)
		return nil, err
	}, func(l *i18n.Localizer, names map[string]string, now field.Job) []views.StaleChange {
		name := func(id int64) string {
			if id == 0 {
				return l.T("board.unassigned")
			}
			return names[strconv.FormatInt(id, 10)]
		}
		ch := changes{l: l}
		ch.add("technician_id", "jobform.technician", name(now.TechnicianID), name(techID))
		return ch.out
	})
}

// jobSetStatus changes a job's status (status) from the board, if the job
// is still at the card's version.
func (s *Server) jobSetStatus(c echo.Context) error {
	status := c.FormValue("status")
	version, err := formVersion(c, 0)
	if err != nil {
		return err
	}
	return s.boardChange(c, "status-changed", func(jobID int64) (*views.BoardUndo, error) {
		_, err := s.field.SetStatus(c.Request().Context(), actor(c), s.now(), currentMembership(c).Org.ID, jobID, status, version)
		return nil, err
	}, func(l *i18n.Localizer, _ map[string]string, now field.Job) []views.StaleChange {
		ch := changes{l: l}
		ch.add("status", "jobform.status", statusName(l, now.Status), statusName(l, status))
		return ch.out
	})
}

// boardChange applies a change to the job in the URL, then shows the board
// of the form's date: the fragment for htmx, a redirect for plain forms.
// Invalid input is a 422 naming the field; another org's job is not found.
// A change made on a card older than the job (someone else changed it
// since) is a 409: the board as it is now, with what differs (diff: the
// job's stored value against the one asked for), nothing saved. A change
// that can be undone returns its Undo, shown in the notice (htmx only).
func (s *Server) boardChange(c echo.Context, code string, change func(jobID int64) (*views.BoardUndo, error),
	diff func(l *i18n.Localizer, names map[string]string, now field.Job) []views.StaleChange) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	m := currentMembership(c)
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	// The whole form is read before anything is saved: a bad date is a
	// 422 with the job untouched, not a 422 after the change.
	d, err := s.boardDate(c, c.FormValue("date"), z)
	if err != nil {
		return err
	}
	undo, err := change(id)
	if isStale(err) {
		return s.boardStale(c, z, d, id, diff)
	}
	if errs, ok := fieldFormErrors(localizer(c), err); ok {
		names := slices.Sorted(maps.Keys(errs))
		return s.boardChangeRejected(c, names[0], errs[names[0]])
	}
	if err != nil {
		return err
	}
	if isHTMX(c) {
		b, err := s.boardModel(c, z, d, "")
		if err != nil {
			return err
		}
		b.Notice, b.Undo = localNotice(localizer(c), code), undo
		return s.render(c, http.StatusOK, views.BoardView(b))
	}
	return redirect(c, orgBase(m.Org.Slug)+"/board?date="+d.String()+"&notice="+code)
}

// boardStale answers a stale quick change with 409 and the board of date
// d as it is now, the refusal and what differs above it: the fragment for
// htmx (layout.templ's htmx config swaps 409s), the page otherwise.
func (s *Server) boardStale(c echo.Context, z orgZone, d schedule.Date, id int64,
	diff func(l *i18n.Localizer, names map[string]string, now field.Job) []views.StaleChange) error {
	ctx, m, l := c.Request().Context(), currentMembership(c), localizer(c)
	now, err := s.field.Job(ctx, m.Org.ID, id)
	if err != nil {
		return err
	}
	techs, err := s.field.ListTechnicians(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	stale := &views.StaleNotice{Board: true, Reload: orgBase(m.Org.Slug) + "/board?date=" + d.String(),
		Changes: diff(l, technicianNames(techs), now), Undo: c.FormValue("undo") == "1"}
	if isHTMX(c) {
		b, err := s.boardModel(c, z, d, "")
		if err != nil {
			return err
		}
		b.Stale = stale
		return s.render(c, http.StatusConflict, views.BoardView(b))
	}
	form := newJobForm(d, "board")
	return s.renderBoardWith(c, http.StatusConflict, z, d, "", form, stale)
}

// boardChangeRejected answers a refused board change with 422: the board
// with the problem above it, the fragment for htmx. Nothing was saved.
func (s *Server) boardChangeRejected(c echo.Context, name, msg string) error {
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	d, err := s.boardDate(c, c.FormValue("date"), z)
	if err != nil {
		d = z.Today
	}
	problem := localizer(c).Tf("board.not_saved", map[string]any{"Field": name, "Problem": msg})
	if isHTMX(c) {
		b, err := s.boardModel(c, z, d, problem)
		if err != nil {
			return err
		}
		return s.render(c, http.StatusUnprocessableEntity, views.BoardView(b))
	}
	form := newJobForm(d, "board")
	return s.renderBoard(c, http.StatusUnprocessableEntity, z, d, problem, form)
}
