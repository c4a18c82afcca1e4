// Package gosource holds what the tests that read the repository's own Go
// source share (TestStoresRefuseByCode in internal/apperr,
// TestEveryReasonHasWords in internal/i18n): naming a declaration and
// the name a selector takes from a package.
package gosource

import "go/ast"

// Selected is the name e selects from the package imported as pkg
// ("Errorf" for apperr.Errorf with pkg "apperr"), "" for anything else.
func Selected(e ast.Expr, pkg string) string {
	if s, ok := e.(*ast.SelectorExpr); ok {
		if x, ok := s.X.(*ast.Ident); ok && x.Name == pkg {
			return s.Sel.Name
		}
	}
	return ""
}

// DeclName names a declaration as the tests' lists of places do: a
// function by its name, a method as "(*T).M" or "T.M", anything else as
// "var".
func DeclName(d ast.Decl) string {
	fd, ok := d.(*ast.FuncDecl)
	if !ok {
		return "var"
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	switch r := fd.Recv.List[0].Type.(type) {
	case *ast.StarExpr:
		if id, ok := r.X.(*ast.Ident); ok {
			return "(*" + id.Name + ")." + fd.Name.Name
		}
	case *ast.Ident:
		return r.Name + "." + fd.Name.Name
	}
	return "." + fd.Name.Name
}
