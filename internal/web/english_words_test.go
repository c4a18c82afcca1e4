package web

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/i18n"
)

// No English on a German, Spanish or French page (docs/i18n.md, "No
// English on another language's page"): every page an org's admin opens,
// server-rendered for a de-DE, an es-US and an fr-FR org, is read for
// words of the English catalog that the page's language never uses —
// visible text and the attributes people read (aria-label, title,
// placeholder, alt). Not read: user data (the fixtures' names), IANA zone
// ids and codes people type (small.zone-id, code, kbd, pre, [translate=no]),
// the audit history's action codes (.mono), CLDR's exemplar cities ("New
// York", a place's name), the locales' own names ("English (New
// Zealand)") and the words in englishAllowed.

// englishAllowed are words of the English catalog a page in another
// language may show: brand and product names, formats and codes people
// type or read as codes.
var englishAllowed = map[string]bool{
	"fieldbrief": true, "csv": true, "utf": true, "api": true, "json": true, "http": true, "https": true, "smtp": true,
	"webhook": true, "webhooks": true, "token": true, "tokens": true, "bearer": true, "authorization": true,
	"openapi": true, "hmac": true, "sha": true, "url": true, "iana": true, "utc": true, "gmt": true,
	"yes": true, "no": true, // the CSV import's values, typed as they are
	"worker": true, // the run history's column, a process name
	"test":   true, "start": true, "status": true, "briefing": true, "briefings": true, "admin": true,
}

