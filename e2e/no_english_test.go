package e2e

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/chromedp/chromedp"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/demo"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

// No English on another language's page, in the browser (docs/i18n.md,
// "No English on another language's page"): the settings page, the day
// board and today's briefing of an org in each of the four languages, at a
// phone's width (390 px) and a laptop's (1280 px), one tab per language.
// A German, Spanish or French page shows no word of the English catalog
// its own catalog never uses (the server-side test,
// internal/web TestNoEnglishOnOtherLanguagesPages, reads more pages;
// this one reads what the browser shows, after the scripts ran).
// Screenshots: docs/i18n.md, "Screenshots" (56-…).
func TestNoEnglishInTheBrowserAt390And1280(t *testing.T) {
	e := startEnv(t)
	now := time.Now()
	sum, err := demo.Seed(e.ctx, e.store.Accounts, now)
	e.must("seed the demo data", err)
	lumiere := e.seedFrenchOrg(now)
	for _, slug := range []string{"northwind", "bergmann"} {
		o, err := e.store.Tenants.OrgBySlug(e.ctx, slug)
		e.must("find "+slug, err)
		e.generateBriefing(o)
	}
	_, err = e.store.Tenants.SaveFieldforce(e.ctx, audit.System, lumiere.ID,
		[]byte(`{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"07:00","enabled":true}}`), tenants.AnyVersion)
	e.must("lumiere's settings", err)
	e.generateBriefing(lumiere)

	// The orgs' own data (customers, addresses, notes, job types, names:
	// Northwind's are English, and read by the Spanish reader) is not the
	// page's words.
	userData := map[string]map[string]bool{}
	for _, slug := range []string{"northwind", "bergmann", "lumiere"} {
		var all string
		e.must("user data of "+slug, e.db.QueryRow(e.ctx, `
			SELECT o.name || ' ' || coalesce((SELECT string_agg(to_jsonb(j)::text, ' ') FROM jobs j WHERE j.org_id = o.id), '')
			       || ' ' || coalesce((SELECT string_agg(to_jsonb(x)::text, ' ') FROM technicians x WHERE x.org_id = o.id), '')
			  FROM orgs o WHERE o.slug = $1`, slug).Scan(&all))
		userData[slug] = map[string]bool{"new": true, "york": true} // CLDR's exemplar city: a place's name
		for _, w := range wordPattern.FindAllString(all, -1) {
			userData[slug][strings.ToLower(w)] = true
		}
	}
	english := map[string]map[string]bool{}
	for _, lang := range []string{"de", "es", "fr"} {
		english[lang] = englishOnlyWords(t, lang)
	}
	cases := languageCases(sum.Password)
	for i := range cases {
		if cases[i].lang == "es" { // the Spanish reader is Northwind's admin here: settings are admins'
			cases[i].reader = account{"admin@northwind.test", sum.Password}
		}
	}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.lang
	}
	e.inParallel(names, func(p *env, i int) {
		c := cases[i]
		s := p.newSession(c.lang + "-no-english")
		s.login(c.reader)
		if c.lang == "es" {
			s.open("/profile")
			s.setValue("#language", "es")
			s.submit("#save-language")
			s.waitText(`main .notice[role="status"]`)
		}
		z, err := schedule.LoadZone(c.zone)
		p.must("zone", err)
		today := schedule.DateOf(time.Now().In(z.Loc)).String()
		pages := []struct{ name, path, wait string }{
			{"settings", "/orgs/" + c.slug + "/settings/fieldforce", "main form"},
			{"board", "/orgs/" + c.slug + "/board", "#board"},
			{"briefing", "/orgs/" + c.slug + "/briefings/" + today, "main h1"},
		}
		for _, width := range []int64{390, 1280} {
			height := int64(844)
			if width > 390 {
				height = 900
			}
			s.do("viewport", chromedp.EmulateViewport(width, height))
			for _, pg := range pages {
				s.open(pg.path)
				s.waitText(pg.wait)
				s.waitText(pg.wait)
				txt, err := eval[*string](s, readableText)
				p.must("read "+pg.name, err)
				if words := english[c.lang]; words != nil && txt != nil {
					if found := englishIn(*txt, words, userData[c.slug]); len(found) > 0 {
						p.t.Errorf("%s %s at %d px shows English: %s", c.lang, pg.name, width, strings.Join(found, ", "))
					}
				}
				s.screenshot("56-noen-" + c.lang + "-" + pg.name + "-" + itoa(width))
			}
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// englishOnlyWords are the English catalog's words of three letters or
// more that lang's catalog never uses, less brand names and codes.
func englishOnlyWords(t *testing.T, lang string) map[string]bool {
	words := func(l string) map[string]bool {
		raw, err := os.ReadFile("../internal/i18n/locales/active." + l + ".toml")
		if err != nil {
			t.Fatal(err)
		}
		var tree map[string]any
		if err := toml.Unmarshal(raw, &tree); err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				for _, w := range wordPattern.FindAllString(regexp.MustCompile(`\{\{[^}]*\}\}`).ReplaceAllString(v, " "), -1) {
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
	allowed := []string{"fieldbrief", "csv", "api", "json", "webhook", "webhooks", "token", "tokens", "utc", "briefing", "briefings",
		"status", "test", "start", "admin", "worker", "yes", "no", "url", "http", "https", "smtp"}
	en, other := words("en"), words(lang)
	out := map[string]bool{}
	for w := range en {
		if len([]rune(w)) >= 3 && !other[w] && !slices.Contains(allowed, w) {
			out[w] = true
		}
	}
	return out
}

var wordPattern = regexp.MustCompile(`\p{L}[\p{L}'’]*`)

// ianaIDs are zone ids as typed ("America/New_York"): not words.
var ianaIDs = regexp.MustCompile(`\b(Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)/[A-Za-z_/+-]+`)

// readableText is what a person reads on the page: its text without
// what was typed or is a code (the JSON config's textarea, code, pre, kbd,
// the audit history's action codes in .mono, IANA ids in .zone-id), and
// only what is shown (checkVisibility).
const readableText = `(() => {
	const out = [];
	const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = w.nextNode(); n; n = w.nextNode()) {
		const p = n.parentElement;
		if (!p || p.closest("script, style, textarea, code, pre, kbd, .mono, .zone-id, [translate=no]") || !p.checkVisibility()) continue;
		out.push(n.data);
	}
	return out.join(" ");
})()`

// storedValue is a JSON value the settings history shows as stored
// ("pending": the audit diff's before and after), a code, not words.
var storedValue = regexp.MustCompile(`"[^"\s]*"`)

func englishIn(txt string, english, userData map[string]bool) []string {
	txt = ianaIDs.ReplaceAllString(txt, " ")
	txt = storedValue.ReplaceAllString(txt, " ")
	var found []string
	for _, ix := range wordPattern.FindAllStringIndex(txt, -1) {
		w := txt[ix[0]:ix[1]]
		if english[strings.ToLower(w)] && !userData[strings.ToLower(w)] {
			around := strings.Join(strings.Fields(txt[max(ix[0]-40, 0):min(ix[1]+40, len(txt))]), " ")
			if s := fmt.Sprintf("%q (…%s…)", w, around); !slices.Contains(found, s) {
				found = append(found, s)
			}
		}
	}
	return found
}
