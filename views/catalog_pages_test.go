package views_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/a-h/templ"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// "No text outside the catalog" (docs/i18n.md): each page converted to the
// catalog is rendered with the pseudo-locale, whose every message is
// wrapped in ⟦…⟧, and every visible text node and every attribute people
// read (aria-label, title, placeholder, alt) must be inside markers, apart
// from the fixtures' user data, which the page is given and the test
// removes first. A page converted later joins coveredPages.

// fixtures are the user data the pages below show: names, addresses and
// the languages' and locales' own names (autonyms are not translated).
var fixtures = []string{
	"ada@acme.test", "Ada Lovelace", "Acme Field Services", "Globex Repairs", "req-7f3a",
	// CLDR's formats (internal/locale), not the catalog's: dates and zone ids.
	"Thu, Nov 26", "Wed, Nov 25", "America/Chicago", "Central Time (Chicago)", "UTC−06:00", "8:04\u202fAM",
	// The place data's names (internal/places).
	"Chicago", "United States",
}

func init() {
	for _, o := range i18n.LanguageOptions() {
		fixtures = append(fixtures, o.Name)
	}
	for _, o := range i18n.Locales() {
		fixtures = append(fixtures, o.Name)
	}
}

// coveredPages are the pages whose every word comes from the catalog.
func coveredPages() map[string]func(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	signedIn := func(p views.Page) views.Page {
		p.User = &views.User{Email: "ada@acme.test", IsStaff: true}
		p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", Admin: true}, {Slug: "globex", Name: "Globex Repairs"}}
		p.Org = &p.Orgs[0]
		return p
	}
	errorPage := func(status int, title, text, requestID string, in bool) func(p views.Page) templ.Component {
		return func(p views.Page) templ.Component {
			if in {
				p = signedIn(p)
			}
			p.Title = pl.T(title)
			return views.ErrorPage(p, status, pl.T(text), requestID)
		}
	}
	return map[string]func(p views.Page) templ.Component{
		"sign-in": func(p views.Page) templ.Component {
			p.Title = pl.T("signin.title")
			return views.Login(p, views.LoginForm{Email: "ada@acme.test", Next: "/orgs/acme/jobs",
				Notice: pl.T("notice.password_reset"), Error: pl.Tn("signin.throttled_account", 30, nil),
				EmailError: pl.T("signin.email_missing"), PasswordError: pl.T("signin.password_missing")})
		},
		"layout (signed in, staff, admin, two orgs)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("profile.title")
			return views.Layout(p)
		},
		"layout (one org, no current org)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Orgs = p.Orgs[:1]
			p.Org = nil
			p.Title = pl.T("profile.title")
			return views.Layout(p)
		},
		"layout (two orgs, no current org)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Org = nil
			p.Title = pl.T("profile.title")
			return views.Layout(p)
		},
		"error 404 (signed out)":   errorPage(404, "error.title.not_found", "error.text.not_found", "", false),
		"error 403":                errorPage(403, "error.title.forbidden", "error.text.forbidden", "", true),
		"error 429":                errorPage(429, "error.title.too_many", "error.text.too_many", "", true),
		"error 500 (with request)": errorPage(500, "error.title.internal", "error.text.internal", "req-7f3a", true),
		"briefings (admin, running, older and newer pages)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("briefings.title")
			zone := pl.Tf("briefings.zone.not_saved", map[string]any{"Zone": "America/Chicago"})
			return views.Briefings(views.BriefingsPage{Page: p, Slug: "acme", Notice: pl.T("briefings.notice.generating"),
				Problem: pl.Tn("briefings.refused.too_many", 12, nil), Admin: true, Usable: true, Paused: true,
				Zone: zone, ZoneID: "America/Chicago", State: pl.Tf("briefings.state.running_days", nil), StateKind: "running",
				NextRun: pl.Tf("briefings.next.run", nil),
				Days: []views.BriefingDay{
					{Date: "2026-11-26", Label: "Thu, Nov 26", Today: true, Status: "ready", Link: "/orgs/acme/briefings/2026-11-26",
						Manual: true, Reason: "generated", Why: pl.T("briefings.day.ready")},
					{Date: "2026-11-25", Label: "Wed, Nov 25", Reason: "not_scheduled", Why: pl.T("briefings.day.not_scheduled")},
				},
				Range: pl.Tf("briefings.range", nil), Older: "/orgs/acme/briefings?to=2026-11-11", Newer: "/orgs/acme/briefings"})
		},
		"briefings (member, latest page)": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("briefings.title")
			return views.Briefings(views.BriefingsPage{Page: p, Slug: "acme", Latest: true, StateKind: "invalid_config",
				State: pl.Tf("briefings.state.invalid", nil), Zone: "America/Chicago", ZoneID: "America/Chicago"})
		},
		"zone search results": func(p views.Page) templ.Component {
			return views.ZoneResults(p, "chicago", []views.ZoneOption{{Name: "America/Chicago", City: "Chicago",
				Region: "United States", Offset: "UTC−06:00", Local: "8:04\u202fAM", Label: "Central Time (Chicago)", Unique: true}})
		},
		"zone search, nothing found": func(p views.Page) templ.Component {
			return views.ZoneResults(p, "Chicago", nil)
		},
		"profile": func(p views.Page) templ.Component {
			p = signedIn(p)
			p.Title = pl.T("profile.title")
			pp := views.ProfilePage{Page: p, Email: "ada@acme.test", Name: "Ada Lovelace", Language: "es",
				Notice: pl.T("notice.language_saved"), Error: pl.Tn("signin.throttled_network", 2, nil),
				NameError: "", CurrentError: pl.T("profile.current_missing"), NewError: pl.T("profile.new_missing"),
				LanguageError: pl.T("profile.language_invalid")}
			for _, o := range i18n.LanguageOptions() {
				pp.Languages = append(pp.Languages, views.Option{Value: o.Tag, Label: o.Name})
			}
			return views.Profile(pp)
		},
		"technician's day link page": dayLinkPage,
	}
}

