package worker

import (
	"context"
	"time"

	"fieldbrief/internal/webhooks"
)

// EventsEvery is how often the worker hands captured job and technician
// events to the org's webhook endpoints (webhooks.Dispatch): the most an
// event waits before its delivery task exists (docs/delivery.md, "Webhook
// endpoints").
const EventsEvery = time.Second

// pruneEventsEvery is how often the worker deletes events past
// webhooks.Retention.
const pruneEventsEvery = time.Hour

// dispatchEvents runs webhooks.Dispatch every EventsEvery and
// webhooks.Prune every pruneEventsEvery until ctx ends. Every replica runs
// it: an event is claimed by one of them.
func (w *Worker) dispatchEvents(ctx context.Context) {
	defer close(w.eventsDone)
	t := time.NewTicker(EventsEvery)
	defer t.Stop()
	var pruned time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.dispatchEventsOnce(ctx)
		if now := w.now(); now.Sub(pruned) >= pruneEventsEvery {
			pruned = now
			if n, err := webhooks.Prune(ctx, w.DB, now.Add(-webhooks.Retention)); err != nil {
				w.Log.Warn("prune webhook events", "error", err)
			} else if n > 0 {
				w.Log.Info("webhook events pruned", "events", n)
			}
		}
	}
}

// dispatchEventsOnce is one pass; an error is logged and the next pass
// tries again.
func (w *Worker) dispatchEventsOnce(ctx context.Context) {
	if _, err := webhooks.Dispatch(ctx, w.DB, w.Log, w.now()); err != nil && ctx.Err() == nil {
		w.Log.Warn("dispatch webhook events", "error", err)
	}
}
