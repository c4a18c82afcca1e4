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
	Slug  string
	Name  string
	Admin bool
}