func TestCoveredPagesHaveNoTextOutsideTheCatalog(t *testing.T) {
	t.Parallel()
	for name, page := range coveredPages() {
		p := views.Page{CSRF: "tok", I18n: i18n.Pseudo()}
		var buf bytes.Buffer
		require.NoError(t, page(p).Render(context.Background(), &buf), name)
		out := buf.String()
		doc, err := html.Parse(strings.NewReader(out))
		require.NoError(t, err, name)
		var texts []string
		walkVisible(doc, func(s string) { texts = append(texts, s) })
		require.NotEmpty(t, texts, name)
		for _, s := range texts {
			if rest := outsideMarkers(s); rest != "" {
				t.Errorf("%s: text outside the catalog: %q (in %q)", name, rest, s)
			}
		}
		// The markers are really there: a page with none would pass vacuously.
		require.Contains(t, out, i18n.MarkOpen, name)
		// A message id the catalog lacks is printed as itself, in markers.
		for _, m := range missingID.FindAllStringSubmatch(out, -1) {
			t.Errorf("%s: no message %q in the catalog", name, m[1])
		}
	}
}

// missingID is a message id printed for want of its message: "⟦briefings.col.date⟧".
var missingID = regexp.MustCompile(i18n.MarkOpen + `([a-z_]+(?:\.[a-z_]+)+)` + i18n.MarkClose)

// An unconverted text is caught: the test above can fail.
func TestOutsideMarkersCatchesPlainText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Sign in", outsideMarkers("Sign in"))
	require.Equal(t, "Back to", outsideMarkers("Back to ⟦Acme⟧"))
	require.Equal(t, "", outsideMarkers(" ⟦Sign in⟧ · ✓ "))
	require.Equal(t, "", outsideMarkers("ada@acme.test"))
}

// walkVisible calls fn with every text people read: text nodes outside
// script and style, and the attributes read aloud or shown.
func walkVisible(n *html.Node, fn func(string)) {
	switch n.Type {
	case html.TextNode:
		if strings.TrimSpace(n.Data) != "" {
			fn(n.Data)
		}
	case html.ElementNode:
		if n.Data == "script" || n.Data == "style" {
			return
		}
		for _, a := range n.Attr {
			switch a.Key {
			case "aria-label", "title", "placeholder", "alt":
				fn(a.Val)
			case "value":
				if n.Data == "button" || (n.Data == "input" && attr(n, "type") == "submit") {
					fn(a.Val)
				}
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkVisible(c, fn)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// outsideMarkers is what remains of s once the catalog's messages and the
// fixtures are removed, when it has a letter or digit: "" if nothing
// readable is left (spacing, punctuation and symbols such as "✓" are no
// words).
func outsideMarkers(s string) string {
	var b strings.Builder
	depth := 0 // messages nest: a page title inside "{{.Title}} · fieldbrief"
	for _, r := range s {
		switch string(r) {
		case i18n.MarkOpen:
			depth++
		case i18n.MarkClose:
			depth--
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	rest := b.String()
	for _, f := range fixtures {
		rest = strings.ReplaceAll(rest, f, "")
	}
	if depth != 0 {
		return "unbalanced markers: " + s
	}
	if !strings.ContainsFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return ""
	}
	return strings.TrimSpace(rest)
}
