package worker

import (
	"bytes"
	"fmt"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
)

func gaugeValue(t *testing.T, g prometheus.Gauge) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, g.Write(&m))
	return m.GetGauge().GetValue()
}

// noonZone is a fixed-offset zone in which the database's clock reads
// between 12:00 and 12:59, so schedules an hour either side are decided
// the same way until the test ends; wall is the wall clock there d from
// the database's now, "15:04".
func (f *fixture) noonZone() (zone string, dbNow time.Time, wall func(d time.Duration) string) {
	f.T.Helper()
	require.NoError(f.T, f.DB.QueryRow(f.Ctx, `SELECT now()`).Scan(&dbNow))
	h := 12 - dbNow.UTC().Hour() // -11..12: local = UTC + h
	zone = fmt.Sprintf("Etc/GMT%+d", -h)
	if h == 0 {
		zone = "Etc/GMT"
	}
	loc := mustZone(zone)
	return zone, dbNow, func(d time.Duration) string { return dbNow.Add(d).In(loc).Format("15:04") }
}

// The tick decides at the database's clock, not the host's: a worker whose
// host clock is 6 h behind still fires what is due by the database's
// clock, and one 6 h ahead fires nothing early. The skew is measured at
// each tick (fieldbrief_clock_skew_seconds) and warned about
// (docs/scheduling.md, "One clock").
func TestTickDecidesAtTheDatabasesClock(t *testing.T) {
	f := setup(t)
	zone, dbNow, at := f.noonZone()
	// Due by the database's clock (an hour ago), not by a host 6 h behind.
	due := f.Org("due", deliveryConfig(zone, at(-time.Hour), nil, false, ""))
	// Not due by the database's clock (in two hours), due by a host 6 h ahead.
	later := f.Org("later", deliveryConfig(zone, at(2*time.Hour), nil, false, ""))

	for _, tc := range []struct {
		name string
		skew time.Duration
		want int // briefings fired
	}{
		{"host 6 h behind", -6 * time.Hour, 1},
		{"host 6 h ahead", 6 * time.Hour, 0},
	} {
		var logs bytes.Buffer
		w := f.worker(nil)
		w.Host = func() time.Time { return time.Now().Add(tc.skew) }
		w.Metrics = NewMetrics()
		w.Log = slog.New(slog.NewTextHandler(&logs, nil))
		res, err := w.RunOnce(f.Ctx, time.Time{}, time.Minute)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, res.Tick.Enqueued, tc.name)
		require.Less(t, math.Abs(time.Until(res.Tick.Now).Hours()), 1.0, "%s: decided at the database's clock, not the host's", tc.name)

		skew := gaugeValue(t, w.Metrics.tick().ClockSkew)
		require.InDelta(t, tc.skew.Seconds(), skew, 60, "%s: the gauge reports the host's skew", tc.name)
		require.Contains(t, logs.String(), "host clock differs from the database's", tc.name)
	}
	require.Len(t, f.Briefings(due), 1)
	require.Empty(t, f.Briefings(later), "nothing fired early")

	// A host in step warns of nothing; -now (or a fake clock) overrides the database's.
	var logs bytes.Buffer
	w := f.worker(nil)
	w.Metrics, w.Log = NewMetrics(), slog.New(slog.NewTextHandler(&logs, nil))
	_, err := w.RunOnce(f.Ctx, time.Time{}, time.Minute)
	require.NoError(t, err)
	require.NotContains(t, logs.String(), "host clock differs")
	require.Less(t, math.Abs(gaugeValue(t, w.Metrics.tick().ClockSkew)), 1.0)
	tomorrow := dbNow.Add(27 * time.Hour) // 15:xx there tomorrow
	res, err := f.worker(nil).RunOnce(f.Ctx, tomorrow, time.Minute)
	require.NoError(t, err)
	require.Equal(t, tomorrow, res.Tick.Now, "-now decides")
	require.Equal(t, 2, res.Tick.Enqueued, "tomorrow, both are due")
}
