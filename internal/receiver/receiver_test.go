package receiver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

func TestTypeName(t *testing.T) {
	src := `package p
func (T) a()            {}
func (t *T) b()         {}
func (t (*T)) c()       {}
func (t G[K]) d()       {}
func (t *G[K, V]) e()   {}
func (t *struct{}) f()  {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "T", "b": "T", "c": "T", "d": "G", "e": "G", "f": ""}
	for _, d := range f.Decls {
		fd := d.(*ast.FuncDecl)
		if got := TypeName(fd.Recv.List[0].Type); got != want[fd.Name.Name] {
			t.Errorf("%s: TypeName = %q, want %q", fd.Name.Name, got, want[fd.Name.Name])
		}
	}
}
