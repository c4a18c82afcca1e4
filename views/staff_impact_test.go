package views

import "testing"

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1204: "1,204", 50000: "50,000", 1234567: "1,234,567", -1204: "-1,204"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestImpactText(t *testing.T) {
	const k = "fieldforce.briefing"
	for _, tc := range []struct {
		enabled bool
		i       FlagImpact
		want    string
	}{
		{true, FlagImpact{Orgs: 1204, OverrideOn: 37}, "Turns off fieldforce.briefing for 1,204 orgs; 37 have an override on."},
		{true, FlagImpact{Orgs: 1, OverrideOn: 1}, "Turns off fieldforce.briefing for 1 org; 1 has an override on."},
		{true, FlagImpact{Orgs: 2}, "Turns off fieldforce.briefing for 2 orgs; no org has an override on."},
		{true, FlagImpact{Orgs: 1210, OverrideOn: 37, OverrideOff: 6}, "Turns off fieldforce.briefing for 1,204 orgs; 37 have an override on. 6 orgs are off already by their own override."},
		{true, FlagImpact{Orgs: 3, OverrideOff: 1}, "Turns off fieldforce.briefing for 2 orgs; no org has an override on. 1 org is off already by its own override."},
		{false, FlagImpact{Orgs: 1204, OverrideOff: 4}, "Turns on fieldforce.briefing for 1,200 orgs. 4 orgs have an override off and stay off."},
		{false, FlagImpact{Orgs: 2, OverrideOff: 1}, "Turns on fieldforce.briefing for 1 org. 1 org has an override off and stays off."},
		{false, FlagImpact{}, "Turns on fieldforce.briefing for 0 orgs."},
	} {
		if got := ImpactText(k, tc.enabled, tc.i); got != tc.want {
			t.Errorf("ImpactText(%v, %+v)\n got %q\nwant %q", tc.enabled, tc.i, got, tc.want)
		}
	}
}
