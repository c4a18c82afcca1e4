package schedule_test

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

// fakeHostZoneinfo is a zoneinfo directory whose Europe/Berlin holds
// Tokyo's rules: a host whose tzdata disagrees with ours.
func fakeHostZoneinfo(t *testing.T, tzdataZi string) string {
	t.Helper()
	dir := t.TempDir()
	tokyo, err := schedule.ZoneRulesData(schedule.EmbeddedZoneRules(), "Asia/Tokyo")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "Europe"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Europe", "Berlin"), tokyo, 0o644))
	if tzdataZi != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tzdata.zi"), []byte(tzdataZi), 0o644))
	}
	return dir
}

func offsetAt(z schedule.Zone, t time.Time) int {
	_, off := t.In(z.Loc).Zone()
	return off
}

// The default decides with the embedded rules even where the host has
// zoneinfo of its own ($ZONEINFO is read once per process by package time,
// hence the child process).
func TestLoadZoneIgnoresHostZoneinfo(t *testing.T) {
	if os.Getenv("FIELDBRIEF_TZ_CHILD") == "1" {
		z, err := schedule.LoadZone("Europe/Berlin")
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Printf("offset=%d\n", offsetAt(z, time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)))
		os.Exit(0)
	}
	dir := fakeHostZoneinfo(t, "")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadZoneIgnoresHostZoneinfo$")
	cmd.Env = append(os.Environ(), "FIELDBRIEF_TZ_CHILD=1", "ZONEINFO="+dir, "TZ_SOURCE=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "offset=3600") // Berlin's CET, not Tokyo's +09:00
}

func TestEmbeddedAndHostRulesDecideapart(t *testing.T) {
	t.Parallel()
	dir := fakeHostZoneinfo(t, "# version 2099z\n# ddeps\n")
	host, err := schedule.HostZoneRules(dir)
	require.NoError(t, err)
	require.Equal(t, schedule.SourceHost, host.Source)
	require.Equal(t, "2099z", host.Version)
	require.Equal(t, "tzdata 2099z (host)", host.String())

	embedded := schedule.EmbeddedZoneRules()
	require.Equal(t, schedule.SourceEmbedded, embedded.Source)
	require.Regexp(t, `^20\d\d[a-z]$`, embedded.Version)

	// The same schedule, 08:00 Berlin on a winter Tuesday, fires at
	// different instants under the two sources.
	eb, err := embedded.LoadZone("Europe/Berlin")
	require.NoError(t, err)
	hb, err := host.LoadZone("europe/berlin")
	require.NoError(t, err)
	require.Equal(t, "Europe/Berlin", hb.Name)
	d := date(t, "2026-01-13")
	eFire, _ := schedule.FireTime(eb.Loc, d, clock(t, "08:00"))
	hFire, _ := schedule.FireTime(hb.Loc, d, clock(t, "08:00"))
	require.Equal(t, instant(t, "2026-01-13T07:00:00Z"), eFire)
	require.Equal(t, instant(t, "2026-01-12T23:00:00Z"), hFire)

	// Host rules read only the host: a zone it lacks is an error naming the
	// source, never a silent fallback to another copy.
	_, err = host.LoadZone("America/New_York")
	require.ErrorContains(t, err, `load time zone "America/New_York" from tzdata 2099z (host)`)
	// Names are checked before any file is read.
	_, err = host.LoadZone("../../etc/passwd")
	require.EqualError(t, err, `invalid time zone name "../../etc/passwd"`)
}

func TestHostZoneRulesVersion(t *testing.T) {
	t.Parallel()
	dir := fakeHostZoneinfo(t, "")
	r, err := schedule.HostZoneRules(dir)
	require.NoError(t, err)
	require.Equal(t, "unknown", r.Version)
	require.Equal(t, "tzdata unknown (host)", r.String())

	require.NoError(t, os.WriteFile(filepath.Join(dir, "+VERSION"), []byte("2024a\n"), 0o644))
	r, err = schedule.HostZoneRules(dir)
	require.NoError(t, err)
	require.Equal(t, "2024a", r.Version)

	_, err = schedule.HostZoneRules(filepath.Join(dir, "missing"))
	require.ErrorContains(t, err, "host zone rules:")
	_, err = schedule.HostZoneRules(filepath.Join(dir, "+VERSION"))
	require.ErrorContains(t, err, "is not a directory")
}

// Every zone of the picker, and every alias, loads from the embedded rules,
// and the embedded rules hold exactly the picker's zones.
func TestEmbeddedRulesHoldEveryZone(t *testing.T) {
	t.Parallel()
	r := schedule.EmbeddedZoneRules()
	names := map[string]bool{}
	for _, z := range schedule.Zones() {
		names[z.Name] = true
		for _, name := range append([]string{z.Name}, z.Aliases...) {
			loaded, err := r.LoadZone(name)
			require.NoError(t, err, name)
			require.Equal(t, z.Name, loaded.Name, name)
			require.Equal(t, z.Name, loaded.Loc.String(), name)
		}
	}
	zr, err := zip.OpenReader("zoneinfo.zip")
	require.NoError(t, err)
	defer zr.Close()
	require.Len(t, zr.File, len(names))
	for _, f := range zr.File {
		require.True(t, names[f.Name], f.Name)
	}
}

func TestCurrentZoneRulesDefaultsToEmbedded(t *testing.T) {
	t.Parallel()
	require.Same(t, schedule.EmbeddedZoneRules(), schedule.CurrentZoneRules())
}

func BenchmarkLoadZone(b *testing.B) {
	b.Run("embedded-uncached", func(b *testing.B) {
		for b.Loop() {
			r := schedule.FreshZoneRules(schedule.EmbeddedZoneRules())
			if _, err := r.LoadZone("America/New_York"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("host-uncached", func(b *testing.B) {
		host, err := schedule.HostZoneRules("/usr/share/zoneinfo")
		if err != nil {
			b.Skip(err)
		}
		for b.Loop() {
			r := schedule.FreshZoneRules(host)
			if _, err := r.LoadZone("America/New_York"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-time-LoadLocation", func(b *testing.B) {
		for b.Loop() {
			if _, err := time.LoadLocation("America/New_York"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		r := schedule.EmbeddedZoneRules()
		for b.Loop() {
			if _, err := r.LoadZone("America/New_York"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
