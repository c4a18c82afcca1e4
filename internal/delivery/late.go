package delivery

import (
	"fmt"
	"time"

	"fieldbrief/internal/schedule"
)

// SkippedLate is the last_code of a delivery skipped because its briefing
// was fired more than delivery.send_within after its scheduled minute
// (docs/guarantees.md, "Late briefings").
const SkippedLate = "late"

// Firing is when a briefing's scheduled firing happened and what it was
// for, as the tick recorded them (ff_briefings.scheduled_at and
// scheduled_for), with the zone the briefing is in.
type Firing struct {
	At  time.Time // the tick's instant; zero: not fired by the schedule
	For time.Time // the scheduled minute it fired for; zero: not recorded (rows fired before it was kept)
	Loc *time.Location
}

// Late reports whether deliveries of the firing are skipped: fired more
// than within after its scheduled minute. A firing without a recorded
// minute is never late.
func (f Firing) Late(within time.Duration) bool {
	return !f.At.IsZero() && !f.For.IsZero() && schedule.SentLate(f.At.Sub(f.For), within)
}

// LateDetail is a late firing in words, as the briefing page and the
// calendar show it: "made 21:35, 15 h after 06:30 — not sent".
func (f Firing) LateDetail() string {
	loc := f.Loc
	if loc == nil {
		loc = time.UTC
	}
	return fmt.Sprintf("made %s, %s after %s — not sent", f.At.In(loc).Format("15:04"), Lateness(f.At.Sub(f.For)), f.For.In(loc).Format("15:04"))
}

// Lateness says how late in the words of LateDetail: "40 min", "3 h 20
// min", and whole hours from ten hours on ("15 h").
func Lateness(d time.Duration) string {
	d = d.Truncate(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return fmt.Sprintf("%d min", m)
	case h >= 10 || m == 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}
