package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// SourceFiles is every Go and SQL file of the module outside tests, by its
// path from the module root (found from the test's folder up to go.mod),
// for the tests that read the code: which package takes advisory locks,
// which begins transactions. Folders named in skip (paths from the root)
// are left out, and so are .git, bin, node_modules and testdata.
func SourceFiles(t testing.TB, skip ...string) map[string][]byte {
	t.Helper()
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		require.NotEqual(t, root, parent, "no go.mod above the test's folder")
		root = parent
	}
	out := map[string][]byte{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "bin", "node_modules", "testdata":
				return filepath.SkipDir
			}
			if slices.Contains(skip, rel) {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".sql")) || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[rel] = b
		return nil
	})
	require.NoError(t, err)
	return out
}
