package web

import (
	"context"
	"slices"
	"time"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
)

// upcoming is schedule.Upcoming for an org: the next n firings the tick
// will make from now, counting as generated the dates the tick counts (the
// org's scheduled briefings in schedule.GeneratedWindow; "generate now"
// looks and test sends do not). The settings preview, its summary line and
// the briefings page's "Next run" all ask it (docs/scheduling.md, "The
// next run").
func (s *Server) upcoming(ctx context.Context, orgID int64, now time.Time, sched schedule.Schedule, n int) ([]schedule.Firing, error) {
	from, to := schedule.GeneratedWindow(now)
	dates, err := s.briefings.ScheduledDates(ctx, orgID, from, to)
	if err != nil {
		return nil, err
	}
	return schedule.Upcoming(now, sched, func(d schedule.Date) bool { return slices.Contains(dates, d) }, n), nil
}

// sends reports whether a delivery config sends anything.
func sends(d *schedule.DeliveryConfig) bool {
	return d != nil && (d.Email != nil || d.Webhook != nil)
}

// nextRun is the briefings page's "Next run", in the reader's words and
// clock: the first firing the tick will make (upcoming), with its UTC time
// and DST note, or what today's catch-up firing does; "" when nothing runs.
func (s *Server) nextRun(ctx context.Context, l *i18n.Localizer, orgID int64, st orgState, now time.Time) (string, error) {
	if !st.running() {
		return "", nil
	}
	runs, err := s.upcoming(ctx, orgID, now, st.Schedule, 2)
	if err != nil || len(runs) == 0 {
		return "", err
	}
	loc := l.Locale()
	r := runs[0]
	if r.CatchUp() {
		d := st.Config.Delivery
		data := map[string]any{"Time": loc.Clock(r.Scheduled.Hour, r.Scheduled.Minute)}
		switch {
		case !sends(d):
			return l.Tf("briefings.next.catch_up_made", data), nil
		case !schedule.SentLate(r.Late(), d.Within()):
			return l.Tf("briefings.next.catch_up_sent", data), nil
		case len(runs) > 1:
			data["First"] = loc.Date(runs[1].Local) + " " + loc.Time(runs[1].Local)
			return l.Tf("briefings.next.catch_up_kept_first", data), nil
		}
		return l.Tf("briefings.next.catch_up_kept", data), nil
	}
	next := l.Tf("briefings.next.run", map[string]any{
		"Date": loc.Date(r.Local), "Time": loc.Time(r.Local), "Offset": r.Offset, "UTC": loc.Time(r.UTC.UTC()),
	})
	switch r.Note {
	case schedule.DSTGap:
		next += "; " + l.Tf("briefings.next.gap", map[string]any{
			"Scheduled": loc.Clock(r.Scheduled.Hour, r.Scheduled.Minute), "Time": loc.Time(r.Local)})
	case schedule.DSTOverlap:
		next += "; " + l.Tf("briefings.next.overlap", map[string]any{
			"Scheduled": loc.Clock(r.Scheduled.Hour, r.Scheduled.Minute), "Offset": r.Offset})
	}
	return next, nil
}
