package briefing

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Metrics are the pipeline's Prometheus collectors. A nil *Metrics records
// nothing, so tests and tools need not wire them.
type Metrics struct {
	Ticks        *prometheus.CounterVec // by result: ok, locked (another replica ran it), error
	Candidates   prometheus.Counter
	Skipped      *prometheus.CounterVec // by schedule.Reason
	Enqueued     prometheus.Counter
	Jobs         *prometheus.CounterVec // River job outcomes in this process, by kind and outcome
	TickDuration prometheus.Histogram
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
		Jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_jobs_total",
			Help: "Job attempts run by this worker, by kind and outcome (completed, retry, discarded, cancelled).",
		}, []string{"kind", "outcome"}),
		TickDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "fieldbrief_briefing_tick_duration_seconds", Help: "Duration of ticks that ran the scan.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16), // 1ms .. ~33s
		}),
	}
}

// Collectors lists every collector, for prometheus.Registerer.MustRegister.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Ticks, m.Candidates, m.Skipped, m.Enqueued,
		m.Jobs, m.TickDuration}
}

func (m *Metrics) observeTick(r TickResult, err error) {
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
}

// jobOutcome counts one attempt's end. Both labels are bounded: kinds are
// the ones this worker registers, outcomes the four below.
func (m *Metrics) jobOutcome(ev *river.Event) {
	if m == nil || ev.Job == nil {
		return
	}
	outcome := "completed"
	switch ev.Kind {
	case river.EventKindJobCancelled:
		outcome = "cancelled"
	case river.EventKindJobFailed:
		outcome = "retry"
		if ev.Job.State == rivertype.JobStateDiscarded {
			outcome = "discarded"
		}
	}
	m.Jobs.WithLabelValues(ev.Job.Kind, outcome).Inc()
}
