package api

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAPIImportsNoPages: the dependency between the rooms points one way
// (docs/architecture.md, "Package map"): internal/web mounts the API, and
// neither the API nor the infrastructure both share imports internal/web,
// tests included.
func TestAPIImportsNoPages(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "../httpkit"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, name := range files {
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				require.NoError(t, err)
				require.False(t, path == "fieldbrief/internal/web" || strings.HasPrefix(path, "fieldbrief/internal/web/"),
					"%s imports %s", name, path)
			}
		}
	}
}
