package delivery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/updates"
)

// emailFirstWait is how long an update waits, each time, for the
// technician's briefing email of the date that is still being sent (or
// retried): the update must not arrive before the day it changes.
const emailFirstWait = time.Minute

// UpdateHandler runs updates.BriefingUpdateArgs: it folds a technician's
// pending changes of one date into one update — an email to them and a
// briefing.updated webhook, ordinary deliveries with their own tasks —
// once the changes are quiet for Delay and the technician's last update is
// updates.MinGap old (docs/delivery.md, "Updates").
type UpdateHandler struct {
	river.WorkerDefaults[updates.BriefingUpdateArgs]
	DB    *pgxpool.Pool
	Log   *slog.Logger
	Now   func() time.Time // default time.Now
	Delay time.Duration    // BRIEFING_UPDATE_DELAY; 0 is updates.DefaultDelay
}

func (h *UpdateHandler) Timeout(*river.Job[updates.BriefingUpdateArgs]) time.Duration {
	return time.Minute
}

func (h *UpdateHandler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

func (h *UpdateHandler) delay() time.Duration {
	if h.Delay <= 0 {
		return updates.DefaultDelay
	}
	return h.Delay
}

// Work prunes, then folds or snoozes. Whatever it decides is decided under
// the org's update lock (updates.LockOrg), and a task that folds, or finds nothing
// left, completes in that same transaction (JobCompleteTx): a change
// committed after it inserts a new task, one committed before is folded
// or waited for (a snooze keeps the task), so no change is left without
// a task and none is sent twice.
func (h *UpdateHandler) Work(ctx context.Context, job *river.Job[updates.BriefingUpdateArgs]) error {
	a := job.Args
	date, err := schedule.ParseDate(a.Date)
	if err != nil {
		return river.JobCancel(fmt.Errorf("briefing update of org %d: bad date %q: %w", a.OrgID, a.Date, err))
	}
	now := h.now()
	var wait time.Duration
	var res foldResult
	var pruned int64
	err = database.BeginFunc(ctx, h.DB, func(tx pgx.Tx) error {
		if err := updates.LockOrg(ctx, tx, a.OrgID); err != nil {
			return err
		}
		// What the technician's email has, or what concerns a technician
		// who got none, is nobody's news: gone before anything is read.
		var err error
		if pruned, err = updates.Prune(ctx, tx, a.OrgID, date); err != nil {
			return err
		}
		p, err := updates.ReadPending(ctx, tx, a.OrgID, a.TechnicianID, date)
		if err != nil {
			return err
		}
		if p.Count > 0 && !p.EmailPending {
			// Prune read the briefing in its own statement: in read
			// committed, a generation that committed between it and
			// ReadPending made its emails after Prune looked (Prune kept
			// everything, the firing being under way) and before this
			// read (nothing under way any more). Found in the loaded suite:
			// a technician with no job left got an update of a change her
			// briefing had already left out. Once a firing is no longer
			// under way it stays so, so a second Prune sees what this read
			// saw.
			again, err := updates.Prune(ctx, tx, a.OrgID, date)
			if err != nil {
				return err
			}
			if again > 0 {
				pruned += again
				if p, err = updates.ReadPending(ctx, tx, a.OrgID, a.TechnicianID, date); err != nil {
					return err
				}
			}
		}
		if p.Count > 0 {
			wait = updates.Wait(now, p.Oldest, p.Newest, p.LastSent, h.delay())
			// A day that is over waits for nothing: the fold records it past
			// (a generation that never finished leaves no email to wait for).
			if wait == 0 && p.EmailPending && !dayOver(p.Zone, date, now) {
				wait = emailFirstWait
			}
			if wait > 0 {
				return nil // nothing written; River keeps the task for later
			}
			if res, err = fold(ctx, tx, a, date, p, now); err != nil {
				return err
			}
		}
		if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
			return fmt.Errorf("complete task %d: %w", job.ID, err)
		}
		return nil
	})
	attrs := []any{"job_id", job.ID, "org_id", a.OrgID, "technician_id", a.TechnicianID, "date", a.Date}
	if err == nil && pruned > 0 {
		h.Log.Info("changes dropped: in the technicians' emails already, or of technicians who got none",
			append(attrs, "changes", pruned)...)
	}
	if err != nil {
		h.Log.Warn("briefing update failed; River retries it", append(attrs, "error", err)...)
		return err
	}
	if wait > 0 {
		h.Log.Debug("briefing update waits", append(attrs, "wait", wait.String())...)
		return river.JobSnooze(wait)
	}
	if res.updateID != 0 {
		h.Log.Info("briefing update made", append(attrs, "update_id", res.updateID, "outcome", res.outcome,
			"jobs", res.jobs, "deliveries", res.deliveries)...)
	}
	return nil
}

