package views

import (
	"strconv"
	"strings"
)

// FlagImpact is the view of what flipping a global switch does (counted by
// flags.Store.Impacts).
type FlagImpact struct {
	Orgs        int
	OverrideOn  int
	OverrideOff int
}

// ImpactText says in words what flipping a switch that is now enabled (or
// not) does to the orgs, e.g. "Turns off fieldforce.briefing for 1,204
// orgs; 37 have an override on."
func ImpactText(key string, enabled bool, i FlagImpact) string {
	affected := i.Orgs - i.OverrideOff
	var b strings.Builder
	if enabled {
		b.WriteString("Turns off " + key + " for " + Count(affected, "org", "orgs"))
		switch i.OverrideOn {
		case 0:
			b.WriteString("; no org has an override on.")
		case 1:
			b.WriteString("; 1 has an override on.")
		default:
			b.WriteString("; " + Thousands(i.OverrideOn) + " have an override on.")
		}
		if i.OverrideOff > 0 {
			b.WriteString(" " + Count(i.OverrideOff, "org is off already by its own override.", "orgs are off already by their own override."))
		}
		return b.String()
	}
	b.WriteString("Turns on " + key + " for " + Count(affected, "org", "orgs") + ".")
	if i.OverrideOff > 0 {
		b.WriteString(" " + Count(i.OverrideOff, "org has an override off and stays", "orgs have an override off and stay") + " off.")
	}
	return b.String()
}

// Count is n with the singular or plural words after it: "1 org",
// "1,204 orgs", "0 orgs".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Thousands writes n with commas between groups of three digits: 1,204.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
