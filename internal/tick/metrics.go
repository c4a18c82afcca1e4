package tick

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the tick's Prometheus collectors. A nil *Metrics records
// nothing, so tests and tools need not wire them.
type Metrics struct {
	Ticks        *prometheus.CounterVec // by result: ok, locked (another replica ran it), error
	Candidates   prometheus.Counter
	Skipped      *prometheus.CounterVec // by schedule.Reason
	Enqueued     prometheus.Counter
	TickDuration prometheus.Histogram
	Scans        *prometheus.CounterVec // ticks that ran, by path: hinted, full
	HintsWritten prometheus.Counter
	// HintDisagreements counts orgs on which a full scan and the next-fire
	// hints disagreed, by kind: missed_due (due, but the hinted scan did not
	// return it), late_hint (a stored hint that would miss the next firing). Any
	// is a bug, or new zone rules; the full scan fired what was due.
	HintDisagreements *prometheus.CounterVec
	// ClockSkew is the host's clock minus the database's, in seconds, as
	// the last tick measured it (DatabaseNow): the tick decides at the
	// database's clock, so this says how far the host's is off.
	ClockSkew prometheus.Gauge
}

// NewMetrics creates the collectors; register them with Collectors.
func NewMetrics() *Metrics {
	return &Metrics{
		Ticks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_briefing_ticks_total", Help: "Briefing ticks, by result (ok, locked, error).",
		}, []string{"result"}),
		Candidates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fieldbrief_briefing_candidates_total", Help: "Orgs returned by the candidate scan, summed over ticks.",
		}),
		Skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_briefing_skipped_total", Help: "Candidates not enqueued, by reason.",
		}, []string{"reason"}),
		Enqueued: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fieldbrief_briefing_enqueued_total", Help: "Briefings newly enqueued by ticks.",
		}),
		TickDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "fieldbrief_briefing_tick_duration_seconds", Help: "Duration of ticks that ran the scan.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16), // 1ms .. ~33s
		}),
		Scans: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_briefing_tick_scans_total", Help: "Ticks that ran the scan, by path (hinted, full).",
		}, []string{"path"}),
		HintsWritten: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fieldbrief_briefing_hints_written_total", Help: "Next-fire hints stored by ticks.",
		}),
		HintDisagreements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_tick_hint_disagreements_total",
			Help: "Orgs on which a full scan disagreed with the next-fire hints, by kind (missed_due, late_hint); should stay 0.",
		}, []string{"kind"}),
		ClockSkew: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "fieldbrief_clock_skew_seconds",
			Help: "The worker host's clock minus the database's, in seconds, measured at each tick; the tick decides at the database's clock.",
		}),
	}
}

// Collectors lists every collector, for prometheus.Registerer.MustRegister.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Ticks, m.Candidates, m.Skipped, m.Enqueued,
		m.TickDuration, m.Scans, m.HintsWritten, m.HintDisagreements, m.ClockSkew}
}

func (m *Metrics) observeTick(r Result, err error) {
	if m == nil {
		return
	}
	switch {
	case err != nil:
		m.Ticks.WithLabelValues("error").Inc()
	case !r.Ran:
		m.Ticks.WithLabelValues("locked").Inc()
		return
	default:
		m.Ticks.WithLabelValues("ok").Inc()
	}
	m.Candidates.Add(float64(r.Candidates))
	for reason, n := range r.Skipped {
		m.Skipped.WithLabelValues(string(reason)).Add(float64(n))
	}
	m.Enqueued.Add(float64(r.Enqueued))
	m.TickDuration.Observe(r.Duration.Seconds())
	if r.Path != "" {
		m.Scans.WithLabelValues(r.Path).Inc()
	}
	m.HintsWritten.Add(float64(r.HintsWritten))
	m.HintDisagreements.WithLabelValues("missed_due").Add(float64(len(r.MissedByHint)))
	m.HintDisagreements.WithLabelValues("late_hint").Add(float64(len(r.LateHints)))
}
