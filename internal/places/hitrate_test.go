package places_test

import (
	"os"
	"strings"
	"testing"

	"fieldbrief/internal/places"
)

func reader(tag string) places.Reader {
	lang, region, _ := strings.Cut(tag, "-")
	return places.Reader{Lang: lang, Region: region}
}

func TestHitRateBaseline(t *testing.T) {
	data, _ := os.ReadFile("testdata/queries.tsv")
	hits, all := map[string]int{}, map[string]int{}
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		lang := f[0][:2]
		all[lang]++
		r := places.Search(f[1], reader(f[0]), winter, 1)
		if len(r) > 0 && r[0].Zone == f[2] {
			hits[lang]++
		} else {
			got := ""
			if len(r) > 0 {
				got = r[0].Zone + " " + r[0].City
			}
			t.Logf("miss %s %q: %s", f[0], f[1], got)
		}
	}
	for _, l := range []string{"de", "es", "fr", "en"} {
		t.Logf("%s: %d of %d", l, hits[l], all[l])
	}
}
