package views

import "time"

// APITokensPage is the org's API tokens page (admins).
type APITokensPage struct {
	Page
	Block APITokensBlock
}

// APITokensBlock is the page's body, also the htmx answer to create and
// revoke.
type APITokensBlock struct {
	Base    string // "/orgs/{slug}/settings/api-tokens"
	CSRF    string
	Tokens  []APITokenRow
	Name    string // the create form's name, as typed
	Error   string // beside the name
	Created string // the token just created: shown this once, never again
	Notice  string
	NameLen int // the longest name
}

// APITokenRow is one token in the list.
type APITokenRow struct {
	ID         int64
	Name       string
	Hint       string
	CreatedBy  string
	CreatedAt  time.Time
	LastUsedAt time.Time // zero: never
	RevokedAt  time.Time // zero: live
}
