package briefview_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/views/briefview"
)

func TestTelURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"+1 (555) 010-2030":      "tel:+15550102030",
		"  +49 30 5550 1201":     "tel:+493055501201",
		"555-0100 ext. 12":       "tel:5550100",
		"555.0100x12":            "tel:5550100",
		"0171/555 0171":          "tel:01715550171",
		"1+23":                   "tel:123",
		`"><script>1</script>99`: "",
		`"><b>+1 555 0100`:       "tel:+15550100",
		"call me":                "",
		"12":                     "",
		"":                       "",
		"+":                      "",
		"tel:+1 555 0100;x=1":    "tel:+15550100",
	} {
		require.Equal(t, want, briefview.TelURL(in), "%q", in)
	}
}

func TestMapURL(t *testing.T) {
	t.Parallel()
	require.Equal(t, "https://www.google.com/maps/search/?api=1&query=1+Elm+St+%26+2nd+Ave%2C+%22Unit+%233%22+%3Cscript%3E",
		briefview.MapURL(`1 Elm St & 2nd Ave, "Unit #3" <script>`))
	require.Equal(t, "https://www.google.com/maps/search/?api=1&query=Oranienstra%C3%9Fe+34%2C+10999+Berlin",
		briefview.MapURL("Oranienstraße 34, 10999 Berlin"))
	require.Empty(t, briefview.MapURL("  "))
}

// Every status a job can have has its words in every language, from the
// one table JobStatus reads: no status falls through to its code.
func TestJobStatusHasWordsForEveryStatus(t *testing.T) {
	for _, lang := range i18n.Languages() {
		l := i18n.New(lang, lang)
		for _, st := range field.Statuses {
			got := briefview.JobStatus(l, st)
			if got == "" || got == st || got == strings.ReplaceAll(st, "_", " ") {
				t.Errorf("%s: status %q reads %q", lang, st, got)
			}
		}
	}
}
