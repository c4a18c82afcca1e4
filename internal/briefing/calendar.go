package briefing

import (
	"time"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/schedule"
)

// DayReason is what a calendar day of an org's briefings shows: what the
// briefing row says when there is one, or else why there is none, judged
// by what was in force then (config, pause, flag), not by today's settings
// (docs/web.md, "The briefings calendar"). The web renders each
// to words in one place.
type DayReason uint8

const (
	DayGenerated     DayReason = iota + 1 // ready, not delivered (nothing to send, or not yet)
	DayDelivered                          // ready, and sent to at least one recipient
	DayPending                            // being generated
	DayFailed                             // generation failed
	DayBeforeSetup                        // the org did not exist at that day's run time
	DayNotConfigured                      // no config was saved yet
	DayInvalidConfig                      // the config in force did not validate
	DayFlagOff                            // the platform had the briefing flag off for the org
	DayPaused                             // the schedule was paused
	DayNotScheduled                       // not one of the schedule's days then
	DayNotYet                             // today (or later), before the run time
	DayDueNow                             // today, past the run time: the worker is about to run it
	DayMissed                             // scheduled, everything on, and no briefing
	DayLate                               // ready, fired too late to send: its deliveries were skipped
)

var dayCodes = [...]string{
	DayGenerated: "ready", DayDelivered: "delivered", DayPending: "pending", DayFailed: "failed",
	DayBeforeSetup: "before_setup", DayNotConfigured: "not_configured", DayInvalidConfig: "invalid_config",
	DayFlagOff: "flag_off", DayPaused: "paused", DayNotScheduled: "day_off", DayNotYet: "not_yet",
	DayDueNow: "due", DayMissed: "missed", DayLate: "late",
}

// String is the reason's stable code, for markup and logs.
func (r DayReason) String() string {
	if int(r) < len(dayCodes) && dayCodes[r] != "" {
		return dayCodes[r]
	}
	return "unknown"
}

// Day is one local date of the calendar.
type Day struct {
	Date   schedule.Date
	Reason DayReason
	RunAt  time.Time // the date's run time under the config then in force; zero when there was none
	Zone   *time.Location
	Note   string // DayLate: "made 21:35, 15 h after 06:30 — not sent"
	// Fired is a DayLate's scheduled firing, for its words in the
	// reader's language; its At is zero when not recorded.
	Fired delivery.Firing
}

// Explain tells what a date without a briefing shows. A past date is judged
// by the config and flag in force at its run time (hist), today's at now;
// created is when the org was set up, loc the zone the calendar's dates are
// in (for a date whose config had no usable zone).
func Explain(d, today schedule.Date, now, created time.Time, loc *time.Location, hist flags.BriefingHistory) Day {
	day := Day{Date: d, Zone: loc}
	if today.Before(d) {
		day.Reason = DayNotYet
		return day
	}
	at := now
	if d != today {
		at = runTime(d, loc, hist)
	}
	st := hist.At(at)
	if st.Err == nil && st.Found {
		day.Zone = st.Schedule.Zone.Loc
		day.RunAt, _ = schedule.FireTime(st.Schedule.Zone.Loc, d, st.Schedule.At)
	}
	switch {
	case d.Before(schedule.DateOf(created.In(day.Zone))):
		day.Reason = DayBeforeSetup
	case !st.Found:
		day.Reason = DayNotConfigured
	case st.Err != nil:
		day.Reason = DayInvalidConfig
	case !st.FlagOn:
		day.Reason = DayFlagOff
	case !st.Schedule.Enabled:
		day.Reason = DayPaused
	case !st.Schedule.Days.Has(d.Weekday()):
		day.Reason = DayNotScheduled
	case d == today && now.Before(day.RunAt):
		day.Reason = DayNotYet
	case d == today:
		day.Reason = DayDueNow
	case day.RunAt.Before(created):
		day.Reason = DayBeforeSetup
	default:
		day.Reason = DayMissed
	}
	return day
}

// runTime is the instant a past date is judged at: its run time under the
// config in force then. That config is found from the one in force at the
// date's noon, then at that config's run time (a change earlier that day
// applies); a date with no usable config is judged at noon.
func runTime(d schedule.Date, loc *time.Location, hist flags.BriefingHistory) time.Time {
	at := time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, loc)
	for range 2 {
		st := hist.At(at)
		if st.Err != nil || !st.Found {
			return at
		}
		next, _ := schedule.FireTime(st.Schedule.Zone.Loc, d, st.Schedule.At)
		if next.Equal(at) {
			break
		}
		at = next
	}
	return at
}

// ReasonOf is what a date with a briefing shows.
func ReasonOf(b Briefing) DayReason {
	switch {
	case b.Status == StatusFailed:
		return DayFailed
	case b.Status == StatusPending:
		return DayPending
	case b.Delivered:
		return DayDelivered
	case b.Late != "":
		return DayLate
	}
	return DayGenerated
}

// DayOf is the calendar day of a date with a briefing (List's row).
func DayOf(b Briefing) Day {
	d := Day{Date: b.Date, Reason: ReasonOf(b)}
	if d.Reason == DayLate {
		d.Note = b.Late
		if !b.ScheduledAt.IsZero() && !b.ScheduledFor.IsZero() {
			d.Fired = delivery.Firing{At: b.ScheduledAt, For: b.ScheduledFor, Loc: time.UTC}
			if z, err := schedule.LoadZone(b.Timezone); err == nil {
				d.Fired.Loc = z.Loc
			}
		}
	}
	return d
}
