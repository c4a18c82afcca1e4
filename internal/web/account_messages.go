package web

import (
	"time"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/text"
	"fieldbrief/internal/tokens"
)

// The members, invite, password and API token pages in the reader's
// language (docs/i18n.md). The lower packages (accounts, tenants, tokens,
// the admin check) give each refusal and field problem a stable code
// (apperr.Error.Reason, apperr.Field.Code) beside their English Message,
// which the JSON API and the logs keep; this map is the one place a code
// becomes the reader's words. A code missing here shows the English
// Message (localMessage), so a new refusal is never lost, only untranslated.

// reasonMessage is a code's catalog message; count, when set, makes it a
// plural message of that count (the limit the refusal is about).
type reasonMessage struct {
	id    string
	count func() int
	max   int // {{.Max}}, for a length limit
}

var reasonMessages = map[string]reasonMessage{
	// internal/accounts: invites
	"already_member":         {id: "members.err.already_member"},
	"already_invited":        {id: "members.err.already_invited"},
	"invites_waiting":        {id: "members.err.invites_waiting", count: func() int { return accounts.MaxOpenInvites }},
	"invites_today":          {id: "members.err.invites_today", count: func() int { return accounts.MaxInvitesPerDay }},
	"invite_accepted":        {id: "members.err.invite_accepted"},
	"invite_revoked":         {id: "members.err.invite_revoked"},
	"invite_sends":           {id: "members.err.invite_sends", count: func() int { return accounts.MaxInviteSends }},
	"invite_too_soon":        {id: "members.err.invite_too_soon"},
	"invite_accepted_remove": {id: "members.err.invite_accepted_remove"},
	"has_account":            {id: "members.err.has_account"},
	"invite_other_account":   {id: "members.err.invite_other_account"},
	// internal/accounts: names, addresses, passwords
	"name_required":     {id: "members.err.name_required", max: text.MaxNameLen},
	"name_characters":   {id: "members.err.name_characters"},
	"email_invalid":     {id: "signin.email_invalid", max: text.MaxAddressLen},
	"password_required": {id: "invite.password_choose", max: accounts.MaxPasswordLen},
	"password_short":    {id: "pwrule.short", count: func() int { return accounts.MinPasswordLen }},
	"password_common":   {id: "pwrule.common"},
	// internal/tenants
	"last_admin":   {id: "members.err.last_admin"},
	"role_invalid": {id: "members.role_choose"},
	// internal/web: requireAdmin
	"admins_only": {id: "members.err.admins_only"},
	// internal/tokens
	"token_name_required":   {id: "tokens.err.name_required", max: tokens.MaxNameLen},
	"token_name_characters": {id: "members.err.name_characters"},
	"token_name_reserved":   {id: "tokens.err.name_reserved"},
	"token_limit":           {id: "tokens.err.limit", count: func() int { return tokens.MaxLive }},
	"token_name_taken":      {id: "tokens.err.name_taken"},
	"token_scope":           {id: "tokens.err.scope"},

	// internal/accounts' addresses we never send to
	// (text's codes, on the email field) and account emails refused in
	// production without SMTP_URL (accounts.ErrAccountMailOff).
	text.CodeAddressIP:       {id: "security.email_public_domain"},
	text.CodeAddressDotless:  {id: "security.email_public_domain"},
	text.CodeAddressInternal: {id: "security.email_public_domain"},
	"account_mail_off":       {id: "security.mail_off"},
	// internal/httpkit: a request past its database bounds (httpkit.Bound)
	"busy_record": {id: "error.text.busy_record"},
}

// reasonWords is err's code in l's words, with data for the message's
// fields ({{.Email}}, {{.Name}}, {{.Current}}); ok is false for an error
// without a known code.
func reasonWords(l *i18n.Localizer, err error, data map[string]any) (string, bool) {
	m, ok := reasonMessages[apperr.ReasonOf(err)]
	if !ok {
		return "", false
	}
	d := map[string]any{}
	for k, v := range data {
		d[k] = v
	}
	if m.max > 0 {
		d["Max"] = l.Locale().Number(m.max)
	}
	if m.count != nil {
		n := m.count()
		d["Count"] = l.Locale().Number(n)
		return l.Tn(m.id, n, d), true
	}
	return l.Tf(m.id, d), true
}

// localMessage is what a page tells its reader of err: its code's words,
// else the error's own (English) message.
func localMessage(l *i18n.Localizer, err error, data map[string]any) string {
	if w, ok := reasonWords(l, err, data); ok {
		return w
	}
	return apperr.Message(err)
}

// utcStamp is an instant in UTC in the reader's formats: "Thu, Nov 26,
// 2026, 12:30 PM UTC", "Do., 26. Nov. 2026, 12:30 UTC". The account pages
// show UTC (a person may be in several orgs' zones); the zero time is "".
func utcStamp(lc locale.Locale, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	return lc.DateYear(t) + ", " + lc.Time(t) + " UTC"
}
