package locale_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"fieldbrief/internal/locale"
)

// nb is U+202F NARROW NO-BREAK SPACE, which CLDR puts between a time and
// its day period and French puts between digit groups.
const nb = "\u202f"

// mustParse is the supported locale tag names exactly.
func mustParse(t testing.TB, tag string) locale.Locale {
	t.Helper()
	l := locale.Nearest(tag)
	if l.Tag() != tag {
		t.Fatalf("locale %q is not supported (nearest: %s)", tag, l)
	}
	return l
}

// thursday is 2026-11-26 08:00 in Chicago: a Thursday in November, so
// every zone below is in its winter (or, south, summer) time.
var thursday = time.Date(2026, 11, 26, 8, 0, 0, 0, mustZone("America/Chicago"))

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

func TestFormats(t *testing.T) {
	t.Parallel()
	afternoon := time.Date(2026, 11, 26, 18, 5, 0, 0, time.UTC)
	for _, c := range []struct {
		tag, time, evening, date, dateYear, monthDay, long, number string
		first                                                      time.Weekday
	}{
		{"en-US", "8:00" + nb + "AM", "6:05" + nb + "PM", "Thu, Nov 26", "Thu, Nov 26, 2026", "Nov 26", "Thursday, November 26, 2026", "1,234,567", time.Sunday},
		{"en-GB", "08:00", "18:05", "Thu 26 Nov", "Thu, 26 Nov 2026", "26 Nov", "Thursday, 26 November 2026", "1,234,567", time.Monday},
		{"de-DE", "08:00", "18:05", "Do., 26. Nov.", "Do., 26. Nov. 2026", "26. Nov.", "Donnerstag, 26. November 2026", "1.234.567", time.Monday},
		{"es-ES", "8:00", "18:05", "jue, 26 nov", "jue, 26 nov 2026", "26 nov", "jueves, 26 de noviembre de 2026", "1.234.567", time.Monday},
		{"es-US", "8:00" + nb + "a.m.", "6:05" + nb + "p.m.", "jue, 26 de nov", "jue, 26 de nov de 2026", "26 nov", "jueves, 26 de noviembre de 2026", "1,234,567", time.Sunday},
		{"es-MX", "8:00" + nb + "a.m.", "6:05" + nb + "p.m.", "jue 26 de nov", "jue, 26 de nov de 2026", "26 nov", "jueves, 26 de noviembre de 2026", "1,234,567", time.Sunday},
		{"fr-FR", "08:00", "18:05", "jeu. 26 nov.", "jeu. 26 nov. 2026", "26 nov.", "jeudi 26 novembre 2026", "1" + nb + "234" + nb + "567", time.Monday},
		{"fr-CA", "08 h 00", "18 h 05", "jeu. 26 nov.", "jeu. 26 nov. 2026", "26 nov.", "jeudi 26 novembre 2026", "1\u00a0234\u00a0567", time.Sunday},
		{"en-NZ", "8:00" + nb + "am", "6:05" + nb + "pm", "Thu, 26 Nov", "Thu, 26 Nov 2026", "26 Nov", "Thursday, 26 November 2026", "1,234,567", time.Monday},
		{"de-CH", "08:00", "18:05", "Do., 26. Nov.", "Do., 26. Nov. 2026", "26. Nov.", "Donnerstag, 26. November 2026", "1'234'567", time.Monday},
	} {
		l := mustParse(t, c.tag)
		check := func(what, got, want string) {
			t.Helper()
			if got != want {
				t.Errorf("%s %s = %q, want %q", c.tag, what, got, want)
			}
		}
		check("Time", l.Time(thursday), c.time)
		check("Time (18:05)", l.Time(afternoon), c.evening)
		check("Clock(8, 0)", l.Clock(8, 0), c.time)
		check("Date", l.Date(thursday), c.date)
		check("DateYear", l.DateYear(thursday), c.dateYear)
		check("MonthDay", l.MonthDay(thursday), c.monthDay)
		check("LongDate", l.LongDate(thursday), c.long)
		check("Number", l.Number(1234567), c.number)
		if got := l.FirstDay(); got != c.first {
			t.Errorf("%s FirstDay = %v, want %v", c.tag, got, c.first)
		}
		if w := l.Week(); w[0] != c.first || len(w) != 7 || w[6] != (c.first+6)%7 {
			t.Errorf("%s Week = %v", c.tag, w)
		}
	}
}

