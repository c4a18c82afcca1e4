// Package views holds the templ components: the layout, pages and htmx
// fragments. Views take typed models defined here and never touch the
// database.
package views

// Page is what the shared layout needs on every full page.
type Page struct {
	Title   string
	CSRF    string
	User    *User     // nil when signed out
	Orgs    []OrgLink // the user's orgs, for the switcher
	Org     *OrgLink  // the org in the URL, if any
	Section string    // highlights the nav entry: "briefings", "settings", "staff"
	Limits  Limits
	I18n    Translator // the reader's language; the web always sets it
}

// Translator is the reader's language as pages use it (internal/i18n's
// Localizer; docs/i18n.md): components write { p.T("signin.title") }.
type Translator interface {
	T(id string) string
	Tf(id string, data map[string]any) string
	Tn(id string, count int, data map[string]any) string
	Lang() string // BCP 47, for <html lang>
}

// T is the message id in the reader's language (the id itself on a Page
// built without a Translator, which only tests do).
func (p Page) T(id string) string {
	if p.I18n == nil {
		return id
	}
	return p.I18n.T(id)
}

// Tf is the message id with its template data ({{.Name}}) filled in.
func (p Page) Tf(id string, data map[string]any) string {
	if p.I18n == nil {
		return id
	}
	return p.I18n.Tf(id, data)
}

// Tn is the plural message id for count (its {{.Count}}).
func (p Page) Tn(id string, count int, data map[string]any) string {
	if p.I18n == nil {
		return id
	}
	return p.I18n.Tn(id, count, data)
}

// Lang is the page's language for <html lang>.
func (p Page) Lang() string {
	if p.I18n == nil {
		return "en-US"
	}
	return p.I18n.Lang()
}

// Limits are the limits pages state, in maxlength attributes and hints.
// Views import no internal package, so the web fills them from the
// packages that enforce each one: a page never states a number the server
// does not apply.
type Limits struct {
	AddressLen      int // an email address, in characters
	NameLen         int // a person's, an org's or a technician's name
	Recipients      int // addresses in delivery.email.to
	ImportMB        int // one CSV import file
	ImportRows      int
	AuditExportRows int // one CSV export of the audit log
	SlugLen         int // an org's slug
	TokenNameLen    int // an API token's name
	WebhookURLLen   int // delivery.webhook.url, in bytes
	Customer        int // a job's fields, in characters
	Address         int
	Phone           int // a job's customer phone and a technician's phone
	Notes           int
	JobType         int
	ExternalRef     int // a job's or a technician's external reference
	ZoneQuery       int // the time zone picker's search
	PasswordLen     int // a new password's fewest characters (accounts.MinPasswordLen)
	// delivery.send_within: its default and bounds, spelled as typed ("3h")
	SendWithin, MinSendWithin, MaxSendWithin string
}

// User is the signed-in person as the layout shows them.
type User struct {
	Email   string
	IsStaff bool
}

// OrgLink is an org in the switcher and the header.
type OrgLink struct {
	Slug      string
	Name      string
	Admin     bool // settings (tenants.Membership.IsAdmin)
	EditField bool // technicians, jobs, the board, imports: admins and dispatchers (CanEditField)
}
