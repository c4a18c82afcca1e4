package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Packages that share a last element get binaries of their own: go test
// -c names a binary after it, so they build in different rounds, and the
// run finds each where the build put it.
func TestPackagesSharingANameGetBinariesOfTheirOwn(t *testing.T) {
	pkgs, err := list([]string{"fieldbrief/cmd/web", "fieldbrief/internal/web", "fieldbrief/cmd/web", "fieldbrief/static"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 3 {
		t.Fatalf("want each package once, got %+v", pkgs)
	}
	cmd, internal, static := pkgs[0], pkgs[1], pkgs[2]
	if !cmd.tests || !internal.tests || static.tests {
		t.Fatalf("which have tests: %+v", pkgs)
	}
	a, b := cmd.binary("root"), internal.binary("root")
	if a == b || filepath.Base(a) != "web.test" || filepath.Base(b) != "web.test" {
		t.Fatalf("binaries %s and %s", a, b)
	}
	if !strings.HasSuffix(internal.dir, filepath.Join("internal", "web")) {
		t.Fatalf("internal/web's directory: %s", internal.dir)
	}
}
