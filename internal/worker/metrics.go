package worker

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/tick"
)

// Metrics are the worker's Prometheus collectors: the tick's, the
// deliveries', and the outcomes of the tasks this process runs. A nil
// *Metrics records nothing, so tests and tools need not wire them.
type Metrics struct {
	Tick       *tick.Metrics
	Deliveries *delivery.Metrics
	Tasks      *prometheus.CounterVec // River task outcomes in this process, by kind and outcome
	// Rescued counts the tasks this process's lifeline gave back from dead
	// workers, by kind and the state given (available, discarded,
	// cancelled).
	Rescued *prometheus.CounterVec
	// HistoryDropped counts the history partitions dropped, by table
	// (docs/operations.md, "History retention").
	HistoryDropped *prometheus.CounterVec
}

// NewMetrics creates the collectors; register them with Collectors.
func NewMetrics() *Metrics {
	return &Metrics{
		Tick:       tick.NewMetrics(),
		Deliveries: delivery.NewMetrics(),
		Tasks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_jobs_total",
			Help: "Task attempts run by this worker, by kind and outcome (completed, retry, discarded, cancelled).",
		}, []string{"kind", "outcome"}),
		Rescued: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_tasks_rescued_total",
			Help: "Running tasks of dead workers given back by this worker's lifeline, by kind and the state given.",
		}, []string{"kind", "state"}),
		HistoryDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_history_partitions_dropped_total",
			Help: "History month partitions dropped by the retention task, by table.",
		}, []string{"table"}),
	}
}

// Collectors lists every collector, for prometheus.Registerer.MustRegister.
func (m *Metrics) Collectors() []prometheus.Collector {
	return append(append(m.Tick.Collectors(), m.Deliveries.Collectors()...), m.Tasks, m.Rescued, m.HistoryDropped)
}

// historyDropped counts a history partition dropped; the label is one of
// history.Tables.
func (m *Metrics) historyDropped(table string) {
	if m == nil || m.HistoryDropped == nil {
		return
	}
	m.HistoryDropped.WithLabelValues(table).Inc()
}

func (m *Metrics) tick() *tick.Metrics {
	if m == nil {
		return nil
	}
	return m.Tick
}

func (m *Metrics) delivery() *delivery.Metrics {
	if m == nil {
		return nil
	}
	return m.Deliveries
}

// taskOutcome counts one attempt's end. Both labels are bounded: kinds are
// the ones this worker registers, outcomes the four below.
func (m *Metrics) taskOutcome(ev *river.Event) {
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
	m.Tasks.WithLabelValues(ev.Job.Kind, outcome).Inc()
}

// rescued counts a task the lifeline gave back.
func (m *Metrics) rescued(kind, state string) {
	if m == nil {
		return
	}
	m.Rescued.WithLabelValues(kind, state).Inc()
}
