// Package i18n is what people read in their own language: the message
// catalogs (locales/active.*.toml, embedded), the supported org locales and
// languages, and the Localizer a request renders its pages with. The
// resolution order and how to add a message are in docs/i18n.md.
//
// Formats (times, dates, numbers, zone names) are internal/locale's; this
// package only decides which locale's formats a page uses (Localizer.Formats).
package i18n

import (
	"embed"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"fieldbrief/internal/apperr"
)

// DefaultLocale is an org's locale unless it chose another, and what a
// reader gets when nothing else decides (docs/i18n.md).
const DefaultLocale = "en-US"

//go:embed locales/active.*.toml
var catalogFiles embed.FS

// languages are the catalogs, by base language, English first: English is
// the source every other catalog translates (docs/i18n.md).
var languages = []string{"en", "de", "es", "fr"}

// locales are the tags an org may choose. Each one's language has a
// catalog; its region decides formats (internal/locale).
var locales = []string{
	"en-US", "en-GB", "en-CA", "en-AU", "en-NZ", "en-IE",
	"de-DE", "de-AT", "de-CH",
	"es-US", "es-ES", "es-MX",
	"fr-FR", "fr-CA", "fr-BE", "fr-CH",
}

var bundle = mustBundle()

func mustBundle() *goi18n.Bundle {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	for _, l := range languages {
		if _, err := b.LoadMessageFileFS(catalogFiles, "locales/active."+l+".toml"); err != nil {
			panic(fmt.Sprintf("i18n: catalog %s: %v", l, err))
		}
	}
	return b
}

// Languages are the catalogs' base languages, English first.
func Languages() []string { return append([]string(nil), languages...) }

// Option is a locale or language as a select offers it: the tag and its
// name in its own language ("Deutsch (Deutschland)").
type Option struct {
	Tag  string
	Name string
}

// Locales are the locales an org may choose, each named in its own language.
func Locales() []Option {
	out := make([]Option, len(locales))
	for i, t := range locales {
		out[i] = Option{Tag: t, Name: LocaleName(t)}
	}
	return out
}

// LanguageOptions are the languages a person may choose, each named in its
// own language ("Español").
func LanguageOptions() []Option {
	out := make([]Option, len(languages))
	for i, l := range languages {
		out[i] = Option{Tag: l, Name: LanguageName(l)}
	}
	return out
}

// LocaleName is a locale's name in its own language, "Español (Estados
// Unidos)"; tag as returned by ParseLocale.
func LocaleName(tag string) string {
	t := language.Make(tag)
	base, _ := t.Base()
	region, _ := t.Region()
	lang := capitalize(display.Languages(t).Name(base))
	return lang + " (" + display.Regions(t).Name(region) + ")"
}

// LanguageName is a language's name in itself, "Deutsch".
func LanguageName(lang string) string {
	t := language.Make(lang)
	base, _ := t.Base()
	return capitalize(display.Languages(t).Name(base))
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// MaxTagLen bounds a locale or language as typed: BCP 47 tags we support
// are far shorter (the database checks 35, RFC 5646's practical limit).
const MaxTagLen = 35

// ParseLocale checks an org locale: one of Locales, matched without regard
// to case or "_" for "-" ("de_de" is "de-DE"). Anything else is a field
// error on field.
func ParseLocale(field, s string) (string, error) {
	want := normalize(s)
	for _, t := range locales {
		if strings.EqualFold(t, want) {
			return t, nil
		}
	}
	return "", apperr.FieldError(field, "Choose one of the supported locales (such as %s).", strings.Join(locales[:4], ", "))
}

// ParseLanguage checks a person's or technician's language: one of
// Languages ("es"), or a supported locale whose language it takes ("es-US"
// is "es"). "" is no choice of their own: the org's. Anything else is a
// field error on field.
func ParseLanguage(field, s string) (string, error) {
	want := normalize(s)
	if want == "" {
		return "", nil
	}
	for _, l := range languages {
		if strings.EqualFold(l, want) {
			return l, nil
		}
	}
	if t, err := ParseLocale(field, want); err == nil {
		return baseOf(t), nil
	}
	return "", apperr.FieldError(field, "Choose one of the supported languages: %s.", strings.Join(languages, ", "))
}

func normalize(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "-")
	if len(s) > MaxTagLen {
		return "\x00" // matches nothing
	}
	return s
}

func baseOf(tag string) string {
	b, _, _ := strings.Cut(tag, "-")
	return strings.ToLower(b)
}

func regionOf(tag string) string {
	_, r, _ := strings.Cut(tag, "-")
	return r
}

func supportedLanguage(l string) bool {
	for _, s := range languages {
		if s == l {
			return true
		}
	}
	return false
}

func supportedLocale(t string) bool {
	for _, s := range locales {
		if s == t {
			return true
		}
	}
	return false
}
