package i18n

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"fieldbrief/internal/apperr"
)

// Refusals: one table (docs/i18n.md, "Refusals: one table"). Stores and
// domain packages refuse with a stable reason code and its named arguments
// (apperr.Refuse, apperr.FieldRefusal), never with a sentence; this table
// is the one place a reason becomes words. Pages render it in the reader's
// language, emails in the recipient's, the JSON API in English (English),
// beside its stable `code`. TestEveryReasonHasWords (refusals_test.go)
// finds every reason the code uses and fails when one is missing here or
// in a catalog.

// refusal is how the catalog says one reason: its message id and, for a
// plural message, the argument that is its count ("" for none).
type refusal struct {
	id    string
	count string
}

var refusals = map[string]refusal{
	// internal/accounts: invites (the members page)
	"already_member":         {id: "members.err.already_member"},
	"already_invited":        {id: "members.err.already_invited"},
	"invites_waiting":        {id: "members.err.invites_waiting", count: "Count"},
	"invites_today":          {id: "members.err.invites_today", count: "Count"},
	"invite_not_found":       {id: "members.err.invite_not_found"},
	"invite_accepted":        {id: "members.err.invite_accepted"},
	"invite_revoked":         {id: "members.err.invite_revoked"},
	"invite_sends":           {id: "members.err.invite_sends", count: "Count"},
	"invite_too_soon":        {id: "members.err.invite_too_soon"},
	"invite_accepted_remove": {id: "members.err.invite_accepted_remove"},
	"has_account":            {id: "members.err.has_account"},
	"invite_other_account":   {id: "members.err.invite_other_account"},
	// internal/accounts: names, addresses, passwords, sign-in
	"name_required":            {id: "members.err.name_required"},
	"name_characters":          {id: "members.err.name_characters"},
	"email_invalid":            {id: "signin.email_invalid"},
	"admin_email_invalid":      {id: "staff.err.admin_email"},
	"address_ip_literal":       {id: "security.email_public_domain"},
	"address_dotless_domain":   {id: "security.email_public_domain"},
	"address_internal_domain":  {id: "security.email_public_domain"},
	"account_mail_off":         {id: "security.mail_off"},
	"password_required":        {id: "invite.password_choose"},
	"password_short":           {id: "pwrule.short", count: "Count"},
	"password_common":          {id: "pwrule.common"},
	"current_password_missing": {id: "profile.current_missing"},
	"current_password_wrong":   {id: "profile.current_wrong"},
	"credentials_wrong":        {id: "signin.wrong"},
	// internal/tenants: orgs, members, settings
	"last_admin":        {id: "members.err.last_admin"},
	"role_invalid":      {id: "members.role_choose"},
	"member_not_found":  {id: "members.err.not_member"},
	"member_role_stale": {id: "members.err.role_stale"},
	"org_gone":          {id: "members.err.org_gone"},
	"org_slug_taken":    {id: "staff.err.slug_taken"},
	"org_slug_invalid":  {id: "staff.err.slug_invalid"},
	"org_name_required": {id: "staff.err.name_required"},
	"org_name_invalid":  {id: "staff.err.name_characters"},
	"settings_stale":    {id: "bsettings.err.stale"},
	// internal/web: the role checks
	"admins_only":  {id: "members.err.admins_only"},
	"editors_only": {id: "members.err.editors_only"},
	// internal/tokens (the API tokens page, the API's bearer token)
	"token_name_required":   {id: "tokens.err.name_required"},
	"token_name_characters": {id: "members.err.name_characters"},
	"token_name_reserved":   {id: "tokens.err.name_reserved"},
	"token_limit":           {id: "tokens.err.limit", count: "Count"},
	"token_name_taken":      {id: "tokens.err.name_taken"},
	"token_scope":           {id: "tokens.err.scope"},
	"token_not_found":       {id: "tokens.err.not_found"},
	"token_invalid":         {id: "tokens.err.invalid"},
	// internal/flags (the staff pages)
	"flag_state_invalid":   {id: "staff.err.flag_state"},
	"flag_reason_required": {id: "staff.err.reason_required"},
	"flag_reason_too_long": {id: "staff.err.reason_too_long"},
	// internal/transport: the staff outbox
	"outbox_not_found": {id: "staff.err.outbox_not_found"},
	// internal/field: technicians and jobs
	"technician_not_found":     {id: "technicians.err.not_found"},
	"technician_ref_not_found": {id: "technicians.err.ref_not_found"},
	"technician_has_jobs":      {id: "technicians.err.has_jobs"},
	"technician_stale":         {id: "technicians.err.stale"},
	"technicians_limit":        {id: "technicians.err.limit"},
	"technicians_batch":        {id: "technicians.err.batch"},
	"job_not_found":            {id: "jobs.err.not_found"},
	"job_ref_not_found":        {id: "jobs.err.ref_not_found"},
	"job_stale":                {id: "jobs.err.stale"},
	"jobs_batch":               {id: "jobs.err.batch"},
	// internal/fieldimport: a whole file, an upload, a save
	"import_header_too_long": {id: "import.header_too_long"},
	"import_header_too_wide": {id: "import.header_too_wide"},
	"import_too_large":       {id: "import.too_large"},
	"import_too_many_rows":   {id: "import.too_many_rows"},
	"import_upload_gone":     {id: "import.err.upload_gone"},
	"import_changed":         {id: "import.changed"},
	"import_not_saveable":    {id: "import.err.not_saveable"},
	// internal/briefing: reading, "generate now", test sends
	"briefing_not_found":        {id: "briefing.err.not_found"},
	"briefing_not_configured":   {id: "briefings.refused.not_configured"},
	"briefing_settings_invalid": {id: "briefings.refused.invalid"},
	"briefing_flag_off":         {id: "briefings.refused.flag_off"},
	"briefing_busy":             {id: "briefings.refused.busy"},
	"generate_too_many":         {id: "briefings.refused.too_many", count: "Minutes"},
	"test_too_many":             {id: "bsettings.test.too_many", count: "Minutes"},
	// internal/delivery: test sends and the delivery log
	"test_in_flight":      {id: "bsettings.err.test_in_flight"},
	"test_no_webhook":     {id: "bsettings.test.no_webhook"},
	"test_not_found":      {id: "bsettings.err.test_not_found"},
	"delivery_not_found":  {id: "bsettings.err.delivery_not_found"},
	"delivery_not_failed": {id: "bsettings.err.delivery_not_failed"},
	// internal/webhooks: endpoints
	"webhook_not_found":            {id: "hooks.err.not_found"},
	"webhook_limit":                {id: "hooks.err.limit"},
	"webhook_added_meanwhile":      {id: "hooks.err.added_meanwhile"},
	"webhook_stale":                {id: "hooks.err.stale"},
	"webhook_url_required":         {id: "hooks.err.url_required"},
	"webhook_description_too_long": {id: "hooks.err.description_too_long"},
	"webhook_description_line":     {id: "hooks.err.description_line"},
	"webhook_event_unknown":        {id: "hooks.err.event_unknown"},
	"webhook_events_required":      {id: "hooks.err.events_required"},
	// internal/daylinks, internal/unsubscribe: links in emails
	"daylink_not_found":        {id: "daylink.error.not_found"},
	"daylink_too_many":         {id: "daylink.error.too_many", count: "Count"},
	"unsubscribe_link_invalid": {id: "unsubscribe.invalid"},
	"unsubscribe_org_gone":     {id: "unsubscribe.err.org_gone"},
	// internal/httpkit: a request past its database bounds (httpkit.Bound)
	"busy_record": {id: "error.text.busy_record"},
}

