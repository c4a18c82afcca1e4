package i18n_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/testutil/gosource"
)

// forwarded are the places that refuse with a reason that is not a
// literal at the call: the reasons they may carry (nil: a reason already
// refused elsewhere, passed on with its arguments).
var forwarded = map[string][]string{
	"internal/briefing/requests.go: checkRequests":                    {"generate_too_many", "test_too_many"},
	"internal/accounts/users.go: addressError":                        {"address_ip_literal", "address_dotless_domain", "address_internal_domain"},
	"internal/accounts/provision.go: (*Store).ProvisionOrgWithInvite": nil,
	"internal/accounts/passwords.go: asField":                         nil,
	"internal/webhooks/endpoints.go: (*Store).validate": {"webhook_url_required", "webhook_description_too_long",
		"webhook_description_line", "webhook_event_unknown", "webhook_events_required"},
	"internal/web/middleware.go: var": nil, // errUploadTooLarge: fieldimport.ErrTooLarge's
}

// use is one refusal in the code: its reason and, when the call names
// them, its arguments.
type use struct {
	where  string
	reason string
	args   []string // nil with known false: not a literal
	known  bool
}

// refusalsInCode finds every apperr.Refuse, apperr.FieldRefusal and
// apperr.Error{Reason: …} in the non-test Go files of internal/ and cmd/.
func refusalsInCode(t *testing.T) []use {
	t.Helper()
	var uses []use
	seenForwarded := map[string]bool{}
	for _, root := range []string{"..", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			rel := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(filepath.Join("internal/i18n", path))), "")
			for _, decl := range f.Decls {
				where := rel + ": " + gosource.DeclName(decl)
				add := func(pos token.Pos, reason ast.Expr, args ast.Expr, haveArgs bool) {
					lit, ok := reason.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						if _, ok := forwarded[where]; !ok {
							t.Errorf("%s (%s): a reason that is not a literal; list the place in forwarded with the reasons it carries", fset.Position(pos), where)
						}
						seenForwarded[where] = true
						return
					}
					r, _ := strconv.Unquote(lit.Value)
					u := use{where: fset.Position(pos).String(), reason: r}
					if haveArgs {
						u.args, u.known = argNames(args)
					}
					uses = append(uses, u)
				}
				ast.Inspect(decl, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.CallExpr:
						switch gosource.Selected(n.Fun, "apperr") {
						case "Refuse", "FieldRefusal":
							if len(n.Args) == 3 {
								add(n.Pos(), n.Args[1], n.Args[2], true)
							}
						}
					case *ast.CompositeLit:
						name := gosource.Selected(n.Type, "apperr")
						if name != "Error" && name != "Field" {
							return true
						}
						var reason, args ast.Expr
						message := false
						for _, e := range n.Elts {
							kv, ok := e.(*ast.KeyValueExpr)
							if !ok {
								continue
							}
							switch k := kv.Key.(*ast.Ident); {
							case k == nil:
							case name == "Error" && k.Name == "Reason", name == "Field" && k.Name == "Code":
								reason = kv.Value
							case k.Name == "Args":
								args = kv.Value
							case k.Name == "Message":
								message = true
							}
						}
						if reason != nil && !message { // with a Message: its own words (the API's)
							add(n.Pos(), reason, args, args != nil)
						}
					}
					return true
				})
			}
			return nil
		})
		require.NoError(t, err)
	}
	for where, reasons := range forwarded {
		assert.True(t, seenForwarded[where], "%s forwards no reason any more: remove it from forwarded", where)
		for _, r := range reasons {
			uses = append(uses, use{where: where, reason: r})
		}
	}
	return uses
}

// argNames are the keys of an apperr.Args literal (nil: none); known is
// false when args is not a literal.
func argNames(e ast.Expr) (names []string, known bool) {
	switch e := e.(type) {
	case *ast.Ident:
		return nil, e.Name == "nil"
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				return nil, false
			}
			lit, ok := kv.Key.(*ast.BasicLit)
			if !ok {
				return nil, false
			}
			k, _ := strconv.Unquote(lit.Value)
			names = append(names, k)
		}
		return names, true
	}
	return nil, false
}

