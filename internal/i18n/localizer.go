package i18n

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"fieldbrief/internal/locale"
)

// Localizer is one reader's language and formats locale, made per request
// (Resolve) and carried by views.Page, so templ components write
// { p.T("signin.title") }. A nil *Localizer is English with en-US formats,
// so a Page built without one still renders.
type Localizer struct {
	lang    string // "de": the catalog read
	formats string // "de-DE", "es-US": internal/locale's locale for times, dates, numbers
	l       *goi18n.Localizer
	mark    bool // pseudo-locale: every message wrapped in markers (tests)
}

// New is a Localizer for a supported language (en, de, es, fr; anything
// else is English) and a formats locale tag.
func New(lang, formats string) *Localizer {
	if !supportedLanguage(lang) {
		lang = "en"
	}
	if formats == "" {
		formats = DefaultLocale
	}
	return &Localizer{lang: lang, formats: formats, l: goi18n.NewLocalizer(bundle, lang, "en")}
}

// English is the default reader: en with en-US formats.
var English = New("en", DefaultLocale)

// Markers wrap every message of the pseudo-locale (Pseudo).
const (
	MarkOpen  = "⟦"
	MarkClose = "⟧"
)

// Pseudo is English with every message wrapped in MarkOpen … MarkClose:
// the "no text outside the catalog" tests render pages with it and look
// for visible text outside markers (docs/i18n.md).
func Pseudo() *Localizer {
	l := New("en", DefaultLocale)
	l.mark = true
	return l
}

// Lang is the language of the text, for <html lang>: the formats locale's
// tag when it shares the language ("de-DE", "es-US"), else the language.
func (l *Localizer) Lang() string {
	if l == nil {
		return DefaultLocale
	}
	if baseOf(l.formats) == l.lang {
		return l.formats
	}
	return l.lang
}

// Language is the catalog's base language: "en", "de", "es" or "fr".
func (l *Localizer) Language() string {
	if l == nil {
		return "en"
	}
	return l.lang
}

// Formats is the locale whose formats (clock, dates, numbers) the reader
// sees: the org's region with the reader's language (docs/i18n.md).
func (l *Localizer) Formats() string {
	if l == nil {
		return DefaultLocale
	}
	return l.formats
}

// Locale is the reader's formats as internal/locale writes them: Formats
// when it is a supported locale ("es-US"); else (a reader's language in
// another language's region: "en-DE") the locale of the reader's language
// that writes like the org's — the same clock (24-hour or 12-hour) and the
// same order of day and month — so an English reader in a German org reads
// "13:00" and "26 Nov" (en-GB), in English words, as the profile page
// promises (docs/i18n.md, "Resolution").
func (l *Localizer) Locale() locale.Locale {
	f := l.Formats()
	if supportedLocale(f) || l == nil {
		return locale.Nearest(f)
	}
	region := regionOf(f)
	for _, t := range locales {
		if regionOf(t) != region {
			continue
		}
		org := locale.Nearest(t)
		var best locale.Locale
		found := false
		for _, c := range locales {
			if baseOf(c) != l.lang {
				continue
			}
			cand := locale.Nearest(c)
			if writesLike(cand, org) {
				return cand
			}
			if !found && clock24(cand) == clock24(org) {
				best, found = cand, true
			}
		}
		if found {
			return best
		}
		break
	}
	return locale.Nearest(f)
}

// clock24 says whether lc writes 13:00 on the 24-hour clock.
func clock24(lc locale.Locale) bool { return strings.Contains(lc.Clock(13, 0), "13") }

