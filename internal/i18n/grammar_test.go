package i18n_test

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
)

// Grammar with real values (docs/i18n.md, "Grammar with real values"):
// every message of every catalog is rendered with sample data for its
// placeholders — zone names as CLDR writes them in the language
// ("Mitteleuropäische Zeit (Berlin)"), counts 0, 1, 2 and 5 — and the
// result is read for the traps a translation falls into when it only ever
// saw "{{.Zone}}": a zone name after a preposition that needs a case or
// an article it does not have ("Zeiten in Mitteleuropäische Zeit",
// "Heures en heure d’Europe centrale"), a noun that agrees with a number
// other than the one that chose the plural form ("1 interventions
// planifiées sur 2 terminées"), a count written outside a plural message,
// a template left unfilled.

// zoneSample is the zone a page shows in each language: CLDR's own name.
func zoneSample(lang string) string {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	return locale.Nearest(lang).ZoneName("Europe/Berlin", time.Date(2026, 1, 15, 12, 0, 0, 0, berlin))
}

// zonePrepositions are the words that put a zone name in a case or want
// an article before it: "in Mitteleuropäische Zeit" (dative: "in
// Mitteleuropäischer Zeit"), "en hora de Europa central", "en heure
// d’Europe centrale". Write "Zeitzone: …", "in der Zeitzone …", or the
// name in parentheses.
var zonePrepositions = map[string][]string{
	"de": {"in", "im", "bei", "nach", "von", "vom", "mit", "zu", "zur", "zum", "für", "aus", "seit", "an", "am", "um"},
	"es": {"en", "a", "de", "del", "con", "para", "por", "desde", "según"},
	"fr": {"en", "à", "au", "de", "du", "dans", "avec", "pour", "par", "depuis", "selon"},
}

// numberFields are placeholders that hold a count which is not the
// plural's own: each is rendered as 1 beside a Count of 5, where a noun
// that follows it in the plural gives the message away.
var numberFields = []string{"Completed", "Technicians", "Skipped", "Failed", "Unchanged", "Updated", "Created", "Found", "More"}

// sampleData fills every placeholder of a message for lang.
func sampleData(lang string, fields []string) map[string]any {
	d := map[string]any{}
	for _, f := range fields {
		name := strings.TrimPrefix(f, ".")
		switch name {
		case "Zone":
			d[name] = zoneSample(lang)
		case "Count":
		case "Time", "Scheduled", "First", "Made", "For", "Wall", "Second", "At":
			d[name] = locale.Nearest(lang).Clock(8, 30)
		case "Date", "Until", "Sent", "Expires":
			d[name] = locale.Nearest(lang).Date(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
		case "Offset":
			d[name] = "UTC+01:00"
		default:
			if slices.Contains(numberFields, name) {
				d[name] = 1
			} else {
				d[name] = "X" + name
			}
		}
	}
	return d
}

func TestMessagesReadRightWithRealValues(t *testing.T) {
	t.Parallel()
	en := flatten(t, "en")
	ids := slices.Sorted(maps.Keys(en))
	for _, lang := range i18n.Languages() {
		cat := flatten(t, lang)
		l := i18n.New(lang, "")
		zone := zoneSample(lang)
		var trap *regexp.Regexp
		if ps := zonePrepositions[lang]; ps != nil {
			trap = regexp.MustCompile(`(?i)(^|[\s(])(` + strings.Join(ps, "|") + `)\s+` + regexp.QuoteMeta(zone))
		}
		for _, id := range ids {
			m := cat[id]
			var text string
			if m.forms == nil {
				text = m.text
			} else {
				text = m.forms["other"]
			}
			fs := fields(en[id].text + en[id].forms["other"])
			data := sampleData(lang, fs)
			var outs []string
			if m.forms == nil {
				if slices.Contains(fs, ".Count") {
					// A count outside a plural is a label's figure ("Notfälle: 5"),
					// a heading's ("Notfälle (5)"), a position ("Zeile 5") or a
					// number never below 2 (countNotPlural).
					if !countNotNoun.MatchString(text) && !countNotPlural[id] {
						t.Errorf("%s %s: shows {{.Count}} but is not a plural message: %q", lang, id, text)
					}
					data["Count"] = 5
				}
				outs = append(outs, l.Tf(id, data))
			} else {
				for _, n := range []int{0, 1, 2, 5} {
					outs = append(outs, l.Tn(id, n, data))
				}
			}
			for _, out := range outs {
				if strings.Contains(out, "<no value>") || strings.Contains(out, "{{") || out == id {
					t.Errorf("%s %s: not filled: %q", lang, id, out)
				}
				if trap != nil && trap.MatchString(out) {
					t.Errorf("%s %s: a zone name after a preposition reads wrong: %q (write \"Zeitzone: …\", \"in der Zeitzone …\" or the name in parentheses)", lang, id, out)
				}
			}
			if m.forms != nil && (lang == "fr" || lang == "es") {
				// 1 beside a Count of 5: the noun after the 1 must not be plural.
				out := l.Tn(id, 5, data)
				if bad := agreementTrap.FindString(out); bad != "" && hasNumberField(fs) {
					t.Errorf("%s %s: %q after a count of 1 (the plural form follows Count, 5): %q", lang, id, bad, out)
				}
			}
		}
	}
}

// countNotNoun is a {{.Count}} no noun agrees with.
var countNotNoun = regexp.MustCompile(`([:：]\s*\{\{\.Count\}\}\.?$)|(\(\{\{\.Count\}\}(\+|\)|\s(of|von|de|sur)\s))|((?i:line|column|Zeile|Spalte|línea|columna|ligne|colonne)\s\{\{\.Count\}\})`)

// countNotPlural are messages whose count is never 1: the search's
// minimum length (3), a header wider than the format's columns, a row
// with more cells than its header has.
var countNotPlural = map[string]bool{"jobsearch.too_short": true, "import.problem.header_too_wide": true, "import.problem.row_extra_cells": true}

// agreementTrap is a 1 followed by a plural word: "1 interventions".
var agreementTrap = regexp.MustCompile(`(^|[^\d/.,])1 (\p{L}+[sx])\b`)

func hasNumberField(fs []string) bool {
	for _, f := range fs {
		if slices.Contains(numberFields, strings.TrimPrefix(f, ".")) {
			return true
		}
	}
	return false
}

// The test above catches what it says it does: the messages it was
// written for, as they read before, fail it.
func TestGrammarTrapsAreCaught(t *testing.T) {
	t.Parallel()
	de := regexp.MustCompile(`(?i)(^|[\s(])(` + strings.Join(zonePrepositions["de"], "|") + `)\s+` + regexp.QuoteMeta(zoneSample("de")))
	if s := "Zeiten in " + zoneSample("de") + "."; !de.MatchString(s) {
		t.Errorf("not caught: %q", s)
	}
	if s := "Zeitzone: " + zoneSample("de") + "."; de.MatchString(s) {
		t.Errorf("caught, but right: %q", s)
	}
	if s := "Zeiten in der Zeitzone " + zoneSample("de") + "."; de.MatchString(s) {
		t.Errorf("caught, but right: %q", s)
	}
	if !agreementTrap.MatchString("1 interventions planifiées sur 5 terminées.") {
		t.Error("French agreement trap not caught")
	}
	if agreementTrap.MatchString("1/5 interventions planifiées terminées.") {
		t.Error("caught, but right")
	}
}
