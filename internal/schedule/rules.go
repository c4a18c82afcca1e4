package schedule

import (
	"archive/zip"
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Where zone rules come from (docs/scheduling.md, "Zone rules"). Go's
// time.LoadLocation prefers the host's zoneinfo and uses the copy that
// time/tzdata embeds only when the host has none, so two replicas on hosts
// with different tzdata could decide different fire instants. The source is
// therefore explicit and the same on every host.
const (
	// SourceEmbedded: the rules generated into this package (zoneinfo.zip),
	// identical in every binary built from the same commit. The default.
	SourceEmbedded = "embedded"
	// SourceHost: the host's zoneinfo directory, for operators who keep it
	// more current than our releases. Never silently replaced by another copy.
	SourceHost = "host"
)

//go:embed zoneinfo.zip
var embeddedZip []byte

// ZoneRules is one source of zone rules and the tz release it holds.
// Locations are cached per canonical zone name, so the cache is bounded by
// the zone table whatever names callers try.
type ZoneRules struct {
	Source  string // SourceEmbedded or SourceHost
	Version string // tz release, e.g. "2025b"; "unknown" when the host does not say
	read    func(name string) ([]byte, error)
	locs    sync.Map // canonical name -> *time.Location
}

// String is how briefings, logs and pages name the rules:
// "tzdata 2025b (embedded)".
func (r *ZoneRules) String() string {
	return "tzdata " + r.Version + " (" + r.Source + ")"
}

// EmbeddedZoneRules returns the rules embedded in the binary.
func EmbeddedZoneRules() *ZoneRules { return embeddedRules() }

var embeddedRules = sync.OnceValue(func() *ZoneRules {
	zr, err := zip.NewReader(bytes.NewReader(embeddedZip), int64(len(embeddedZip)))
	if err != nil {
		panic(fmt.Sprintf("schedule: embedded zoneinfo.zip: %v", err)) // a broken build, caught by every test
	}
	files := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		files[f.Name] = f
	}
	return &ZoneRules{Source: SourceEmbedded, Version: tzdataVersion, read: func(name string) ([]byte, error) {
		f, ok := files[name]
		if !ok {
			return nil, errors.New("not in the embedded zone rules")
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}}
})

// HostZoneRules returns the rules of a zoneinfo directory of the host
// (compiled TZif files, as the tzdata package installs them). Its version is
// read from the directory's tzdata.zi or +VERSION, "unknown" without them.
func HostZoneRules(dir string) (*ZoneRules, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("host zone rules: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("host zone rules: %s is not a directory", dir)
	}
	return &ZoneRules{Source: SourceHost, Version: hostVersion(dir), read: func(name string) ([]byte, error) {
		// name is a canonical zone name (checkZoneName and the zone table
		// keep paths out), so this reads inside dir only.
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	}}, nil
}

// hostZoneDirs are where Go's time package looks for zoneinfo on Unix.
var hostZoneDirs = []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"}

// hostVersion reads the tz release from "# version 2025b" in tzdata.zi or
// from +VERSION, both installed by the tzdata package.
func hostVersion(dir string) string {
	if f, err := os.Open(filepath.Join(dir, "tzdata.zi")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() && strings.HasPrefix(sc.Text(), "#") {
			if v, ok := strings.CutPrefix(sc.Text(), "# version "); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "+VERSION")); err == nil {
		if v := strings.TrimSpace(string(b)); v != "" && len(v) <= 32 {
			return v
		}
	}
	return "unknown"
}

// FindHostZoneRules loads the host's rules from the first of the usual Unix
// places that exists.
func FindHostZoneRules() (*ZoneRules, error) {
	for _, dir := range hostZoneDirs {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			return HostZoneRules(dir)
		}
	}
	return nil, fmt.Errorf("this host has no zoneinfo directory (looked in %s)", strings.Join(hostZoneDirs, ", "))
}

// current is the process's rules, chosen once at start by UseZoneRules;
// every zone name becomes a *time.Location through them (LoadZone).
var current atomic.Pointer[ZoneRules]

// UseZoneRules makes r the rules LoadZone decides with, for the process.
// The binaries call it once at start, before any zone is loaded.
func UseZoneRules(r *ZoneRules) { current.Store(r) }

// CurrentZoneRules returns the rules LoadZone decides with: the embedded
// ones unless UseZoneRules chose others.
func CurrentZoneRules() *ZoneRules {
	if r := current.Load(); r != nil {
		return r
	}
	return EmbeddedZoneRules()
}

// LoadZone loads a zone by canonical name or legacy alias,
// case-insensitively, with the process's rules (CurrentZoneRules).
func LoadZone(name string) (Zone, error) {
	return CurrentZoneRules().LoadZone(name)
}

// LoadZone loads a zone by canonical name or legacy alias,
// case-insensitively, and returns it under its canonical name. Only names of
// the tz database are accepted: "Local" would make behaviour depend on the
// host, and a path would read arbitrary files.
func (r *ZoneRules) LoadZone(name string) (Zone, error) {
	if err := checkZoneName(name); err != nil {
		return Zone{}, err
	}
	canonical, ok := zoneNames()[strings.ToLower(name)]
	if !ok {
		return Zone{}, fmt.Errorf("unknown time zone %q", name)
	}
	if canonical == "UTC" {
		// The same in every release, and time.UTC is what the rest of the
		// code (DefaultSchedule, time.LoadLocation) means by it.
		return Zone{Name: canonical, Loc: time.UTC}, nil
	}
	if loc, ok := r.locs.Load(canonical); ok {
		return Zone{Name: canonical, Loc: loc.(*time.Location)}, nil
	}
	data, err := r.read(canonical)
	if err != nil {
		return Zone{}, fmt.Errorf("load time zone %q from %s: %w", canonical, r, err)
	}
	loc, err := time.LoadLocationFromTZData(canonical, data)
	if err != nil {
		return Zone{}, fmt.Errorf("load time zone %q from %s: %w", canonical, r, err)
	}
	cached, _ := r.locs.LoadOrStore(canonical, loc) // one *Location per zone, even when loads race
	return Zone{Name: canonical, Loc: cached.(*time.Location)}, nil
}