// TestEveryReasonHasWords: every reason the code refuses with is in the
// one table (i18n.Refusal), its message is in all four catalogs (with
// TestCatalogsComplete: of the same fields), every field the message
// shows is an argument the refusal gives, and the table has no reason the
// code no longer uses.
func TestEveryReasonHasWords(t *testing.T) {
	t.Parallel()
	uses := refusalsInCode(t)
	require.NotEmpty(t, uses)
	cats := map[string]map[string]message{}
	for _, lang := range i18n.Languages() {
		cats[lang] = flatten(t, lang)
	}
	used := map[string]bool{}
	for _, u := range uses {
		used[u.reason] = true
		id := i18n.ReasonMessage(u.reason)
		if !assert.NotEmpty(t, id, "%s: reason %q has no line in the table (internal/i18n/refusals.go)", u.where, u.reason) {
			continue
		}
		for _, lang := range i18n.Languages() {
			m, ok := cats[lang][id]
			if !assert.True(t, ok, "%s: %s lacks %q (reason %q)", u.where, lang, id, u.reason) || !u.known {
				continue
			}
			texts := []string{m.text}
			for _, s := range m.forms {
				texts = append(texts, s)
			}
			for _, s := range texts {
				for _, f := range fields(s) {
					name := strings.TrimPrefix(f, ".")
					assert.True(t, name == "Count" && m.forms != nil || slices.Contains(u.args, name),
						"%s: reason %q: %s's %q shows {{%s}}, which the refusal does not give (%v)", u.where, u.reason, lang, id, f, u.args)
				}
			}
		}
	}
	for _, r := range i18n.Reasons() {
		assert.True(t, used[r], "the table says %q, which no code refuses with any more", r)
	}
}

// A refusal says itself in the reader's language, with its arguments in
// the reader's formats; the JSON API's English is the same table's.
func TestRefusalInEachLanguage(t *testing.T) {
	t.Parallel()
	err := apperr.Refuse(apperr.NotFound, "job_ref_not_found", apperr.Args{"Ref": "J-7"})
	for lang, want := range map[string]string{
		"en": `No job has the reference "J-7".`,
		"de": "Kein Auftrag hat die Referenz „J-7“.",
		"es": "Ningún trabajo tiene la referencia «J-7».",
		"fr": "Aucune intervention n’a la référence «\u202fJ-7\u202f».",
	} {
		got, ok := i18n.New(lang, "").Refusal(err)
		assert.True(t, ok, lang)
		assert.Equal(t, want, got, lang)
	}
	rows := apperr.Refuse(apperr.Invalid, "import_too_many_rows", apperr.Args{"Rows": 50000})
	assert.Contains(t, i18n.English.Message(rows), "more than 50,000 rows")
	assert.Contains(t, i18n.New("de", "de-DE").Message(rows), "50.000")

	n := apperr.Refuse(apperr.TooMany, "invites_waiting", apperr.Args{"Count": 1})
	assert.Equal(t, "This org has 1 invite waiting already: revoke some before inviting more.", i18n.English.Message(n))

	f := apperr.FieldRefusal("name", "name_required", apperr.Args{"Max": 200})
	assert.Equal(t, "Geben Sie Ihren Namen ein (höchstens 200 Zeichen).", strings.Replace(i18n.New("de", "").Message(f), "Bitte geben", "Geben", 1))

	// Not a refusal of the table: its own words, or none.
	_, ok := i18n.English.Refusal(apperr.Errorf(apperr.Invalid, "The body must be one JSON object."))
	assert.False(t, ok)
	assert.Equal(t, "The body must be one JSON object.", i18n.English.Message(apperr.Errorf(apperr.Invalid, "The body must be one JSON object.")))
	assert.Equal(t, apperr.InternalMessage, i18n.English.Message(errors.New("boom")))
	_, ok = i18n.English.Refusal(apperr.Refuse(apperr.Invalid, "no_such_reason", nil))
	assert.False(t, ok)
}
