package i18n_test

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
)

// pluralKeys are the keys that make a TOML table a plural message.
var pluralKeys = map[string]bool{"zero": true, "one": true, "two": true, "few": true, "many": true, "other": true}

// pluralForms are the CLDR cardinal plural forms each language's catalog
// must write for every plural message (CLDR 48 plural rules, as go-i18n
// applies them: es and fr have "many" for millions).
var pluralForms = map[string][]string{
	"en": {"one", "other"},
	"de": {"one", "other"},
	"es": {"many", "one", "other"}, // sorted
	"fr": {"many", "one", "other"},
}

// message is one catalog entry: a plain text or a plural's forms.
type message struct {
	text  string
	forms map[string]string
}

// flatten reads a catalog the way go-i18n does: nested tables join their
// keys with "."; a table with plural keys is one plural message.
func flatten(t *testing.T, lang string) map[string]message {
	t.Helper()
	raw, err := os.ReadFile("locales/active." + lang + ".toml")
	require.NoError(t, err, "catalog %s", lang)
	var tree map[string]any
	require.NoError(t, toml.Unmarshal(raw, &tree), lang)
	out := map[string]message{}
	var walk func(prefix string, node map[string]any)
	walk = func(prefix string, node map[string]any) {
		for k, v := range node {
			id := strings.TrimPrefix(prefix+"."+k, ".")
			switch v := v.(type) {
			case string:
				out[id] = message{text: v}
			case map[string]any:
				plural := false
				for pk := range v {
					plural = plural || pluralKeys[pk]
				}
				if !plural {
					walk(id, v)
					continue
				}
				m := message{forms: map[string]string{}}
				for pk, pv := range v {
					s, ok := pv.(string)
					require.True(t, ok && pluralKeys[pk], "%s: %s.%s is not a plural form's text", lang, id, pk)
					m.forms[pk] = s
				}
				out[id] = m
			default:
				t.Fatalf("%s: %s is neither text nor a table", lang, id)
			}
		}
	}
	walk("", tree)
	return out
}

// Every id in English is in every other catalog, of the same kind (text or
// plural), with exactly the plural forms the language's CLDR rules use; no
// catalog has ids English lacks; no message is empty; the template fields
// ({{.Name}}) are the English ones.
func TestCatalogsComplete(t *testing.T) {
	t.Parallel()
	en := flatten(t, "en")
	require.NotEmpty(t, en)
	for _, lang := range i18n.Languages() {
		cat := flatten(t, lang)
		for id, want := range en {
			got, ok := cat[id]
			if !assert.True(t, ok, "%s lacks %q", lang, id) {
				continue
			}
			if want.forms == nil {
				assert.Nil(t, got.forms, "%s: %q is plural in %s, text in en", lang, id, lang)
				assert.NotEmpty(t, strings.TrimSpace(got.text), "%s: %q is empty", lang, id)
				assert.Equal(t, fields(want.text), fields(got.text), "%s: %q's template fields", lang, id)
				continue
			}
			if !assert.NotNil(t, got.forms, "%s: %q is plural in en, text in %s", lang, id, lang) {
				continue
			}
			assert.Equal(t, pluralForms[lang], slices.Sorted(maps.Keys(got.forms)), "%s: %q's plural forms", lang, id)
			for form, s := range got.forms {
				assert.NotEmpty(t, strings.TrimSpace(s), "%s: %q.%s is empty", lang, id, form)
				assert.Contains(t, s, "{{.Count}}", "%s: %q.%s does not show the count", lang, id, form)
			}
		}
		for id := range cat {
			_, ok := en[id]
			assert.True(t, ok, "%s has %q, which en lacks", lang, id)
		}
	}
}

// fields are a message's template fields, sorted: {{.Max}} → ".Max".
func fields(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			break
		}
		out = append(out, strings.TrimSpace(s[i+2:i+j]))
		s = s[i+j+2:]
	}
	slices.Sort(out)
	return out
}

