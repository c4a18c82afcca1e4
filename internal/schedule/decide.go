package schedule

import (
	"errors"
	"fmt"
	"time"
)

// Reason is why a briefing is or is not due.
type Reason string

const (
	ReasonDue              Reason = "due"
	ReasonNotYet           Reason = "not_yet"
	ReasonAlreadyGenerated Reason = "already_generated"
	ReasonDayOff           Reason = "day_off"
	ReasonPaused           Reason = "paused"
	ReasonInvalidConfig    Reason = "invalid_config"
)

// Decision is the outcome of Decide, with what the tick logs and enqueues.
type Decision struct {
	Reason   Reason
	Date     Date      // org-local date of now: the briefing date to store, never remapped
	LocalNow time.Time // now in the org's zone
	FireAt   time.Time // FireTime for Date; zero when paused, invalid or a day off
	Note     DSTNote
	Err      error // why the config is invalid, for ReasonInvalidConfig
}

// Due reports whether a briefing should be enqueued for Date.
func (d Decision) Due() bool {
	return d.Reason == ReasonDue
}

// Decide applies ADR-0024's eligibility rule at now: a briefing is due on
// the org-local date of now once now reaches that date's FireTime, and stays
// due for the rest of that local day (catch-up after downtime) until one is
// generated. generated reports whether a briefing exists for a local date;
// nil means none does. Checks run in order: paused, already generated, day
// off, not yet.
func Decide(now time.Time, s Schedule, generated func(Date) bool) Decision {
	if s.Zone.Loc == nil {
		return Decision{Reason: ReasonInvalidConfig, Err: errors.New("schedule has no time zone")}
	}
	local := now.In(s.Zone.Loc)
	d := Decision{Date: DateOf(local), LocalNow: local}
	switch {
	case !s.Enabled:
		d.Reason = ReasonPaused
	case generated != nil && generated(d.Date):
		d.Reason = ReasonAlreadyGenerated
		d.FireAt, d.Note = FireTime(s.Zone.Loc, d.Date, s.At)
	case !s.Days.Has(d.Date.Weekday()):
		d.Reason = ReasonDayOff
	default:
		d.FireAt, d.Note = FireTime(s.Zone.Loc, d.Date, s.At)
		d.Reason = ReasonDue
		if now.Before(d.FireAt) {
			d.Reason = ReasonNotYet
		}
	}
	return d
}

// DecideConfig decides for a stored config document; a document that does
// not validate yields ReasonInvalidConfig so the tick can skip and report
// that org alone.
func DecideConfig(now time.Time, raw []byte, generated func(Date) bool) Decision {
	s, err := parseSchedule(raw)
	if err != nil {
		return Decision{Reason: ReasonInvalidConfig, Err: fmt.Errorf("decide briefing: %w", err)}
	}
	return Decide(now, s, generated)
}
