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
	// I18n is the reader's language: the block is also an htmx answer,
	// without the Page around it. nil writes message ids (tests only).
	I18n    Translator
	Base    string // "/orgs/{slug}/settings/api-tokens"
	CSRF    string
	Tokens  []APITokenRow
	Name    string // the create form's name, as typed
	Scope   string // the create form's scope, as sent: "read", else read-write
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
	OrgOwned   bool      // made by web create-token: no person's role ends it
	ReadOnly   bool      // its scope is read: it writes nothing
	RevokedWhy string    // why it was revoked, in the reader's words; "" when not known
	// The three times in UTC, in the reader's formats.
	CreatedText, LastUsedText, RevokedText string
}

// T is the message id in the reader's language.
func (b APITokensBlock) T(id string) string { return Page{I18n: b.I18n}.T(id) }

// Tf is the message id with its template data filled in.
func (b APITokensBlock) Tf(id string, data map[string]any) string {
	return Page{I18n: b.I18n}.Tf(id, data)
}
