package schedule

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

//go:generate go run ./gen

// Zone is a loaded IANA time zone under its canonical name, the name stored
// in configs whatever alias the admin typed.
type Zone struct {
	Name string
	Loc  *time.Location
}

// ZoneInfo describes a canonical zone for the picker.
type ZoneInfo struct {
	Name        string
	City        string
	CountryCode string // ISO 3166 alpha-2, "" for zones like UTC
	Country     string
	Comment     string // zone.tab's hint for countries with several zones, e.g. "Eastern (most areas)"
	Aliases     []string
}

// zoneNames maps every accepted spelling, lowercased, to its canonical name.
var zoneNames = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, 2*len(zoneTable))
	for _, z := range zoneTable {
		m[strings.ToLower(z.Name)] = z.Name
		for _, a := range z.Aliases {
			m[strings.ToLower(a)] = z.Name
		}
	}
	return m
})

func checkZoneName(name string) error {
	switch {
	case name == "":
		return errors.New("time zone is required")
	case strings.EqualFold(name, "Local"):
		return fmt.Errorf("time zone %q depends on the server; choose a named zone", name)
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") ||
		strings.Contains(name, "..") || strings.Contains(name, `\`):
		return fmt.Errorf("invalid time zone name %q", name)
	}
	return nil
}

// Zones returns all canonical zones, sorted by name.
func Zones() []ZoneInfo {
	zones := make([]ZoneInfo, len(zoneTable))
	for i, z := range zoneTable {
		zones[i] = z.clone()
	}
	return zones
}

// clone keeps callers from editing the shared table through Aliases.
func (z ZoneInfo) clone() ZoneInfo {
	z.Aliases = slices.Clone(z.Aliases)
	return z
}

// ZoneLabel describes z at now for the picker: its UTC offset ("UTC−05:00")
// and its wall clock ("08:04").
func ZoneLabel(z Zone, now time.Time) (offset string, local string) {
	t := now.In(z.Loc)
	return offsetLabel(t), t.Format("15:04")
}

// OffsetLabel formats t's UTC offset with a true minus sign, as typeset
// offsets are ("UTC−05:00", "UTC+05:45").
func OffsetLabel(t time.Time) string { return offsetLabel(t) }

func offsetLabel(t time.Time) string {
	_, secs := t.Zone()
	sign := "+"
	if secs < 0 {
		sign, secs = "−", -secs
	}
	return fmt.Sprintf("UTC%s%02d:%02d", sign, secs/3600, secs/60%60)
}