// The plural forms the table above asks for are the ones go-i18n's rules
// pick at run time: every count of a sample renders in every language
// (a form the catalog lacks would fail), and the forms differ where CLDR
// says they do.
func TestPluralsFollowEachLanguage(t *testing.T) {
	t.Parallel()
	for _, lang := range i18n.Languages() {
		l := i18n.New(lang, "")
		for _, n := range []int{0, 1, 2, 3, 5, 11, 21, 100, 1000, 1_000_000, 2_000_000} {
			s := l.Tn("count.jobs", n, nil)
			assert.NotEqual(t, "count.jobs", s, "%s %d", lang, n)
		}
	}
	cases := []struct {
		lang string
		n    int
		want string
	}{
		{"en", 1, "1 job"}, {"en", 2, "2 jobs"}, {"en", 0, "0 jobs"},
		{"de", 1, "1 Auftrag"}, {"de", 2, "2 Aufträge"},
		{"es", 1, "1 trabajo"}, {"es", 0, "0 trabajos"}, {"es", 1_000_000, "1000000 de trabajos"},
		{"fr", 0, "0 intervention"}, {"fr", 1, "1 intervention"}, {"fr", 2, "2 interventions"},
		{"fr", 1_000_000, "1000000 d'interventions"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, i18n.New(c.lang, "").Tn("count.jobs", c.n, nil), "%s %d", c.lang, c.n)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	cases := []struct {
		user, org, accept string
		lang, formats     string
	}{
		{"", "", "", "en", "en-US"},
		{"", "de-DE", "", "de", "de-DE"},
		{"", "de-DE", "fr-FR,fr;q=0.9", "de", "de-DE"}, // the org's locale beats the browser
		{"es", "en-US", "", "es", "es-US"},             // the user's language, the org's region
		{"fr", "de-DE", "", "fr", "fr-DE"},
		{"", "", "de-CH,de;q=0.9,en;q=0.5", "de", "de-CH"}, // signed out: the browser
		{"", "", "de", "de", "de-DE"},
		{"", "", "pt-BR,pt;q=0.9", "en", "en-US"}, // nothing of ours
		{"", "", "en-GB", "en", "en-GB"},
		{"xx", "zz-ZZ", "garbage;;;", "en", "en-US"}, // unsupported values are skipped
		{"", "", strings.Repeat("de,", 400), "en", "en-US"},
	}
	for _, c := range cases {
		l := i18n.Resolve(c.user, c.org, c.accept)
		assert.Equal(t, c.lang, l.Language(), "%+v", c)
		assert.Equal(t, c.formats, l.Formats(), "%+v", c)
	}
	assert.Equal(t, "de-DE", i18n.Resolve("", "de-DE", "").Lang())
	assert.Equal(t, "fr-DE", i18n.Resolve("fr", "de-DE", "").Lang())
	assert.Equal(t, "Anmelden", i18n.Resolve("", "de-DE", "").T("signin.title"))
	var nilL *i18n.Localizer
	assert.Equal(t, "Sign in", nilL.T("signin.title"))
	assert.Equal(t, "en-US", nilL.Lang())
}

func TestParse(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"de-DE": "de-DE", "de_de": "de-DE", " EN-us ": "en-US", "es-US": "es-US"} {
		got, err := i18n.ParseLocale("locale", in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	for _, bad := range []string{"", "de", "xx-YY", "en-US-x-foo", "pt-BR", strings.Repeat("a", 100), "en-US\x00"} {
		_, err := i18n.ParseLocale("locale", bad)
		require.Error(t, err, "%q", bad)
	}
	for in, want := range map[string]string{"": "", "es": "es", "DE": "de", "es-US": "es", "fr_fr": "fr"} {
		got, err := i18n.ParseLanguage("language", in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"pt", "klingon", "es-AR", "e"} {
		_, err := i18n.ParseLanguage("language", bad)
		require.Error(t, err, bad)
	}
	names := map[string]string{}
	for _, o := range i18n.Locales() {
		names[o.Tag] = o.Name
	}
	assert.Equal(t, "English (United States)", names["en-US"])
	assert.Equal(t, "Deutsch (Deutschland)", names["de-DE"])
	assert.Equal(t, "Español (Estados Unidos)", names["es-US"])
	assert.Equal(t, "Français (France)", names["fr-FR"])
	assert.Equal(t, "de-DE", i18n.MatchLocale("de"))
	assert.Equal(t, "fr-CA", i18n.MatchLocale("fr-CA,fr;q=0.8"))
	assert.Equal(t, "en-US", i18n.MatchLocale(""))
}

// The pseudo-locale wraps every message, data included, in markers.
func TestPseudo(t *testing.T) {
	t.Parallel()
	p := i18n.Pseudo()
	assert.Equal(t, "⟦Sign in⟧", p.T("signin.title"))
	assert.Equal(t, "⟦Back to Acme⟧", p.Tf("error.back_to_org", map[string]any{"Org": "Acme"}))
	assert.Equal(t, "⟦2 jobs⟧", p.Tn("count.jobs", 2, nil))
}

// The org locales offered are exactly the ones internal/locale formats:
// every choice has its CLDR formats, and no formats go unoffered.
func TestLocalesHaveFormats(t *testing.T) {
	t.Parallel()
	var offered, formatted []string
	for _, o := range i18n.Locales() {
		offered = append(offered, o.Tag)
	}
	for _, l := range locale.Supported() {
		formatted = append(formatted, l.Tag())
	}
	assert.ElementsMatch(t, formatted, offered)
	// A reader's formats: the org's region when the language has it there,
	// else the locale of its language that writes like the org (en-GB in a German org), never another language's words.
	assert.Equal(t, "es-US", i18n.Resolve("es", "en-US", "").Locale().Tag())
	assert.Equal(t, "de-CH", i18n.Resolve("", "de-CH", "").Locale().Tag())
	assert.Equal(t, "en-GB", i18n.Resolve("en", "de-DE", "").Locale().Tag())
	assert.Equal(t, "fr-FR", i18n.Resolve("fr", "en-US", "").Locale().Tag())
	assert.Equal(t, "08:00", i18n.Resolve("", "de-DE", "").Locale().Clock(8, 0))
}

// The words for stopping emails never equal the words for signing out, in
// any language (docs/i18n.md, "The catalog tests"): German once said
// "Abmelden" for both, and a technician's one tap on it in their email
// stopped their day sheets where they meant to sign out of nothing.
func TestSignOutIsNeverUnsubscribe(t *testing.T) {
	t.Parallel()
	signOut := []string{"layout.sign_out"}
	stopping := []string{"mail.unsubscribe", "unsubscribe.title", "unsubscribe.button", "unsubscribe.done_title",
		"mail.stop_day_sheets", "daylink.sheets_stop", "technicians.resume_day_sheets"}
	for _, lang := range i18n.Languages() {
		cat := flatten(t, lang)
		for _, out := range signOut {
			so, ok := cat[out]
			require.True(t, ok, "%s lacks %q", lang, out)
			for _, id := range stopping {
				m, ok := cat[id]
				require.True(t, ok, "%s lacks %q", lang, id)
				assert.NotEqual(t, norm(so.text), norm(m.text), "%s: %q and %q both say %q", lang, out, id, m.text)
				// Nor one inside the other, as a button's label ("Abmelden: <link>").
				assert.NotContains(t, norm(m.text), norm(so.text), "%s: %q contains %q's %q", lang, id, out, so.text)
			}
		}
	}
}

// norm is a message as a reader tells words apart: case and spacing aside.
func norm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// A sentence that sends the reader to the settings ("an admin sets it in
// Settings") names them with the nav's word, which the pages link for an
// admin (views.SettingsWords; docs/web.md, "First setup"): every language.
func TestSettingsSentencesNameTheNavWord(t *testing.T) {
	t.Parallel()
	for _, lang := range i18n.Languages() {
		cat := flatten(t, lang)
		word := cat["nav.settings"].text
		require.NotEmpty(t, word, lang)
		for _, id := range []string{"briefings.state.not_configured", "briefings.state.invalid", "briefings.zone.not_saved",
			"briefings.zone.invalid", "fieldzone.not_saved", "fieldzone.invalid"} {
			assert.Contains(t, cat[id].text, word, "%s: %q does not name %q", lang, id, word)
		}
	}
}
