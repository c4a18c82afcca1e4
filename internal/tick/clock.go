package tick

import (
	"context"
	"fmt"
	"time"

	"fieldbrief/internal/database"
)

// SkewWarnAbove is how far the host's clock may be from the database's
// before every tick warns (docs/scheduling.md, "One clock").
const SkewWarnAbove = time.Second

// DatabaseNow is the instant the tick decides at: the database's clock,
// read in a statement of its own (its own short transaction, outside the
// tick's), so every replica decides at the same clock whatever its host's
// says (docs/scheduling.md, "One clock"). host is the host's clock, read
// before and after: the skew, host minus database at the reading's
// midpoint, goes to fieldbrief_clock_skew_seconds, and a skew beyond
// SkewWarnAbove is logged as a warning. A lost connection is retried; a
// reading that still fails counts as a failed tick.
func (t *Ticker) DatabaseNow(ctx context.Context, host func() time.Time) (time.Time, error) {
	var dbNow, before, after time.Time
	err := database.RetryTransient(ctx, t.Log, "read the database's clock", func(ctx context.Context) error {
		before = host()
		err := t.DB.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&dbNow)
		after = host()
		return err
	})
	if err != nil {
		if t.Metrics != nil {
			t.Metrics.Ticks.WithLabelValues("error").Inc()
		}
		t.Log.Error("briefing tick skipped: the database's clock could not be read; the next minute tries again", "error", err)
		return time.Time{}, fmt.Errorf("read the database's clock: %w", err)
	}
	skew := before.Add(after.Sub(before) / 2).Sub(dbNow)
	if t.Metrics != nil {
		t.Metrics.ClockSkew.Set(skew.Seconds())
	}
	if skew > SkewWarnAbove || skew < -SkewWarnAbove {
		t.Log.Warn("host clock differs from the database's; the tick decides at the database's clock",
			"skew_seconds", skew.Seconds(), "host", before, "database", dbNow)
	}
	return dbNow, nil
}
