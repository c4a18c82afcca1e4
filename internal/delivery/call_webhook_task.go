package delivery

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// CallWebhookArgs posts one delivery row's webhook.
type CallWebhookArgs struct {
	OrgID      int64 `json:"org_id"`
	BriefingID int64 `json:"briefing_id"`
	DeliveryID int64 `json:"delivery_id"`
}

// Kind names the task in River; it is stored with every task, so it never
// changes.
func (CallWebhookArgs) Kind() string { return "call_webhook" }

// InsertOpts: a receiver that is down gets about an hour and a half of
// retries too; Retry-After from a 429/503 is honoured within maxRetryAfter.
func (CallWebhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: webhookMaxAttempts}
}

// CallWebhookHandler runs CallWebhookArgs tasks.
type CallWebhookHandler struct {
	river.WorkerDefaults[CallWebhookArgs]
	Sender *Sender
}

func (h *CallWebhookHandler) Timeout(*river.Job[CallWebhookArgs]) time.Duration {
	return sendTimeout + 15*time.Second
}

func (h *CallWebhookHandler) Work(ctx context.Context, job *river.Job[CallWebhookArgs]) error {
	return h.Sender.work(ctx, job.Args.OrgID, job.Args.DeliveryID, job.JobRow, webhookMaxAttempts)
}
