package web

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// jobMove moves a job on the board (docs/field-data.md, "The day board"):
// to technician_id when the form sends one (empty takes the job away),
// and to a new start when it sends one of start (a time of day on the
// board's date, the Move dialog), shift (minutes along the timeline, a
// drag) or start_at (an instant: an undo, which restores the start before
// the move). The window keeps its length and must stay within the board's
// day. Like every board change it is checked against the block's version,
// an undo too: a job someone changed since is refused, not overwritten.
func (s *Server) jobMove(c echo.Context) error {
	ctx, m, l := c.Request().Context(), currentMembership(c), localizer(c)
	id, err := idParam(c)
	if err != nil {
		return err
	}
	version, err := formVersion(c, 0)
	if err != nil {
		return err
	}
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	d, err := s.boardDate(c, c.FormValue("date"), z)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	var mv field.Move
	if _, ok := form["technician_id"]; ok {
		mv.Assign = true
		if v := strings.TrimSpace(c.FormValue("technician_id")); v != "" {
			techID, err := strconv.ParseInt(v, 10, 64)
			if err != nil || techID <= 0 {
				return s.boardChangeRejected(c, l.T("board.tl.move_to"), l.T("board.not_technician"))
			}
			mv.TechnicianID = techID
		}
	}
	// The job as the block showed it: a shift is from its start, and the
	// new window is checked against the day before anything is saved. The
	// store checks the version again as it saves.
	before, err := s.field.Job(ctx, m.Org.ID, id)
	if err != nil {
		return err
	}
	if version == 0 || before.Version == version {
		start, problem := moveStart(c, l, z, d, before)
		if problem != "" {
			return s.boardChangeRejected(c, l.T("board.tl.start"), problem)
		}
		mv.Start = start
	}
	code := "moved"
	if c.FormValue("undo") == "1" {
		code = "move-undone"
	}
	return s.boardChange(c, code, func(jobID int64) (*views.BoardUndo, error) {
		after, err := s.field.MoveJob(ctx, actor(c), s.now(), m.Org.ID, jobID, mv, version)
		if err != nil || code == "move-undone" {
			return nil, err
		}
		undo := &views.BoardUndo{JobID: after.ID, Version: after.Version,
			Assign: before.TechnicianID != after.TechnicianID, TechnicianID: before.TechnicianID}
		if !before.ArrivalStart.Equal(after.ArrivalStart) {
			undo.StartAt = before.ArrivalStart.Format(time.RFC3339)
		}
		return undo, nil
	}, func(l *i18n.Localizer, names map[string]string, now field.Job) []views.StaleChange {
		ch := changes{l: l}
		if mv.Assign {
			name := func(id int64) string {
				if id == 0 {
					return l.T("board.unassigned")
				}
				return names[strconv.FormatInt(id, 10)]
			}
			ch.add("technician_id", "jobform.technician", name(now.TechnicianID), name(mv.TechnicianID))
		}
		if !mv.Start.IsZero() {
			yours := mv.Start.Add(before.ArrivalEnd.Sub(before.ArrivalStart))
			ch.add("window", "jobform.window", window(l.Locale(), z.Loc, now.ArrivalStart, now.ArrivalEnd, d),
				window(l.Locale(), z.Loc, mv.Start, yours, d))
		}
		return ch.out
	})
}

// moveStart is the start a move form asks for (zero: keep the job's), or
// why it cannot be: a time that is no time, one the clocks skip that day,
// or a window that would leave the board's day d.
func moveStart(c echo.Context, l *i18n.Localizer, z orgZone, d schedule.Date, j field.Job) (time.Time, string) {
	var start time.Time
	switch {
	case strings.TrimSpace(c.FormValue("start")) != "":
		at, err := schedule.ParseLocalTime(strings.TrimSpace(c.FormValue("start")))
		if err != nil {
			return start, l.T("jobform.time_invalid")
		}
		var gap *schedule.GapError
		start, _, err = schedule.LocalDateTime(z.Loc, d, at)
		if errors.As(err, &gap) {
			return start, gapMessage(l, d, at, gap)
		} else if err != nil {
			return start, l.T("jobform.time_invalid")
		}
	case c.FormValue("shift") != "":
		minutes, err := strconv.Atoi(c.FormValue("shift"))
		if err != nil || minutes < -48*60 || minutes > 48*60 {
			return start, l.T("jobform.time_invalid")
		}
		start = j.ArrivalStart.Add(time.Duration(minutes) * time.Minute)
	case c.FormValue("start_at") != "":
		t, err := time.Parse(time.RFC3339, c.FormValue("start_at"))
		if err != nil {
			return start, l.T("jobform.time_invalid")
		}
		start = t
	default:
		return start, ""
	}
	if start.Equal(j.ArrivalStart) {
		return time.Time{}, ""
	}
	dayStart, dayEnd := schedule.DayBounds(z.Loc, d)
	if start.Before(dayStart) || start.Add(j.ArrivalEnd.Sub(j.ArrivalStart)).After(dayEnd) {
		return time.Time{}, l.T("board.tl.outside_day")
	}
	return start, ""
}
