package views

import "time"

// MembersPage is an org's people: its members, and for admins the pending
// invites and the forms that change them.
type MembersPage struct {
	Page
	Base      string // "/orgs/{slug}"
	CanManage bool   // the viewer is an admin of the org
	SelfID    int64
	Members   []MemberRow
	Invites   []InviteRow
	Invite    InviteForm
	Notice    string
	Error     string       // a refused change (the last admin, say), above the list
	Stale     *StaleNotice // a role change over a newer version was refused (409)
}

// MemberRow is one person in the members table.
type MemberRow struct {
	UserID     int64
	Name       string
	Email      string
	Role       string
	LastSignIn time.Time // zero: never
	// LastSignInText is LastSignIn in UTC, in the reader's formats.
	LastSignInText string
	Version        int64 // of the membership, carried by the role form
	// Chosen is the role a refused (stale) change asked for, kept in the
	// row's select so it can be applied again; "" shows Role.
	Chosen string
}

// shownRole is the role the row's select shows.
func (m MemberRow) shownRole() string {
	if m.Chosen != "" {
		return m.Chosen
	}
	return m.Role
}

// InviteRow is one pending (or expired) invite.
type InviteRow struct {
	ID        int64
	Email     string
	Role      string
	InvitedBy string
	SentAt    time.Time
	ExpiresAt time.Time
	Expired   bool
	// SentAt and ExpiresAt in UTC, in the reader's formats.
	SentText, ExpiresText string
}

// InviteForm is the invite form as typed, with its messages.
type InviteForm struct {
	Email      string
	Role       string
	EmailError string
	RoleError  string
}

// InvitePage is what an invite link opens.
type InvitePage struct {
	Page
	Action     string // the form's action: the link itself
	OrgName    string
	Email      string // the invited address
	Role       string
	HasAccount bool   // sign in to accept rather than create an account
	SignedInAs string // the browser's current account, if any
	Name       string
	NameError  string
	PassError  string
	Error      string
}

// LinkProblemPage explains why an invite or reset link does not work.
type LinkProblemPage struct {
	Page
	Heading  string
	Message  string
	Next     string // what to do, a local path
	NextText string
}

// ForgotPage asks for the email address of an account to reset.
type ForgotPage struct {
	Page
	Email      string
	EmailError string
	Error      string // throttled
	Sent       bool   // the same answer whether or not the address has an account
}

// ResetPage sets a new password through a reset link.
type ResetPage struct {
	Page
	Action    string
	Email     string
	PassError string
}

// ProfilePage is the signed-in person's name, language and password.
type ProfilePage struct {
	Page
	Email         string
	Name          string
	Language      string   // their own language, "" for the org's
	Languages     []Option // Value the tag ("de"), Label its name in itself ("Deutsch")
	LanguageError string
	NameError     string
	CurrentError  string
	NewError      string
	Error         string
	Notice        string
}

// NewOrgPage is the staff form that creates an org and invites its first
// admin.
type NewOrgPage struct {
	Page
	Slug        string
	Name        string
	AdminEmail  string
	Locale      string   // the org's locale; the form's default is the browser's
	Locales     []Option // Value the tag, Label its name in its own language
	SlugError   string
	NameError   string
	EmailError  string
	LocaleError string
	Notice      string
}
