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
