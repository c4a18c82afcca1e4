package accounts

// The account-email task handler: turns a prepared link into an email and
// sends it the way briefings are sent (SMTP_URL, or the staff-readable
// outbox when it is unset).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/text"
	"fieldbrief/internal/transport"
)

// EmailHandler is the task handler of SendAccountEmailArgs.
type EmailHandler struct {
	river.WorkerDefaults[SendAccountEmailArgs]
	DB      *pgxpool.Pool
	Mailer  transport.Mailer // SMTP, or the outbox when SMTP_URL is unset
	From    string           // MAIL_FROM
	BaseURL string           // BASE_URL: links are BaseURL + path
	Log     *slog.Logger
	Now     func() time.Time
	// Production (FIELDBRIEF_ENV=production) refuses to keep an account
	// email in the outbox: see Work.
	Production bool
}

// WithheldToken stands for a link's token in the copy of an account email
// kept in the outbox: staff read the outbox, and a usable invite or reset
// link there would let them join an org or take over an account (issue
// 19, item 12). It is no token (resetByToken and inviteByToken find none),
// so the link it makes answers "not valid".
const WithheldToken = "withheld"

// outboxNote opens the outbox copy of an account email, for the staff who
// read it (so in English, like the rest of the outbox's frame).
const outboxNote = "[Kept in the outbox, not sent: SMTP_URL is not set. The link's secret is withheld from this copy, " +
	"so that nobody but its recipient could ever use it; in development the worker's log shows the link.]\n\n"

// Work mints the link's token and sends its email in one transaction (see
// PrepareAccountEmail); the outbox is written in that transaction too.
// A task whose email is no longer wanted completes without sending.
//
// Without SMTP_URL (the outbox mailer) the usable link is never stored:
// the outbox keeps the email with WithheldToken in place of the token,
// and, in development only, the worker's log shows the link so that
// `make run` can still accept an invite. In production (Production) the
// email is refused instead: the task is cancelled, no token is minted, and
// the log says to set SMTP_URL (the web refuses such requests before they
// get here: Store.MailOff).
func (w *EmailHandler) Work(ctx context.Context, job *river.Job[SendAccountEmailArgs]) error {
	a := job.Args
	attrs := []any{"job_id", job.ID, "what", a.What, "id", a.ID, "org_id", a.OrgID, "attempt", job.Attempt}
	_, outbox := w.Mailer.(*transport.OutboxMailer)
	if outbox && w.Production {
		w.Log.Error("account email refused: production without SMTP_URL keeps no account email in the outbox", attrs...)
		return river.JobCancel(ErrAccountMailOff)
	}
	var devLink string
	err := database.BeginFunc(ctx, w.DB, func(tx pgx.Tx) error {
		m, err := PrepareAccountEmail(ctx, tx, a, w.Now())
		if err != nil {
			return err
		}
		mailer := w.Mailer
		if outbox {
			mailer = transport.NewOutboxMailer(tx)
			devLink = w.BaseURL + LinkPath(m.What, m.Token)
			m.Token = WithheldToken
		}
		msg, err := Compose(m, w.From, w.BaseURL)
		if err != nil {
			return err
		}
		if outbox {
			msg.Text = outboxNote + msg.Text
		}
		return mailer.Send(ctx, msg)
	})
	switch {
	case err == nil:
		if devLink != "" {
			w.Log.Info("account email kept in the outbox with its link withheld; development only, the link is",
				append(attrs, "link", devLink)...)
			return nil
		}
		w.Log.Info("account email sent", attrs...)
		return nil
	case errors.Is(err, ErrEmailNotWanted):
		w.Log.Info("account email not sent: no longer wanted", attrs...)
		return nil
	case transport.IsPermanent(err):
		w.Log.Error("account email failed for good", append(attrs, "error", err)...)
		return river.JobCancel(err)
	}
	w.Log.Warn("account email failed; River retries it", append(attrs, "error", err)...)
	return err
}

// Compose builds the email of a prepared link: plain text, which every
// mail client shows well and which keeps the link whole. It is in its
// reader's language and formats (m.Language, m.Locale: docs/i18n.md); the
// link's end is in the reader's zone (m.Zone), else UTC, and says which.
func Compose(m AccountEmail, from, baseURL string) (transport.Message, error) {
	id, err := transport.MessageIDFor(m.Key, from)
	if err != nil {
		return transport.Message{}, err
	}
	msg := transport.Message{From: from, To: m.To, MessageID: id, OrgID: m.OrgID}
	l := i18n.Resolve(m.Language, m.Locale, "")
	loc := m.Zone
	if loc == nil {
		loc = time.UTC
	}
	lc, until := l.Locale(), m.ExpiresAt.In(loc)
	expires := l.Tf("mail.account.expires", map[string]any{"Date": lc.DateYear(until), "Time": lc.Time(until), "Zone": lc.ZoneAbbr(until)})
	var b strings.Builder
	switch m.What {
	case EmailInvite:
		msg.Subject = l.Tf("mail.account.invite_subject", map[string]any{"Org": text.SubjectPart(m.OrgName)})
		inviter := m.Inviter
		if inviter == "" || inviter == audit.System.Email {
			inviter = l.T("mail.account.team")
		}
		words, ok := roleWords[m.Role]
		if !ok {
			words = roleWords[tenants.RoleMember]
		}
		role := l.T(words)
		b.WriteString(l.Tf("mail.account.invite_body", map[string]any{"Inviter": inviter, "Org": m.OrgName, "Role": role,
			"URL": baseURL + LinkPath(m.What, m.Token), "Expires": expires}))
	case EmailReset:
		msg.Subject = l.T("mail.account.reset_subject")
		b.WriteString(l.Tf("mail.account.reset_body", map[string]any{"Email": m.To,
			"URL": baseURL + LinkPath(m.What, m.Token), "Expires": expires}))
	default:
		return transport.Message{}, fmt.Errorf("compose account email: unknown kind %q", m.What)
	}
	msg.Text = b.String()
	return msg, nil
}

// LinkPath is the path of an account email's link.
func LinkPath(what, token string) string {
	if what == EmailInvite {
		return "/invites/" + token
	}
	return "/password/reset/" + token
}

// linkToken finds an account link's token: newLinkToken's base32, after
// the path of LinkPath.
var linkToken = regexp.MustCompile(`(/invites/|/password/reset/)[A-Za-z0-9]{16,64}`)

// WithholdLinks replaces the token of every invite or reset link in s by
// WithheldToken: the staff outbox shows messages through it, so that a
// copy kept before tokens were withheld at sending shows none either.
func WithholdLinks(s string) string {
	return linkToken.ReplaceAllString(s, "${1}"+WithheldToken)
}

// roleWords are the message ids of the roles as the invite says them ("as
// an admin"); an unknown role reads as a member (tenants.ParseRole refuses
// one before any invite is made).
var roleWords = map[tenants.Role]string{
	tenants.RoleMember:     "mail.account.role_member",
	tenants.RoleDispatcher: "mail.account.roles.dispatcher",
	tenants.RoleAdmin:      "mail.account.role_admin",
}