// catalogWordSet are the lower-case words of a catalog's messages.
func catalogWordSet(t *testing.T, lang string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile("../i18n/locales/active." + lang + ".toml")
	require.NoError(t, err)
	var tree map[string]any
	require.NoError(t, toml.Unmarshal(raw, &tree))
	out := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			v = regexp.MustCompile(`\{\{[^}]*\}\}`).ReplaceAllString(v, " ")
			for _, w := range wordRE.FindAllString(v, -1) {
				out[strings.ToLower(w)] = true
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(tree)
	return out
}

// ianaID is a zone id as people type it: "America/New_York".
var ianaID = regexp.MustCompile(`\b(Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)/[A-Za-z_/+-]+`)

var wordRE = regexp.MustCompile(`\p{L}[\p{L}'’]*`)

// englishOnly are the English catalog's words of three letters or more
// that lang's catalog never uses.
func englishOnly(t *testing.T, lang string) map[string]bool {
	en, other := catalogWordSet(t, "en"), catalogWordSet(t, lang)
	out := map[string]bool{}
	for w := range en {
		if len([]rune(w)) >= 3 && !other[w] && !englishAllowed[w] {
			out[w] = true
		}
	}
	return out
}

// readText is what a person reads on a page: its text nodes and read
// attributes, without scripts, styles, zone ids and codes.
func readText(body string) []string {
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "code", "kbd", "pre", "template", "head", "textarea": // a textarea holds what was typed (the JSON config)
				return
			}
			for _, a := range n.Attr {
				switch {
				case a.Key == "class" && slices.ContainsFunc(strings.Fields(a.Val), func(c string) bool {
					return c == "zone-id" || c == "zone-name" || c == "mono" // IANA ids, audit action codes
				}),
					a.Key == "translate" && a.Val == "no":
					return
				case a.Key == "aria-label" || a.Key == "title" || a.Key == "placeholder" || a.Key == "alt":
					out = append(out, a.Val)
				}
			}
		}
		if n.Type == html.TextNode {
			out = append(out, n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// englishOn lists the English words a page shows, each with its text.
func englishOn(body string, english map[string]bool, userData []string) []string {
	var found []string
	for _, s := range readText(body) {
		for _, u := range userData {
			s = strings.ReplaceAll(s, u, " ")
		}
		s = ianaID.ReplaceAllString(s, " ")
		for _, w := range wordRE.FindAllString(s, -1) {
			if english[strings.ToLower(w)] {
				found = append(found, fmt.Sprintf("%q in %q", w, strings.Join(strings.Fields(s), " ")))
			}
		}
	}
	return found
}

func TestNoEnglishOnOtherLanguagesPages(t *testing.T) {
	ff := setupField(t)
	day := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC) // the test clock's day
	j := ff.job(ff.orgA.ID, "Smith", day, ff.ana.ID)
	bid := insertBriefing(t, ff.fixture, ff.orgA.ID, briefingRow{Date: "2026-03-03", Content: contentSnapshot()})
	// Its deliveries: one sent, a technician's update, one kept back as late
	// (the worker stores its reason in English, for logs).
	ctx := context.Background()
	var tech, update int64
	require.NoError(t, ff.db.QueryRow(ctx, `INSERT INTO technicians (org_id, name, email) VALUES ($1, 'Ana', 'ana@acme.test') RETURNING id`,
		ff.orgA.ID).Scan(&tech))
	require.NoError(t, ff.db.QueryRow(ctx, `
		INSERT INTO ff_briefing_updates (org_id, briefing_id, technician_id, briefing_date, outcome, jobs, created_at)
		VALUES ($1, $2, $3, '2026-03-03', 'sent', 1, '2026-03-03 15:00Z') RETURNING id`, ff.orgA.ID, bid, tech).Scan(&update))
	_, err := ff.db.Exec(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, technician_id, key, state, due_at, update_id)
		VALUES ($1, $2, 1, 'email', 'technician', 'ana@acme.test', $3, 'upd_1', 'sent', '2026-03-03 15:00Z', $4)`,
		ff.orgA.ID, bid, tech, update)
	require.NoError(t, err)
	_, err = ff.db.Exec(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, due_at, last_code, last_detail)
		VALUES ($1, $2, 1, 'email', 'dispatcher', 'ops@acme.test', 'late_1', 'skipped', '2026-03-03 15:00Z', 'late',
		        'made 9:35 PM, 15 h after 6:30 AM — not sent')`, ff.orgA.ID, bid)
	require.NoError(t, err)
	pages := []string{
		"/profile",
		"/orgs/acme/board", "/orgs/acme/jobs", fmt.Sprintf("/orgs/acme/jobs/%d", j.ID),
		"/orgs/acme/technicians", fmt.Sprintf("/orgs/acme/technicians/%d", ff.ana.ID),
		"/orgs/acme/briefings?notice=already-generating", briefingsPath + "/2026-03-03?notice=resending",
		"/orgs/acme/members", "/orgs/acme/import",
		"/orgs/acme/settings/fieldforce", "/orgs/acme/settings/api-tokens", "/orgs/acme/settings/webhooks",
		"/orgs/acme/settings/fieldforce/zones?q=berlin",
	}
	// The fixtures' own data: people's and places' names, typed text.
	userData := []string{"Acme Field Services", "Globex Repairs", "Ana Lima", "Smith", "admin@acme.test", "member@acme.test", "ana@acme.test", "ops@acme.test",
		"Ada Lovelace", "Stark Industries HQ", "Stark Industries", "Fire Station", "Initech HQ", "Initech", "1 Main St",
		"Boiler repair", `Ask for "Sam" <b>`, "New York", "Nueva York", "Gone Ltd HQ", "Gone Ltd"}
	for _, o := range i18n.Locales() {
		userData = append(userData, o.Name)
	}
	for _, loc := range []string{"de-DE", "es-US", "fr-FR"} {
		ff.setLocale(ff.orgA.ID, loc)
		lang, _, _ := strings.Cut(loc, "-")
		english := englishOnly(t, lang)
		for _, p := range pages {
			r := ff.admin.get(p)
			require.Equal(t, http.StatusOK, r.Code, "%s %s", loc, p)
			if found := englishOn(r.Body, english, userData); len(found) > 0 {
				t.Errorf("%s %s shows English:\n  %s", loc, p, strings.Join(found, "\n  "))
			}
		}
	}
}
