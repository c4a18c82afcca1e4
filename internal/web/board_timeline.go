package web

import (
	"time"

	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// The timeline's hours: at least boardFirstHour to boardLastHour local,
// widened to the day's earliest start and latest end; a grid line every
// slotMinutes (static/field.css has the classes for up to 25 hours).
const (
	boardFirstHour = 6
	boardLastHour  = 20
	slotMinutes    = 15
	soonWithin     = time.Hour // "ends within the hour"
)

// timeline lays the day's jobs of each row out against the hours of the
// org-local day d in loc, and flags them (overlap, late, ends soon,
// unassigned on today's board) as of now.
//
// Every position is real elapsed time since the day's local midnight
// (schedule.DayBounds), not a wall-clock reading: on the day clocks
// spring forward 03:00 is one hour after 01:00, and on the day they fall
// back the hour 01:00 comes twice, so the day has 23 or 25 hours and
// each hour mark is labelled with its own wall-clock time.
func timeline(l *i18n.Localizer, loc *time.Location, d schedule.Date, now time.Time, today bool,
	rows [][]field.Job) (views.Timeline, [][]views.BoardBlock, views.BoardCounts) {
	dayStart, dayEnd := schedule.DayBounds(loc, d)
	minutes := func(t time.Time) int { return int(t.Sub(dayStart) / time.Minute) }
	first, _ := schedule.FireTime(loc, d, schedule.LocalTime{Hour: boardFirstHour})
	last, _ := schedule.FireTime(loc, d, schedule.LocalTime{Hour: boardLastHour})
	from, to := minutes(first), minutes(last)
	for _, jobs := range rows {
		for _, j := range jobs {
			from = min(from, minutes(j.ArrivalStart))
			to = max(to, minutes(j.ArrivalEnd))
		}
	}
	dayLen := minutes(dayEnd)
	from = max(from, 0) / 60 * 60                // down to the hour
	to = min((min(to, dayLen)+59)/60*60, dayLen) // up to the hour, within the day
	tl := views.Timeline{Slots: (to - from) / slotMinutes}
	for m := from; m < to; m += 60 {
		tl.Hours = append(tl.Hours, views.HourMark{Line: (m-from)/slotMinutes + 1,
			Label: l.Locale().Time(dayStart.Add(time.Duration(m) * time.Minute).In(loc))})
	}
	if n := minutes(now); today && n >= from && n < to {
		tl.Now = (n-from)/slotMinutes + 1
		tl.NowLabel = l.Locale().Time(now.In(loc))
	}
	line := func(m int) int { return (min(max(m, from), to)-from)/slotMinutes + 1 }

	var counts views.BoardCounts
	blocks := make([][]views.BoardBlock, len(rows))
	for r, jobs := range rows {
		out := make([]views.BoardBlock, len(jobs))
		for i, j := range jobs {
			b := views.BoardBlock{JobRow: jobRow(l, loc, j, d)}
			b.From = line(minutes(j.ArrivalStart))
			b.To = line(minutes(j.ArrivalEnd) + slotMinutes - 1) // up to the next line
			if b.To <= b.From {
				b.To = b.From + 1
			}
			b.ClipEnd = j.ArrivalEnd.After(dayEnd)
			if j.Status == field.StatusScheduled {
				b.Late = !j.ArrivalEnd.After(now)
				b.Soon = j.ArrivalEnd.After(now) && !j.ArrivalEnd.After(now.Add(soonWithin))
			}
			b.Attention = today && r == 0 && field.Open(j.Status)
			out[i] = b
		}
		if r > 0 { // a technician's row: their overlapping windows
			markOverlaps(jobs, out)
		}
		for _, b := range out {
			counts.Overlaps += btoi(b.Overlap)
			counts.Late += btoi(b.Late)
			counts.Soon += btoi(b.Soon)
		}
		blocks[r] = out
	}
	return tl, blocks, counts
}

// markOverlaps flags the jobs (in arrival order) whose windows overlap
// another's: a sweep keeping the jobs still running at each start. Only
// work still to do counts (scheduled or in progress): a job done, on hold
// or cancelled is no conflict to resolve; windows that only touch
// (10–12, 12–14) do not overlap.
func markOverlaps(jobs []field.Job, out []views.BoardBlock) {
	var running []int
	for i, j := range jobs {
		if j.Status != field.StatusScheduled && j.Status != field.StatusInProgress {
			continue
		}
		kept := running[:0]
		for _, k := range running {
			if jobs[k].ArrivalEnd.After(j.ArrivalStart) {
				kept = append(kept, k)
			}
		}
		running = kept
		for _, k := range running {
			out[k].Overlap, out[i].Overlap = true, true
		}
		running = append(running, i)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
