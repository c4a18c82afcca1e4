package delivery

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// SendBriefingEmailArgs sends one delivery row's email: a dispatcher's whole
// briefing or a technician's own day.
type SendBriefingEmailArgs struct {
	OrgID      int64 `json:"org_id"`
	BriefingID int64 `json:"briefing_id"`
	DeliveryID int64 `json:"delivery_id"`
}

// Kind names the task in River; it is stored with every task, so it never
// changes.
func (SendBriefingEmailArgs) Kind() string { return "send_briefing_email" }

// InsertOpts: SMTP servers greylist and defer for minutes; with River's
// backoff (attempt⁴ s) eight attempts span about an hour and a half, which
// still lands the briefing within the working morning.
func (SendBriefingEmailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: emailMaxAttempts}
}

// SendEmailHandler runs SendBriefingEmailArgs tasks.
type SendEmailHandler struct {
	river.WorkerDefaults[SendBriefingEmailArgs]
	Sender *Sender
}

func (h *SendEmailHandler) Timeout(*river.Job[SendBriefingEmailArgs]) time.Duration {
	return sendTimeout + 15*time.Second
}

func (h *SendEmailHandler) Work(ctx context.Context, job *river.Job[SendBriefingEmailArgs]) error {
	return h.Sender.work(ctx, job.Args.OrgID, job.Args.DeliveryID, job.JobRow, emailMaxAttempts)
}
