package apperr_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"fieldbrief/internal/testutil/gosource"
)

// presentation are the packages that say things to people: they may build
// an apperr error with words of their own (the web's and the API's own
// English, HTTP infrastructure). Everything else under internal/ is a
// store or domain package and refuses by reason code only.
var presentation = map[string]bool{"web": true, "api": true, "httpkit": true, "i18n": true, "apperr": true}

// notYet are the constructions of English messages left in store and
// domain packages, each a bridge from a package's own coded problems
// whose words have a table of their own still (docs/i18n.md, "Refusals:
// one table", what is left). A new entry needs a reason; removing one is
// progress.
var notYet = map[string]string{
	"field/field.go: (*ValidationError).Unwrap":     "field problems: codes and parameters, words in web/problems.go",
	"field/batch.go: (*BatchError).Unwrap":          "rows of field problems, as above",
	"schedule/config.go: (*ValidationError).Unwrap": "settings problems: codes, words in web/settings_messages.go",
	"transport/guard.go: CheckWebhookURL":           "which rule a webhook URL breaks, shared with schedule's problems",
	"webhooks/endpoints.go: (*Store).validate":      "passes transport's CheckWebhookURL message on",
}

// TestStoresRefuseByCode fails when a store or domain package builds an
// apperr error with a sentence: apperr.Errorf, FieldError or Throttled, or
// an apperr.Error or apperr.Field literal with a Message. They refuse with
// apperr.Refuse and apperr.FieldRefusal (a reason and its arguments), and
// the catalog says it (i18n.Refusal).
func TestStoresRefuseByCode(t *testing.T) {
	t.Parallel()
	root := ".."
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if presentation[rel] || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			where := rel + ": " + gosource.DeclName(decl)
			ast.Inspect(decl, func(n ast.Node) bool {
				what := sentence(n)
				if what == "" {
					return true
				}
				if _, ok := notYet[where]; ok {
					seen[where] = true
					return true
				}
				t.Errorf("%s (%s): %s builds a refusal with a sentence; use apperr.Refuse or apperr.FieldRefusal with a reason code and its words in the catalog (i18n.Refusal)",
					fset.Position(n.Pos()), where, what)
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for where := range notYet {
		if !seen[where] {
			t.Errorf("%s builds no sentence any more: remove it from notYet", where)
		}
	}
}

// sentence names what n does when it builds an apperr error with words.
func sentence(n ast.Node) string {
	switch n := n.(type) {
	case *ast.CallExpr:
		if name := gosource.Selected(n.Fun, "apperr"); name == "Errorf" || name == "FieldError" || name == "Throttled" {
			return "apperr." + name
		}
	case *ast.CompositeLit:
		if name := gosource.Selected(n.Type, "apperr"); name == "Error" || name == "Field" {
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Message" {
						return "apperr." + name + "{Message: …}"
					}
				}
			}
		}
	}
	return ""
}
