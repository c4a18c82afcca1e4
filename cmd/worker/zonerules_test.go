package main

import (
	"archive/zip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
)

// fakeZoneinfo is a host zoneinfo directory of release "2031c" whose
// Europe/Berlin holds Tokyo's rules.
func fakeZoneinfo(t *testing.T) string {
	t.Helper()
	zr, err := zip.OpenReader(filepath.Join("..", "..", "internal", "schedule", "zoneinfo.zip"))
	require.NoError(t, err)
	defer zr.Close()
	f, err := zr.Open("Asia/Tokyo")
	require.NoError(t, err)
	tokyo, err := io.ReadAll(f)
	f.Close()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "Europe"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Europe", "Berlin"), tokyo, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tzdata.zi"), []byte("# version 2031c\n"), 0o644))
	return dir
}

// TestZoneRulesFromTZSource: by default the worker decides with the
// embedded rules whatever the host has; TZ_SOURCE=host follows the host's;
// the briefing and its revision record which. At 00:30Z it is 01:30 in
// Berlin (08:00 not reached) but 09:30 under the host's altered Berlin.
func TestZoneRulesFromTZSource(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	db := seed(t, url, "Europe/Berlin")
	dir := fakeZoneinfo(t)
	once := func(env ...string) string {
		cmd := workerCmd(t, t.Context(), url, "-once", "-now", "2026-01-13T00:30:00Z")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}

	out := once("TZ_SOURCE=", "ZONEINFO="+dir)
	require.Contains(t, out, `"msg":"worker starting","zone_rules":"`+schedule.EmbeddedZoneRules().String()+`"`)
	require.Empty(t, briefingRows(t, db), "the host's zoneinfo does not decide")

	out = once("TZ_SOURCE=host", "ZONEINFO="+dir)
	require.Contains(t, out, `"zone_rules":"tzdata 2031c (host)","tzdata":"2031c","tz_source":"host"`)
	require.Equal(t, []string{"org-0 2026-01-13 ready 00:30"}, briefingRows(t, db))
	var decided, built string
	require.NoError(t, db.QueryRow(t.Context(), `
		SELECT b.tzdata_version || ' ' || b.tzdata_source, r.tzdata_version || ' ' || r.tzdata_source
		  FROM ff_briefings b JOIN ff_briefing_revisions r ON r.briefing_id = b.id`).Scan(&decided, &built))
	require.Equal(t, "2031c host", decided)
	require.Equal(t, "2031c host", built)
}

// TestBadTZSource: a TZ_SOURCE nobody chose refuses to start, saying
// why, before the database is opened.
func TestBadTZSource(t *testing.T) {
	t.Parallel()
	unreachable := "postgres://postgres@127.0.0.1:1/fieldbrief?sslmode=disable&connect_timeout=5"
	for _, env := range [][]string{
		{"TZ_SOURCE=system"},
		{"TZ_SOURCE=host", "ZONEINFO=" + filepath.Join(t.TempDir(), "missing")},
	} {
		cmd := workerCmd(t, t.Context(), unreachable, "-once")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v: %s", env, out)
		require.Equal(t, 1, exit.ExitCode(), "%v: %s", env, out)
		require.Contains(t, string(out), "worker: zone rules: ", env)
		require.NotContains(t, string(out), "127.0.0.1:1", "refused before the database: %v", env)
	}
}
