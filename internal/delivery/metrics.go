package delivery

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the deliveries' Prometheus collectors. A nil *Metrics records
// nothing, so tests and tools need not wire them.
type Metrics struct {
	Deliveries  *prometheus.CounterVec   // delivery attempts, by channel (email, webhook) and outcome (sent, retry, failed)
	DeliveryLag *prometheus.HistogramVec // from the scheduled minute to the receiver accepting, by channel
}

// NewMetrics creates the collectors; register them with Collectors.
func NewMetrics() *Metrics {
	return &Metrics{
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldbrief_deliveries_total", Help: "Delivery attempts, by channel (email, webhook) and outcome (sent, retry, failed).",
		}, []string{"channel", "outcome"}),
		DeliveryLag: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "fieldbrief_delivery_latency_seconds",
			Help:    "From a briefing's scheduled minute to its delivery being accepted, by channel.",
			Buckets: prometheus.ExponentialBuckets(0.25, 2, 16), // 0.25s .. ~2.3h
		}, []string{"channel"}),
	}
}

// Collectors lists every collector, for prometheus.Registerer.MustRegister.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Deliveries, m.DeliveryLag}
}

// delivery counts one delivery attempt and, when it was accepted, how long
// after the scheduled minute. Both labels take the constants of
// deliveries.go only.
func (m *Metrics) delivery(channel, outcome string, sinceDue time.Duration) {
	if m == nil {
		return
	}
	m.Deliveries.WithLabelValues(channel, outcome).Inc()
	if outcome == AttemptSent {
		m.DeliveryLag.WithLabelValues(channel).Observe(sinceDue.Seconds())
	}
}