// dayOver reports whether date has ended at now in the zone named zone;
// false when the zone does not load.
func dayOver(zone string, date schedule.Date, now time.Time) bool {
	z, err := schedule.LoadZone(zone)
	return err == nil && date.Before(schedule.DateOf(now.In(z.Loc)))
}

// foldResult is what a fold made.
type foldResult struct {
	updateID         int64
	outcome          string
	jobs, deliveries int
}

// fold makes the update of the technician's pending changes of date up to
// p.MaxID, in tx: the update row, the changes taken into it, and its
// deliveries with their tasks.
func fold(ctx context.Context, tx pgx.Tx, a updates.BriefingUpdateArgs, date schedule.Date, p updates.Pending, now time.Time) (foldResult, error) {
	var res foldResult
	rows, _, err := updates.PendingRows(ctx, tx, a.OrgID, a.TechnicianID, date, p.MaxID)
	if err != nil {
		return res, err
	}
	var b struct {
		id       int64
		zone     string
		revision int
		config   []byte
		email    string
		active   bool
	}
	err = tx.QueryRow(ctx, `
		SELECT b.id, b.timezone, coalesce(b.delivered_revision, b.revision, 0),
		       (SELECT c.config_json FROM org_module_configs c WHERE c.org_id = b.org_id AND c.module = $3)
		  FROM ff_briefings b
		 WHERE b.org_id = $1 AND b.briefing_date = $2`,
		a.OrgID, date.Time(), schedule.Module).Scan(&b.id, &b.zone, &b.revision, &b.config)
	if err != nil {
		return res, fmt.Errorf("briefing of org %d on %s: %w", a.OrgID, date, err)
	}
	contact, _, err := field.ContactOf(ctx, tx, a.OrgID, a.TechnicianID) // a deleted technician: no address, not active
	if err != nil {
		return res, err
	}
	// One who asked not to receive day sheets gets no update either
	// (docs/delivery.md, "Stopping day sheets").
	b.email, b.active = contact.Email, contact.Active && contact.DaySheetsStoppedAt == nil
	items := updates.NotOver(updates.ForTechnician(rows), now)
	announced, err := updates.UnannouncedRows(ctx, tx, a.OrgID, rows)
	if err != nil {
		return res, err
	}
	hooks := updates.ForWebhook(announced)

	var recipients []recipient
	cfg, _, cfgErr := schedule.ParseConfig(b.config)
	switch {
	case dayOver(b.zone, date, now):
		res.outcome = updates.OutcomePast
	case b.config == nil || cfgErr != nil || !cfg.Delivery.UpdatesOn():
		res.outcome = updates.OutcomeOff
	case len(items) == 0 && len(hooks) == 0:
		res.outcome = updates.OutcomeNoChange
	default:
		d := cfg.Delivery
		if len(items) > 0 && d.Email != nil && d.Email.Technicians && b.email != "" && b.active {
			recipients = append(recipients, recipient{channel: ChannelEmail, audience: AudienceTechnician, address: b.email, technicianID: a.TechnicianID})
		}
		if len(hooks) > 0 && d.Webhook != nil && d.Webhook.URL != "" {
			recipients = append(recipients, recipient{channel: ChannelWebhook, audience: AudienceWebhook, address: d.Webhook.URL})
		}
		res.outcome = updates.OutcomeSent
		if len(recipients) == 0 {
			res.outcome = updates.OutcomeNoRecipient
		}
	}
	res.jobs = len(items)
	if res.updateID, err = updates.Fold(ctx, tx, a.OrgID, b.id, a.TechnicianID, date, res.outcome, res.jobs, p.MaxID, announced, now); err != nil {
		return res, err
	}
	if res.outcome != updates.OutcomeSent {
		return res, nil
	}
	var tasks []river.InsertManyParams
	for _, r := range recipients {
		var techID *int64
		if r.technicianID != 0 {
			techID = &r.technicianID
		}
		var id int64
		err := tx.QueryRow(ctx, `
			INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, technician_id, key, due_at, update_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
			a.OrgID, b.id, b.revision, r.channel, r.audience, r.address, techID, updateKey(res.updateID, r.channel, r.address), now, res.updateID).Scan(&id)
		if err != nil {
			return res, fmt.Errorf("insert delivery of update %d: %w", res.updateID, err)
		}
		tasks = append(tasks, river.InsertManyParams{Args: deliveryArgs(r.channel, a.OrgID, b.id, id)})
	}
	client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return res, fmt.Errorf("update delivery tasks: %w", err)
	}
	if _, err := client.InsertManyTx(ctx, tx, tasks); err != nil {
		return res, fmt.Errorf("insert update delivery tasks: %w", err)
	}
	res.deliveries = len(tasks)
	return res, nil
}

// updateKey is an update delivery's idempotency key (the Message-ID's
// seed, the webhook-id): one per update and recipient.
func updateKey(updateID int64, channel, recipient string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "update/%d/%s/%s", updateID, channel, strings.ToLower(recipient)))
	return "upd_" + hex.EncodeToString(sum[:16])
}
