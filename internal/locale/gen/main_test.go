package main

import "testing"

func TestCheckPattern(t *testing.T) {
	for _, p := range []string{"h:mm\u202fa", "HH 'h' mm", "EEEE, d 'de' MMMM 'de' y", "E, d. MMM", "'o''clock' H"} {
		if err := checkPattern(p); err != nil {
			t.Errorf("checkPattern(%q) = %v", p, err)
		}
	}
	for _, p := range []string{"", "HH:mm:ss", "h:mm B", "zzzz", "EEEEE", "H 'open"} {
		if err := checkPattern(p); err == nil {
			t.Errorf("checkPattern(%q) accepted", p)
		}
	}
}

func TestSplitInterval(t *testing.T) {
	for p, want := range map[string][2]string{
		"h:mm – h:mm a":       {"h:mm – ", "h:mm a"},
		"HH:mm–HH:mm 'Uhr'":   {"HH:mm–", "HH:mm 'Uhr'"},
		"h 'h' mm – h 'h' mm": {"h 'h' mm – ", "h 'h' mm"},
	} {
		a, b, err := splitInterval(p)
		if err != nil || a != want[0] || b != want[1] {
			t.Errorf("splitInterval(%q) = %q, %q, %v", p, a, b, err)
		}
	}
	if _, _, err := splitInterval("HH:mm"); err == nil {
		t.Error("splitInterval without a repeated field accepted")
	}
}

func TestGrouping(t *testing.T) {
	for p, want := range map[string][2]int{"#,##0.###": {3, 3}, "#,##,##0.###": {3, 2}} {
		a, b, err := grouping(p)
		if err != nil || a != want[0] || b != want[1] {
			t.Errorf("grouping(%q) = %d, %d, %v", p, a, b, err)
		}
	}
	if _, _, err := grouping("0.###"); err == nil {
		t.Error("grouping without a group accepted")
	}
}

func TestPatternWords(t *testing.T) {
	if !hasLetter("h:mm a", 'h') || hasLetter("HH 'h' mm", 'h') {
		t.Error("hasLetter reads quoted text as a field")
	}
	if got := literals("HH 'Uhr' 'h'"); len(got) != 2 || got[0] != "uhr" || got[1] != "h" {
		t.Errorf("literals = %q", got)
	}
	if got := cityFromID("America/Argentina/Buenos_Aires"); got != "Buenos Aires" {
		t.Errorf("cityFromID = %q", got)
	}
}
