package locale

import (
	"strings"
	"sync"
	"time"
)

// ZoneName names an IANA zone as people in the locale know it, at time t:
// the CLDR metazone's long name with the zone's exemplar city, joined by
// the locale's fallback format — "Central Time (Chicago)",
// "Mitteleuropäische Zeit (Berlin)", "hora central (Chicago)".
//
// The name is the metazone's generic one ("Central Time"), or its standard
// one where the zone keeps no daylight time in t's year ("Mountain Standard
// Time (Phoenix)", "India Standard Time (Kolkata)"): Arizona keeps standard
// time all year, and saying so is the point. A zone with its own name and
// no city (Etc/UTC) is that name ("Coordinated Universal Time"). A zone
// keeping daylight time whose metazone has no generic name (Europe/London:
// CLDR names only "Greenwich Mean Time", which London is not in summer) is
// the locale's region format with the city: "London Time", "London
// (Ortszeit)". An id CLDR does not know is itself. Callers show the IANA id
// beside the name (docs/i18n.md).
//
// Daylight time is judged in t's location when that is zoneID, else in
// time.LoadLocation(zoneID); when the zone cannot be loaded, the generic
// name is used.
func (l Locale) ZoneName(zoneID string, t time.Time) string {
	d := l.data()
	key := zoneID
	if k, ok := zoneAliases[zoneID]; ok {
		key = k
	}
	if name, ok := d.zoneString(key, func(d *data) (string, bool) { s, ok := d.zoneLong[key]; return s, ok }); ok && name != "" {
		return name
	}
	spans, known := metazoneSpans[key]
	city, cityOK := d.zoneString(key, func(d *data) (string, bool) { s, ok := d.cities[key]; return s, ok })
	if !cityOK || city == "" {
		city = cityFromID(key)
	}
	if mz := metazoneAt(spans, t); mz != "" {
		names := d.metazone(mz)
		name := names[0]
		if !observesDST(zoneID, t) && names[1] != "" {
			name = names[1]
		}
		if name != "" {
			return strings.NewReplacer("{1}", name, "{0}", city).Replace(d.fallbackFormat)
		}
	}
	if !known && !cityOK {
		return zoneID
	}
	return strings.ReplaceAll(d.regionFormat, "{0}", city)
}

// zoneString looks a zone name up in the locale, then in its language's
// first locale (data.go holds the other locales' differences only).
func (d *data) zoneString(key string, get func(*data) (string, bool)) (string, bool) {
	if s, ok := get(d); ok {
		return s, true
	}
	return get(d.base)
}

func (d *data) metazone(mz string) [2]string {
	if n, ok := d.metazones[mz]; ok {
		return n
	}
	return d.base.metazones[mz]
}

func metazoneAt(spans []span, t time.Time) string {
	u := t.Unix()
	for _, s := range spans {
		if (s.from == 0 || u >= s.from) && (s.to == 0 || u < s.to) {
			return s.mz
		}
	}
	return ""
}

// observesDST says whether zoneID's offset differs between January and
// July of t's year.
func observesDST(zoneID string, t time.Time) bool {
	loc := t.Location()
	if loc.String() != zoneID {
		var ok bool
		if loc, ok = load(zoneID); !ok {
			return true
		}
	}
	y := t.In(loc).Year()
	_, jan := time.Date(y, time.January, 1, 12, 0, 0, 0, loc).Zone()
	_, jul := time.Date(y, time.July, 1, 12, 0, 0, 0, loc).Zone()
	return jan != jul
}

// cityFromID is the exemplar city CLDR derives when it lists none: the
// id's last part, spaces for underscores (America/New_York → New York).
func cityFromID(id string) string {
	return strings.ReplaceAll(id[strings.LastIndexByte(id, '/')+1:], "_", " ")
}

// loaded keeps the locations ZoneName loaded: only zones that exist, so it
// is bounded by the tz database.
var loaded sync.Map

func load(zoneID string) (*time.Location, bool) {
	if loc, ok := loaded.Load(zoneID); ok {
		return loc.(*time.Location), true
	}
	loc, err := time.LoadLocation(zoneID)
	if err != nil {
		return nil, false
	}
	loaded.Store(zoneID, loc)
	return loc, true
}
