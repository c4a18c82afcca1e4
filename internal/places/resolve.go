package places

import "time"

// MaxChoices bounds the choices Resolve offers for ambiguous text.
const MaxChoices = 8

// Resolve reads text typed into the zone field and never picked from the
// list, as the picker's search for reader r reads it (docs/timezone-picker.md,
// "Typed, not picked"). It returns the zone when one place or name matches
// best and alone: a zone's own or alias name in full, one zone of the places
// named exactly so ("Denver", "München"), an alias or a clock's name in
// full ("Eastern Time", "Mitteleuropäische Zeit"), or the only result there
// is when it matches by a name's beginning ("Denv"). A weak match (a word
// inside a name, a substring, a typo) is never taken. Otherwise it returns
// no zone and the choices to offer ("Springfield": four zones; "Tucsn":
// Tucson alone), best first; both are empty when nothing matches. The
// caller still validates the zone (internal/schedule).
func Resolve(text string, r Reader, now time.Time) (zone string, choices []Result) {
	found := search(text, r, now, MaxResults)
	if len(found) == 0 {
		return "", nil
	}
	best := found[0].rank
	tied := 1
	for tied < len(found) && found[tied].rank == best {
		tied++
	}
	// A weak match (a word inside a name, a typo) is never taken, even
	// alone: "München" once found only "Munchon" (North Korea) by a typo.
	if best == rankCanonical || (tied == 1 && (best <= rankExact || len(found) == 1 && best <= rankPrefix)) {
		return found[0].Zone, nil
	}
	if best > rankExact { // no name in full: the best of what was found
		tied = len(found)
	}
	for _, f := range found[:min(tied, MaxChoices)] {
		choices = append(choices, f.Result)
	}
	return "", choices
}
