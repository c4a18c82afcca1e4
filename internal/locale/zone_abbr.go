package locale

import (
	"fmt"
	"strings"
	"time"
)

// ZoneAbbr is the abbreviation of t's zone at t as the locale writes it
// (docs/i18n.md, "Zone abbreviations"): the CLDR short metazone name of
// the locale ("MEZ", "MESZ" in German, "HNE" in Canadian French), else
// the offset ("UTC+1", "UTC−3:30", "UTC" at zero). English writes the tz
// database's letters ("EST", "CET"), which are English, with the offset
// where the tz database has none ("+0530"). A non-English page never
// shows an English abbreviation CLDR does not give its locale.
func (l Locale) ZoneAbbr(t time.Time) string {
	d := l.data()
	if strings.HasPrefix(d.tag, "en") {
		name, _ := t.Zone()
		if name != "" && !strings.ContainsAny(name[:1], "+-0123456789") {
			return name
		}
		return offsetAbbr(t)
	}
	key := t.Location().String()
	if k, ok := zoneAliases[key]; ok {
		key = k
	}
	if mz := metazoneAt(metazoneSpans[key], t); mz != "" {
		if names, ok := shortMetazones[d.tag][mz]; ok {
			if t.IsDST() && names[1] != "" {
				return names[1]
			}
			if !t.IsDST() && names[0] != "" {
				return names[0]
			}
		}
	}
	return offsetAbbr(t)
}

// offsetAbbr is t's UTC offset as a short label: "UTC+1", "UTC+5:30",
// "UTC−3" (a true minus), "UTC" at zero.
func offsetAbbr(t time.Time) string {
	_, secs := t.Zone()
	if secs == 0 {
		return "UTC"
	}
	sign := "+"
	if secs < 0 {
		sign, secs = "−", -secs
	}
	if m := secs / 60 % 60; m != 0 {
		return fmt.Sprintf("UTC%s%d:%02d", sign, secs/3600, m)
	}
	return fmt.Sprintf("UTC%s%d", sign, secs/3600)
}

// ZoneAbbrs are the abbreviations in force from start to end, joined
// ("MEZ/MESZ") when they differ: a window or a day across a DST change.
func (l Locale) ZoneAbbrs(start, end time.Time) string {
	a, b := l.ZoneAbbr(start), l.ZoneAbbr(end)
	if a == b {
		return a
	}
	return a + "/" + b
}