// dayFirst says whether lc writes the day before the month.
func dayFirst(lc locale.Locale) bool {
	s := lc.MonthDay(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	return strings.HasPrefix(s, "26")
}

func writesLike(a, b locale.Locale) bool {
	return clock24(a) == clock24(b) && dayFirst(a) == dayFirst(b)
}

// T is the message id in the reader's language.
func (l *Localizer) T(id string) string { return l.localize(id, nil, nil) }

// Tf is the message id with its template data filled in: {{.Name}}.
func (l *Localizer) Tf(id string, data map[string]any) string { return l.localize(id, nil, data) }

// Tn is the plural message id for count, in the reader's language's
// plural rules; data may be nil and gets Count set to count.
func (l *Localizer) Tn(id string, count int, data map[string]any) string {
	d := map[string]any{"Count": count}
	for k, v := range data {
		d[k] = v
	}
	return l.localize(id, count, d)
}

func (l *Localizer) localize(id string, count any, data map[string]any) string {
	if l == nil {
		l = English
	}
	s, err := l.l.Localize(&goi18n.LocalizeConfig{MessageID: id, PluralCount: count, TemplateData: data})
	if err != nil {
		// The catalog tests keep this from happening; if it does, the page
		// still renders, with the id where the words should be.
		slog.Error("i18n: message", "id", id, "lang", l.lang, "error", err)
		s = id
	}
	if l.formats == "de-CH" {
		s = strings.ReplaceAll(s, "ß", "ss") // Swiss German writes no ß (docs/i18n.md, "Glossary")
	}
	if l.mark {
		return MarkOpen + s + MarkClose
	}
	return s
}

// Resolve is a request's reader (docs/i18n.md, "Resolution"): the language
// is the signed-in user's own, else the org's locale's, else (nobody signed
// in, or an org-less page) the browser's Accept-Language, else English. The
// formats locale is the org's locale's region with that language (es and
// en-US: es-US), or, without an org, the Accept-Language's best supported
// locale with that language, or en-US. Unknown or unsupported values are
// skipped, never an error.
func Resolve(userLanguage, orgLocale, acceptLanguage string) *Localizer {
	lang := ""
	if supportedLanguage(userLanguage) {
		lang = userLanguage
	}
	if !supportedLocale(orgLocale) {
		orgLocale = ""
	}
	browserLang, browserLocale := matchAccept(acceptLanguage)
	switch {
	case lang != "":
	case orgLocale != "":
		lang = baseOf(orgLocale)
	case browserLang != "":
		lang = browserLang
	default:
		lang = "en"
	}
	formats := DefaultLocale
	switch {
	case orgLocale != "":
		formats = lang + "-" + regionOf(orgLocale)
	case browserLocale != "" && baseOf(browserLocale) == lang:
		formats = browserLocale
	default:
		formats = defaultLocaleOf(lang)
	}
	key := lang + "/" + formats
	if l, ok := resolved.Load(key); ok {
		return l.(*Localizer)
	}
	l, _ := resolved.LoadOrStore(key, New(lang, formats))
	return l.(*Localizer)
}

// resolved keeps the Localizers Resolve made, by language and formats: a
// Localizer is read-only once made, and the keys are bounded (the catalogs'
// languages times the supported locales' regions).
var resolved sync.Map

// defaultLocaleOf is the first supported locale of a language.
func defaultLocaleOf(lang string) string {
	for _, t := range locales {
		if baseOf(t) == lang {
			return t
		}
	}
	return DefaultLocale
}

var (
	languageMatcher = language.NewMatcher(tagsOf(languages))
	localeMatcher   = language.NewMatcher(tagsOf(locales))
)

func tagsOf(ss []string) []language.Tag {
	out := make([]language.Tag, len(ss))
	for i, s := range ss {
		out[i] = language.MustParse(s)
	}
	return out
}

// maxAcceptLen bounds the Accept-Language header we parse.
const maxAcceptLen = 512

// matchAccept is the best supported language and locale for an
// Accept-Language header; "" when the header names none of ours.
func matchAccept(header string) (lang, locale string) {
	if header == "" || len(header) > maxAcceptLen {
		return "", ""
	}
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return "", ""
	}
	_, i, conf := languageMatcher.Match(tags...)
	if conf == language.No {
		return "", ""
	}
	lang = languages[i]
	if _, j, c := localeMatcher.Match(tags...); c != language.No && baseOf(locales[j]) == lang {
		locale = locales[j]
	}
	return lang, locale
}

// MatchLocale is the supported locale an Accept-Language header prefers,
// or DefaultLocale: the default of the staff's "New org" form.
func MatchLocale(acceptLanguage string) string {
	lang, loc := matchAccept(acceptLanguage)
	switch {
	case loc != "":
		return loc
	case lang != "":
		return defaultLocaleOf(lang)
	}
	return DefaultLocale
}

// String is for logs.
func (l *Localizer) String() string { return fmt.Sprintf("%s/%s", l.Language(), l.Formats()) }
