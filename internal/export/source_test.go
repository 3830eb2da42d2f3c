package export

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// funcName names functions F and methods T.M, whatever the receiver's
// pointer, type parameters and parentheses; a receiver of no named type
// leaves the method's own name.
func TestFuncName(t *testing.T) {
	src := `package p
func F()                {}
func (T) a()            {}
func (t (*T)) b()       {}
func (t *G[K, V]) c()   {}
func (t *struct{}) d()  {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"F", "T.a", "T.b", "G.c", "d"}
	for i, d := range f.Decls {
		if got := funcName(d.(*ast.FuncDecl)); got != want[i] {
			t.Errorf("funcName = %q, want %q", got, want[i])
		}
	}
}
