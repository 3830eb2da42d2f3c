package replace

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// The values recorded at a site of the failing run travel as text and
// render as Go would write them.
func TestRenderPayload(t *testing.T) {
	prog, err := loadRenderProgram(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ expr, payload, want string }{
		{"style", `{t,s"red"}`, `Style{Bold: true, Color: "red"}`},
		{"style", "z", "Style{}"},
		{"styles", `m[s"a":{f,s"x"}]`, `map[string]Style{"a": Style{Color: "x"}}`},
		{"raw", "[u104,u105]", `[]byte("hi")`},
		{"err", `e"boom"`, `errors.New("boom")`},
		{"err", "n", "nil"},
		{"ptr", `&{t,s""}`, "&Style{Bold: true}"},
		{"z", "c3ff0000000000000:c000000000000000", "(1-2i)"},
	} {
		s := prog[c.expr]
		if s == nil {
			t.Fatalf("no value site %s", c.expr)
		}
		if got := renderPayload(s, c.payload); got != c.want {
			t.Errorf("%s %s renders as %s, want %s", c.expr, c.payload, got, c.want)
		}
	}
}

// loadRenderProgram instruments a small package and returns its value
// sites by expression.
func loadRenderProgram(t *testing.T) (map[string]*instrument.Site, error) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/render\n\ngo 1.22\n",
		"render.go": `package render

type Style struct {
	Bold  bool
	Color string
}

func use(...interface{}) {}

func F(style Style, styles map[string]Style, raw []byte, err error, ptr *Style, z complex128) {
	use(style, styles, raw, err, ptr, z)
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		return nil, err
	}
	listing, err := mod.List(context.Background())
	if err != nil {
		return nil, err
	}
	prog, err := instrument.LoadProgram(mod, "example.com/render", testbuild.SortedPaths(listing.Closure(listing.Package("example.com/render"))))
	if err != nil {
		return nil, err
	}
	out := map[string]*instrument.Site{}
	for _, s := range prog.Sites {
		if s.Kind == instrument.KindValue {
			out[s.Text] = s
		}
	}
	return out, nil
}

// A site moved by one reads as an edit: a bare name or literal as it is,
// anything else in parentheses.
func TestShiftedReadsAsAnEdit(t *testing.T) {
	for _, c := range []struct {
		s    *instrument.Site
		want string
	}{
		{&instrument.Site{Text: "end"}, "end - 1"}, // a name recorded without an expression of its own
		{&instrument.Site{Text: "n", Expr: &ast.Ident{Name: "n"}}, "n - 1"},
		{&instrument.Site{Text: "a + b", Expr: &ast.BinaryExpr{X: &ast.Ident{Name: "a"}, Op: token.ADD, Y: &ast.Ident{Name: "b"}}}, "(a + b) - 1"},
	} {
		if got := shifted(c.s, "- 1"); got != c.want {
			t.Errorf("shifted(%q) = %q, want %q", c.s.Text, got, c.want)
		}
	}
}

// A comparison negates by its operator, an ordering only where no NaN can
// be compared; anything else reads !(cond).
func TestNegationReversesComparisons(t *testing.T) {
	const src = `package p
var i, j int
var f float64
var err error
var ok bool
var _ = []bool{err != nil, i < j, f < 1, ok && i > 0, i>=j}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{}).Check("p", fset, []*ast.File{file}, info); err != nil {
		t.Fatal(err)
	}
	lit := file.Decls[len(file.Decls)-1].(*ast.GenDecl).Specs[0].(*ast.ValueSpec).Values[0].(*ast.CompositeLit)
	want := []string{"err == nil", "i >= j", "!(f < 1)", "!(ok && i > 0)", "i<j"}
	for k, e := range lit.Elts {
		s := &instrument.Site{Expr: e, Info: info, Text: src[fset.Position(e.Pos()).Offset:fset.Position(e.End()).Offset]}
		if got := negation(s); got != want[k] {
			t.Errorf("negation(%s) = %q, want %q", s.Text, got, want[k])
		}
	}
}
