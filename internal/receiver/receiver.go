// Package receiver names the type of a method's receiver as the source
// spells it, for the places that name a method by its type (the export's
// function names, the service's test identity).
package receiver

import "go/ast"

// TypeName is the name of a receiver's type, with the pointer, the type
// parameters and any parentheses dropped: "T" for (*T[K, V]); "" when the
// type is not a named one.
func TypeName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