// Reasons are the reason codes the table says, sorted (for the tests).
func Reasons() []string { return slices.Sorted(maps.Keys(refusals)) }

// ReasonMessage is the catalog message id of reason, "" when the table
// does not know it (for the tests).
func ReasonMessage(reason string) string { return refusals[reason].id }

// Say is the refusal reason with its args in l's words; ok is false for a
// reason the table does not know. An int argument is a count or a limit,
// written as a number of the reader's locale ("50,000", "50.000"); other
// integers (ids, years) as digits; a time.Duration in whole minutes.
func (l *Localizer) Say(reason string, args apperr.Args) (string, bool) {
	r, ok := refusals[reason]
	if !ok || reason == "" {
		return "", false
	}
	data := make(map[string]any, len(args))
	for k, v := range args {
		data[k] = l.argument(v)
	}
	if r.count != "" {
		n, _ := args[r.count].(int)
		data["Count"] = l.Locale().Number(n)
		return l.Tn(r.id, n, data), true
	}
	return l.Tf(r.id, data), true
}

func (l *Localizer) argument(v any) any {
	switch v := v.(type) {
	case int:
		return l.Locale().Number(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case time.Duration:
		return l.Locale().Number(int((v + time.Minute - 1) / time.Minute))
	case fmt.Stringer:
		return v.String()
	}
	return v
}

// Refusal is err's refusal in l's words: its reason and arguments through
// the table. ok is false for an error that carries no refusal the table
// knows, or that has a message of its own (the packages not converted
// yet: docs/i18n.md).
func (l *Localizer) Refusal(err error) (string, bool) {
	e, ok := apperr.As(err)
	if !ok || e.Message != "" || e.Code == apperr.Internal {
		return "", false
	}
	if e.Reason != "" {
		return l.Say(e.Reason, e.Args)
	}
	if len(e.Fields) == 1 {
		return l.FieldWords(e.Fields[0])
	}
	return "", false
}

// FieldWords is one field problem in l's words: its reason through the
// table, else its own message (ok false when it has neither).
func (l *Localizer) FieldWords(f apperr.Field) (string, bool) {
	if f.Message != "" {
		return f.Message, true
	}
	return l.Say(f.Code, f.Args)
}

// Message is what l's reader is told of err: its refusal in their words,
// else its own message (English, from a package not converted yet), else
// "" (an error that leaves its words to its status, as apperr.Message).
func (l *Localizer) Message(err error) string {
	if w, ok := l.Refusal(err); ok {
		return w
	}
	return apperr.Message(err)
}
