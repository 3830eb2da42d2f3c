package instrument

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// fakeQuicktest declares the part of quicktest's API the recognition
// reads, so that calls resolve to its objects without the module.
const fakeQuicktest = `package quicktest

type TB interface{ Fatal(...any) }
type Checker interface{ Check(got any, args []any) error }
type Comment struct{}
type C struct{ TB }

func Commentf(format string, args ...any) Comment { return Comment{} }
func New(t TB) *C { return &C{t} }
func (c *C) Assert(got any, checker Checker, args ...any) bool { return true }
func (c *C) Check(got any, checker Checker, args ...any) bool { return true }
func Assert(t TB, got any, checker Checker, args ...any) bool { return true }
func Check(t TB, got any, checker Checker, args ...any) bool { return true }
func Not(c Checker) Checker { return c }
func CmpEquals(opts ...any) Checker { return nil }

var Equals, DeepEquals, IsNil, IsNotNil, IsTrue, IsFalse, HasLen, Contains, ErrorIs, ErrorMatches Checker
`

// quicktestCalls has each call statement's expected recognition in the
// comment ending its line: the check, or "no".
const quicktestCalls = `package p

import qt "github.com/frankban/quicktest"

type own struct{}

func (own) Assert(got any, checker qt.Checker, args ...any) bool { return true }

var Equals qt.Checker

type pair struct{ A, B int }
type hidden struct{ a int }
type name string

func f(t qt.TB, c *qt.C, o own, n int, n8 int8, err error, s []int, b []byte, p pair, h hidden, ok bool, str string, nm name) {
	c.Assert(n, qt.Equals, 3)                      // Equal 2
	c.Check(n8, qt.Equals, int8(3))                // Equal 2
	c.Assert(n8, qt.Equals, 3)                     // no: int8 against int
	c.Assert(n, Equals, 3)                         // no: the test's own Equals
	o.Assert(n, qt.Equals, 3)                      // no: the test's own Assert
	qt.Check(t, err, qt.Not(qt.IsNil))             // not Nil 1
	qt.Assert(t, err, qt.IsNotNil)                 // not Nil 1
	c.Assert(err, qt.Equals, nil)                  // Nil 1
	c.Assert(err, qt.Not(qt.Equals), nil)          // not Nil 1
	c.Assert(n, qt.IsNil)                          // no: not an error
	c.Assert(s, qt.Equals, s)                      // no: not comparable
	c.Assert(s, qt.DeepEquals, []int{1})           // Equal 2
	c.Assert(s, qt.CmpEquals(), s)                 // Equal 2
	c.Assert(s, qt.CmpEquals(nil), s)              // no: an option
	c.Assert(b, qt.DeepEquals, b)                  // no: go-cmp tells nil from empty
	c.Assert(p, qt.Equals, pair{1, 2})             // Equal 2
	c.Assert(p, qt.DeepEquals, pair{1, 2})         // Equal 2
	c.Assert(h, qt.DeepEquals, hidden{})           // no: unexported field
	c.Assert(h, qt.Equals, hidden{})               // Equal 2
	c.Assert(s, qt.HasLen, 2)                      // Len 2
	c.Assert(s, qt.HasLen, int64(2))               // no: not an int
	c.Assert(ok, qt.IsTrue)                        // True 1
	c.Assert(ok, qt.IsFalse)                       // not True 1
	c.Assert(str, qt.Contains, "x")                // Contains 2
	c.Assert(nm, qt.Contains, "x")                 // no: a named string
	c.Assert(s, qt.Contains, 2)                    // Contains 2
	c.Assert(err, qt.ErrorMatches, "x")            // no: a message
	c.Assert(n, qt.Equals, 3, qt.Commentf("n"))    // Equal 2
	c.Assert(n, qt.Equals, 3, "n")                 // no: a bad check
	c.Assert(n, qt.Equals)                         // no: a bad check
	c.Assert(n, qt.Not(qt.Not(qt.Equals)), 3)      // Equal 2
	c.Assert(n, qt.Not(qt.Equals), 3)              // not Equal 2
	c.Assert(n, qt.Not(Equals), 3)                 // no: the test's own Equals
}
`

// TestQuicktestCalls checks which quicktest calls are recognised, by the
// objects they resolve to, and as what check.
func TestQuicktestCalls(t *testing.T) {
	fset := token.NewFileSet()
	parse := func(name, src string) *ast.File {
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	qf := parse("qt.go", fakeQuicktest)
	qpkg, err := new(types.Config).Check(quicktest, fset, []*ast.File{qf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	imp := importerFunc(func(path string) (*types.Package, error) {
		if path == quicktest {
			return qpkg, nil
		}
		return importer.Default().Import(path)
	})
	f := parse("p.go", quicktestCalls)
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: imp}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	want := map[int]string{}
	for _, cg := range f.Comments {
		want[fset.Position(cg.Pos()).Line] = strings.TrimSpace(strings.TrimPrefix(cg.Text(), "//"))
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		st, ok := node.(*ast.ExprStmt)
		if !ok {
			return true
		}
		n++
		line := fset.Position(st.Pos()).Line
		got := "no"
		if c, ops, ok := assertionCall(info, st.X.(*ast.CallExpr)); ok {
			got = fmt.Sprintf("%s %d", c.Kind, len(ops))
			if c.Not {
				got = "not " + got
			}
		}
		if w, _, _ := strings.Cut(want[line], ":"); got != w {
			t.Errorf("line %d: got %q, want %q", line, got, want[line])
		}
		return false
	})
	if n < 30 {
		t.Errorf("checked %d calls", n)
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
