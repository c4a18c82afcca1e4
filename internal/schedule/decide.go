package schedule

import "time"

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
	Reason Reason
	Date   Date      // org-local date of now: the briefing date to store, never remapped
	FireAt time.Time // FireTime for Date; zero when paused, invalid or a day off
}

// Due reports whether a briefing should be enqueued for Date.
func (d Decision) Due() bool {
	return d.Reason == ReasonDue
}

// Decide applies the tick's eligibility rule (docs/scheduling.md, "The
// tick") at now: a briefing is due on
// the org-local date of now once now reaches that date's FireTime, and stays
// due for the rest of that local day (catch-up after downtime) until one is
// generated. generated reports whether a briefing exists for a local date;
// nil means none does. Checks run in order: paused, already generated, day
// off, not yet. A schedule without a zone (the zero Schedule) is
// ReasonInvalidConfig.
func Decide(now time.Time, s Schedule, generated func(Date) bool) Decision {
	if s.Zone.Loc == nil {
		return Decision{Reason: ReasonInvalidConfig}
	}
	d := Decision{Date: DateOf(now.In(s.Zone.Loc))}
	switch {
	case !s.Enabled:
		d.Reason = ReasonPaused
	case generated != nil && generated(d.Date):
		d.Reason = ReasonAlreadyGenerated
		d.FireAt, _ = FireTime(s.Zone.Loc, d.Date, s.At)
	case !s.Days.Has(d.Date.Weekday()):
		d.Reason = ReasonDayOff
	default:
		d.FireAt, _ = FireTime(s.Zone.Loc, d.Date, s.At)
		d.Reason = ReasonDue
		if now.Before(d.FireAt) {
			d.Reason = ReasonNotYet
		}
	}
	return d
}
