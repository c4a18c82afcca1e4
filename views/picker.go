package views

import "strings"

// ZoneOption is one result of the time zone picker's search.
type ZoneOption struct {
	Name   string // canonical zone name, what the form receives
	City   string // "New York": the place that matched
	Region string // "New York, United States of America"
	Offset string // "UTC−05:00"
	Local  string // "08:04"
	// Unique: the one zone the typed text stands for (places.Resolve), which
	// the picker takes on blur or save though it was never picked.
	Unique bool
	// Label is the zone's name in the reader's language ("Central Time
	// (Chicago)", "Nordamerikanische Zentralzeit (Chicago)": internal/locale's
	// ZoneName), shown before the IANA name, which stays in small print
	// (docs/timezone-picker.md, "Labels"); empty: the IANA name alone.
	Label string
}

// Place is the option's city and region as one line.
func (o ZoneOption) Place() string {
	if o.Region == "" || o.Region == o.City {
		return o.City
	}
	return o.City + ", " + o.Region
}

// zoneIDs keeps option ids to letters, digits, "-" and "_", so they work
// unescaped in aria-activedescendant and CSS selectors.
var zoneIDs = strings.NewReplacer("/", "--", "+", "-plus-")

// ID is the option's element id, stable for a zone across searches.
func (o ZoneOption) ID() string { return "zone-opt-" + zoneIDs.Replace(o.Name) }
