package accounts

// The account-email task handler: turns a prepared link into an email and
// sends it the way briefings are sent (SMTP_URL, or the staff-readable
// outbox when it is unset).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/tenants"
)

// EmailHandler is the task handler of SendAccountEmailArgs.
type EmailHandler struct {
	river.WorkerDefaults[SendAccountEmailArgs]
	DB      *pgxpool.Pool
	Mailer  delivery.Mailer // SMTP, or the outbox when SMTP_URL is unset
	From    string          // MAIL_FROM
	BaseURL string          // BASE_URL: links are BaseURL + path
	Log     *slog.Logger
	Now     func() time.Time
}

// Work mints the link's token and sends its email in one transaction (see
// PrepareAccountEmail); the outbox is written in that transaction too.
// A task whose email is no longer wanted completes without sending.
func (w *EmailHandler) Work(ctx context.Context, job *river.Job[SendAccountEmailArgs]) error {
	a := job.Args
	err := pgx.BeginFunc(ctx, w.DB, func(tx pgx.Tx) error {
		m, err := PrepareAccountEmail(ctx, tx, a, w.Now())
		if err != nil {
			return err
		}
		msg, err := Compose(m, w.From, w.BaseURL)
		if err != nil {
			return err
		}
		mailer := w.Mailer
		if _, ok := mailer.(*delivery.OutboxMailer); ok {
			mailer = delivery.NewOutboxMailer(tx)
		}
		return mailer.Send(ctx, msg)
	})
	attrs := []any{"job_id", job.ID, "what", a.What, "id", a.ID, "org_id", a.OrgID, "attempt", job.Attempt}
	switch {
	case err == nil:
		w.Log.Info("account email sent", attrs...)
		return nil
	case errors.Is(err, ErrEmailNotWanted):
		w.Log.Info("account email not sent: no longer wanted", attrs...)
		return nil
	case delivery.IsPermanent(err):
		w.Log.Error("account email failed for good", append(attrs, "error", err)...)
		return river.JobCancel(err)
	}
	w.Log.Warn("account email failed; River retries it", append(attrs, "error", err)...)
	return err
}

// Compose builds the email of a prepared link: plain text, which every
// mail client shows well and which keeps the link whole. It is in its
// reader's language and formats (m.Language, m.Locale: docs/i18n.md); the
// link's end is in UTC, the one zone a person without an org has.
func Compose(m AccountEmail, from, baseURL string) (delivery.Message, error) {
	id, err := delivery.MessageIDFor(m.Key, from)
	if err != nil {
		return delivery.Message{}, err
	}
	msg := delivery.Message{From: from, To: m.To, MessageID: id, OrgID: m.OrgID}
	l := i18n.Resolve(m.Language, m.Locale, "")
	lc, until := l.Locale(), m.ExpiresAt.UTC()
	expires := l.Tf("mail.account.expires", map[string]any{"Date": lc.DateYear(until), "Time": lc.Time(until)})
	var b strings.Builder
	switch m.What {
	case EmailInvite:
		msg.Subject = l.Tf("mail.account.invite_subject", map[string]any{"Org": oneLine(m.OrgName)})
		inviter := m.Inviter
		if inviter == "" || inviter == audit.System.Email {
			inviter = l.T("mail.account.team")
		}
		role := l.T("mail.account.role_member")
		if m.Role == tenants.RoleAdmin {
			role = l.T("mail.account.role_admin")
		}
		b.WriteString(l.Tf("mail.account.invite_body", map[string]any{"Inviter": inviter, "Org": m.OrgName, "Role": role,
			"URL": baseURL + "/invites/" + m.Token, "Expires": expires}))
	case EmailReset:
		msg.Subject = l.T("mail.account.reset_subject")
		b.WriteString(l.Tf("mail.account.reset_body", map[string]any{"Email": m.To,
			"URL": baseURL + "/password/reset/" + m.Token, "Expires": expires}))
	default:
		return delivery.Message{}, fmt.Errorf("compose account email: unknown kind %q", m.What)
	}
	msg.Text = b.String()
	return msg, nil
}

// oneLine keeps an org name from breaking the subject header.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