// TestTimeInItsOwnLocation: Time writes t's wall clock where t is, not UTC.
func TestTimeInItsOwnLocation(t *testing.T) {
	t.Parallel()
	l := mustParse(t, "de-DE")
	if got := l.Time(thursday.In(mustZone("Europe/Berlin"))); got != "15:00" {
		t.Errorf("Time in Berlin = %q, want 15:00", got)
	}
	if got := l.Time(thursday); got != "08:00" {
		t.Errorf("Time in Chicago = %q, want 08:00", got)
	}
}

func TestTimeRange(t *testing.T) {
	t.Parallel()
	const thin = "\u2009" // CLDR's thin space around the range dash
	at := func(h, m int) time.Time { return time.Date(2026, 11, 26, h, m, 0, 0, time.UTC) }
	for _, c := range []struct {
		tag      string
		from, to time.Time
		want     string
	}{
		{"en-US", at(14, 0), at(16, 0), "2:00" + thin + "–" + thin + "4:00" + nb + "PM"},
		{"en-US", at(9, 0), at(16, 30), "9:00" + nb + "AM" + thin + "–" + thin + "4:30" + nb + "PM"},
		{"en-US", at(14, 0), at(14, 30), "2:00" + thin + "–" + thin + "2:30" + nb + "PM"},
		{"en-US", at(14, 0), at(14, 0), "2:00" + nb + "PM"},
		{"de-DE", at(14, 0), at(16, 0), "14:00–16:00 Uhr"},
		{"en-GB", at(14, 0), at(16, 0), "14:00–16:00"},
		{"fr-FR", at(9, 0), at(16, 0), "09:00" + thin + "–" + thin + "16:00"},
		{"fr-CA", at(9, 0), at(16, 0), "9 h 00" + thin + "–" + thin + "16 h 00"},
		{"es-US", at(9, 0), at(10, 0), "9:00–10:00" + nb + "a.m."},
		// Across midnight: both times, joined by the fallback.
		{"de-DE", at(22, 0), at(22, 0).Add(4 * time.Hour), "22:00" + thin + "–" + thin + "02:00"},
	} {
		if got := mustParse(t, c.tag).TimeRange(c.from, c.to); got != c.want {
			t.Errorf("%s TimeRange(%s, %s) = %q, want %q", c.tag, c.from.Format("15:04"), c.to.Format("15:04"), got, c.want)
		}
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tag  string
		n    int
		want string
	}{
		{"en-US", 0, "0"},
		{"en-US", 999, "999"},
		{"en-US", 1000, "1,000"},
		{"en-US", -1234567, "-1,234,567"},
		{"de-DE", 1234, "1.234"},
		{"es-ES", 1234, "1234"}, // CLDR: Spanish groups from five digits
		{"es-ES", 12345, "12.345"},
		{"es-MX", 1234, "1,234"},
		{"fr-FR", 1000, "1" + nb + "000"},
	} {
		if got := mustParse(t, c.tag).Number(c.n); got != c.want {
			t.Errorf("%s Number(%d) = %q, want %q", c.tag, c.n, got, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tag                         string
		abbr, wide, short, narrow   string
		monthAbbr, monthWide, march string
	}{
		{"en-US", "Thu", "Thursday", "Th", "T", "Nov", "November", "Mar"},
		{"de-DE", "Do.", "Donnerstag", "Do.", "D", "Nov.", "November", "März"},
		{"es-ES", "jue", "jueves", "JU", "J", "nov", "noviembre", "mar"},
		{"fr-FR", "jeu.", "jeudi", "je", "J", "nov.", "novembre", "mars"},
	} {
		l := mustParse(t, c.tag)
		got := []string{l.Weekday(time.Thursday, locale.Abbreviated), l.Weekday(time.Thursday, locale.Wide),
			l.Weekday(time.Thursday, locale.Short), l.Weekday(time.Thursday, locale.Narrow),
			l.Month(time.November, locale.Abbreviated), l.Month(time.November, locale.Wide), l.Month(time.March, "")}
		want := []string{c.abbr, c.wide, c.short, c.narrow, c.monthAbbr, c.monthWide, c.march}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s names = %q, want %q", c.tag, got, want)
		}
	}
}

func TestZoneName(t *testing.T) {
	t.Parallel()
	zones := []string{"America/Chicago", "Europe/Berlin", "Pacific/Auckland", "Asia/Kolkata", "America/Phoenix"}
	for _, c := range []struct {
		tag   string
		names []string
	}{
		{"en-US", []string{"Central Time (Chicago)", "Central European Time (Berlin)", "New Zealand Time (Auckland)",
			"India Standard Time (Kolkata)", "Mountain Standard Time (Phoenix)"}},
		{"de-DE", []string{"Nordamerikanische Zentralzeit (Chicago)", "Mitteleuropäische Zeit (Berlin)", "Neuseeland-Zeit (Auckland)",
			"Indische Normalzeit (Kalkutta)", "Rocky-Mountains-Normalzeit (Phoenix)"}},
		{"es-ES", []string{"hora central (Chicago)", "hora de Europa central (Berlín)", "hora de Nueva Zelanda (Auckland)",
			"hora estándar de la India (Calcuta)", "hora estándar de las Montañas Rocosas (Phoenix)"}},
		{"es-US", []string{"hora central (Chicago)", "hora de Europa central (Berlín)", "hora de Nueva Zelanda (Auckland)",
			"hora de India (Calcuta)", "hora estándar de las Montañas Rocosas (Phoenix)"}},
		{"fr-FR", []string{"heure du centre nord-américain (Chicago)", "heure d’Europe centrale (Berlin)", "heure de la Nouvelle-Zélande (Auckland)",
			"heure de l’Inde (Calcutta)", "heure normale des Rocheuses (Phoenix)"}},
		{"fr-CA", []string{"heure du Centre (Chicago)", "heure de l’Europe centrale (Berlin)", "heure de la Nouvelle-Zélande (Auckland)",
			"heure de l’Inde (Calcutta)", "heure normale des Rocheuses (Phoenix)"}},
	} {
		l := mustParse(t, c.tag)
		for i, z := range zones {
			if got := l.ZoneName(z, thursday); got != c.names[i] {
				t.Errorf("%s ZoneName(%s) = %q, want %q", c.tag, z, got, c.names[i])
			}
		}
	}
}

func TestZoneNameEdges(t *testing.T) {
	t.Parallel()
	en, de := mustParse(t, "en-US"), mustParse(t, "de-DE")
	july := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		l    locale.Locale
		zone string
		at   time.Time
		want string
	}{
		{en, "America/Chicago", july, "Central Time (Chicago)"}, // generic in summer too
		{en, "US/Central", july, "Central Time (Chicago)"},      // an alias finds CLDR's zone
		{en, "Asia/Calcutta", july, "India Standard Time (Kolkata)"},
		{en, "America/New_York", july, "Eastern Time (New York)"}, // city from the id
		{en, "America/Indiana/Knox", july, "Central Time (Knox, Indiana)"},
		{en, "Etc/UTC", july, "Coordinated Universal Time"},
		{en, "UTC", july, "Coordinated Universal Time"},
		{de, "Etc/UTC", july, "Koordinierte Weltzeit"},
		// London keeps summer time and CLDR names only Greenwich Mean Time:
		// the region format with the city, not a name that is wrong in July.
		{en, "Europe/London", july, "London Time"},
		{de, "Europe/London", july, "London (Ortszeit)"},
		{en, "Not/A_Zone", july, "Not/A_Zone"},
		// Knox used Eastern Time from 1991 to 2006 (CLDR metaZones), and
		// kept no daylight time then (tz database).
		{en, "America/Indiana/Knox", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), "Eastern Standard Time (Knox, Indiana)"},
	} {
		if got := c.l.ZoneName(c.zone, c.at); got != c.want {
			t.Errorf("%s ZoneName(%s) = %q, want %q", c.l, c.zone, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"en-US": "en-US", "de_de": "de-DE", " EN-gb ": "en-GB", "en": "en-US", "de": "de-DE", "es": "es-ES", "fr": "fr-FR",
		"es-US": "es-US", "fr-CA": "fr-CA", "es-MX": "es-MX", "xx": "en-US", "en-ZZ": "en-US",
		"de-LU": "de-DE", "en-Latn-GB": "en-GB", "fr-CA-u-ca-gregory": "fr-CA", "pt-BR": "en-US", "": "en-US", "es-419": "es-ES",
		"ES-mx": "es-MX",
	} {
		if got := locale.Nearest(in).Tag(); got != want {
			t.Errorf("Nearest(%q) = %s, want %s", in, got, want)
		}
	}
	if got := (locale.Locale{}).Time(thursday); got != locale.Default().Time(thursday) {
		t.Errorf("zero Locale Time = %q, want Default's", got)
	}
	l := mustParse(t, "de-DE")
	if l.Language() != "de" || l.Region() != "DE" || l.String() != "de-DE" {
		t.Errorf("de-DE parts: %s %s %s", l.Language(), l.Region(), l)
	}
	langs := map[string]bool{}
	for _, l := range locale.Supported() {
		langs[l.Language()] = true
	}
	if len(langs) != 4 || !langs["en"] || !langs["de"] || !langs["es"] || !langs["fr"] {
		t.Errorf("Supported languages = %v", langs)
	}
}

func TestParseClock(t *testing.T) {
	t.Parallel()
	type hm struct{ h, m int }
	accept := map[string]map[string]hm{
		"en-US": {
			"6:30": {6, 30}, "06:30": {6, 30}, "6:30 am": {6, 30}, "6:30 PM": {18, 30}, "6:30PM": {18, 30},
			"6.30pm": {18, 30}, "0630": {6, 30}, "630": {6, 30}, "18.30": {18, 30}, "18h30": {18, 30},
			"18 h 30": {18, 30}, "18h": {18, 0}, "18": {18, 0}, "9am": {9, 0}, "9 a.m.": {9, 0}, "9 A.M.": {9, 0},
			"9p": {21, 0}, "12am": {0, 0}, "12 pm": {12, 0}, "12:30 am": {0, 30}, "0:00": {0, 0}, "23:59": {23, 59},
			" 7:15\u202fPM ": {19, 15}, "7:15\u00a0pm": {19, 15}, "0": {0, 0},
		},
		"de-DE": {"18:30 Uhr": {18, 30}, "18 Uhr": {18, 0}, "08:00": {8, 0}, "8.00": {8, 0}, "18:30": {18, 30}, "6:30 PM": {18, 30}, "6:30 pm": {18, 30}},
		"es-US": {"6:30 p. m.": {18, 30}, "6:30 p.m.": {18, 30}, "6:30 pm": {18, 30}, "6:30 a. m.": {6, 30}, "18:30": {18, 30}},
		"es-ES": {"6:30 p. m.": {18, 30}, "18.30": {18, 30}},
		"fr-FR": {"18h30": {18, 30}, "18 h 30": {18, 30}, "8h": {8, 0}, "08:00": {8, 0}},
		"fr-CA": {"18 h 30": {18, 30}, "6 h 30 p.m.": {18, 30}},
	}
	for tag, cases := range accept {
		l := mustParse(t, tag)
		for in, want := range cases {
			h, m, err := l.ParseClock(in)
			if err != nil || h != want.h || m != want.m {
				t.Errorf("%s ParseClock(%q) = %d:%02d, %v; want %d:%02d", tag, in, h, m, err, want.h, want.m)
			}
		}
	}
	refuse := map[string]locale.ClockProblem{
		"": locale.ClockEmpty, "   ": locale.ClockEmpty,
		"24:00": locale.ClockHour, "25:00": locale.ClockHour, "2400": locale.ClockHour, "99": locale.ClockHour,
		"6:60": locale.ClockMinute, "0699": locale.ClockMinute,
		"13pm": locale.ClockTwelveHour, "0 am": locale.ClockTwelveHour, "00:30 am": locale.ClockTwelveHour,
		"6:3": locale.ClockUnreadable, "6:300": locale.ClockUnreadable, "noon": locale.ClockUnreadable,
		"6:30 xm": locale.ClockUnreadable, "6:30:00": locale.ClockUnreadable, "-6:30": locale.ClockUnreadable,
		"12345": locale.ClockUnreadable, "6::30": locale.ClockUnreadable, "am 6:30": locale.ClockUnreadable,
		"١٢:٣٠": locale.ClockUnreadable, strings.Repeat("1", 40): locale.ClockUnreadable,
	}
	l := mustParse(t, "en-US")
	for in, want := range refuse {
		_, _, err := l.ParseClock(in)
		var ce *locale.ClockError
		if !errors.As(err, &ce) || ce.Problem != want || ce.Input != in || err.Error() == "" {
			t.Errorf("ParseClock(%q) = %v, want problem %d", in, err, want)
		}
	}
	// What the old time box cut "6:30 am" to still reads as 6:30 AM.
	if h, m, err := l.ParseClock("6:30a"); err != nil || h != 6 || m != 30 {
		t.Errorf(`ParseClock("6:30a") = %d:%d, %v`, h, m, err)
	}
	// A German day-period word CLDR has only as a flexible period is not read.
	if _, _, err := mustParse(t, "de-DE").ParseClock("6:30 nachm."); err == nil {
		t.Error(`de-DE ParseClock("6:30 nachm.") accepted`)
	}
}

// TestClockRoundTrip: every minute of the day, in every supported locale,
// reads back from what Clock writes.
func TestClockRoundTrip(t *testing.T) {
	t.Parallel()
	for _, l := range locale.Supported() {
		for minute := range 24 * 60 {
			s := l.Clock(minute/60, minute%60)
			h, m, err := l.ParseClock(s)
			if err != nil || h*60+m != minute {
				t.Fatalf("%s: Clock(%d, %d) = %q reads back as %d:%02d, %v", l, minute/60, minute%60, s, h, m, err)
			}
		}
	}
}

func FuzzParseClock(f *testing.F) {
	for _, s := range []string{"6:30", "6:30 am", "18h30", "0630", "12 p. m.", "9 a.m.", "24:00", "\u202fpm", "1:1:1"} {
		f.Add(s)
	}
	locales := locale.Supported()
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range locales {
			h, m, err := l.ParseClock(s)
			if err != nil {
				var ce *locale.ClockError
				if !errors.As(err, &ce) {
					t.Fatalf("%s ParseClock(%q): error %T", l, s, err)
				}
				continue
			}
			if h < 0 || h > 23 || m < 0 || m > 59 {
				t.Fatalf("%s ParseClock(%q) = %d:%d", l, s, h, m)
			}
			if h2, m2, err := l.ParseClock(l.Clock(h, m)); err != nil || h2 != h || m2 != m {
				t.Fatalf("%s: %q → %d:%02d → %q → %d:%02d, %v", l, s, h, m, l.Clock(h, m), h2, m2, err)
			}
		}
	})
}
