package specs

import (
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/testbuild/pertest"
)

// FuzzTarget is a fuzz test, func FuzzX(f *testing.F), whose fuzz function
// (the function it passes to f.Fuzz) takes the arguments Params after its
// *testing.T.
type FuzzTarget struct {
	Name   string  // FuzzX
	File   string  // absolute path of its test file
	Line   int     // of its func keyword
	Params []Param // the fuzz function's arguments, index 1 onwards
	// Where the fuzz function is: the file holding it, the offset that
	// names it to the analysis (a literal's func keyword, a declaration's
	// name) and the offset of its body's opening brace.
	fnFile  string
	fnName  int
	fnBrace int
	// The fuzz function's *testing.T: its name, and the offset of a blank
	// name ("_", -1 otherwise) that the cover build names to fail with it.
	tName  string
	tBlank int
}

// Param is one argument of a fuzz function.
type Param struct {
	Index int    // parameter index: 1 is the first argument after *testing.T
	Name  string // "" or "_" when the function does not name it
	Type  string // bool, string, []byte, float32, float64, an integer type (byte as uint8, rune as int32)
}

// Callback is the fuzz function as the analysis names it.
func (t *FuzzTarget) Callback() analysis.Callback {
	return analysis.Callback{File: t.fnFile, Offset: t.fnName}
}

// FuzzTargets finds the fuzz targets of the test files of a package (names
// relative to dir). A target whose fuzz function is neither a function
// literal nor a function of the file's package is left out.
func FuzzTargets(dir string, files []string) ([]FuzzTarget, error) {
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	for _, name := range files {
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", path, err)
		}
		parsed[path] = f
	}
	// Functions by package (test files of the package and of its external
	// test package), for fuzz functions passed by name.
	decls := map[string]map[string]*ast.FuncDecl{}
	fileOf := map[*ast.FuncDecl]string{}
	for path, f := range parsed {
		if decls[f.Name.Name] == nil {
			decls[f.Name.Name] = map[string]*ast.FuncDecl{}
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
				decls[f.Name.Name][fd.Name.Name] = fd
				fileOf[fd] = path
			}
		}
	}
	var out []FuzzTarget
	for _, name := range files {
		path := filepath.Join(dir, name)
		f := parsed[path]
		testing := testbuild.ImportName(f, "testing")
		if testing == "" {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "Fuzz") {
				continue
			}
			fparam := paramOfType(fd.Type, testing, "F")
			if fparam == "" {
				continue
			}
			fn := fuzzCall(fd.Body, fparam)
			if fn == nil {
				continue
			}
			t := FuzzTarget{Name: fd.Name.Name, File: path, Line: fset.Position(fd.Pos()).Line}
			var ft *ast.FuncType
			var body *ast.BlockStmt
			switch fn := ast.Unparen(fn).(type) {
			case *ast.FuncLit:
				t.fnFile, t.fnName, ft, body = path, fset.Position(fn.Pos()).Offset, fn.Type, fn.Body
			case *ast.Ident:
				decl := decls[f.Name.Name][fn.Name]
				if decl == nil {
					continue
				}
				t.fnFile, t.fnName, ft, body = fileOf[decl], fset.Position(decl.Name.Pos()).Offset, decl.Type, decl.Body
			default:
				continue
			}
			t.fnBrace = fset.Position(body.Lbrace).Offset
			t.tBlank = -1
			if first := ft.Params.List[0]; len(first.Names) == 1 {
				t.tName = first.Names[0].Name
				if t.tName == "_" {
					t.tBlank = fset.Position(first.Names[0].Pos()).Offset
				}
			}
			params, ok := fuzzParams(ft, testbuild.ImportName(parsed[t.fnFile], "testing"))
			if !ok {
				continue
			}
			t.Params = params
			out = append(out, t)
		}
	}
	return out, nil
}

// fuzzCall returns the function a fuzz target's body passes to f.Fuzz.
func fuzzCall(body *ast.BlockStmt, f string) ast.Expr {
	var fn ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || fn != nil {
			return fn == nil
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if ok && sel.Sel.Name == "Fuzz" && len(call.Args) == 1 {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == f {
				fn = call.Args[0]
			}
		}
		return fn == nil
	})
	return fn
}

// fuzzParams reads a fuzz function's parameters: a *testing.T, then
// arguments of the types fuzzing supports.
func fuzzParams(ft *ast.FuncType, testing string) ([]Param, bool) {
	if ft.Params == nil || len(ft.Params.List) == 0 || testing == "" || paramOfType(ft, testing, "T") == "" && !blankT(ft, testing) {
		return nil, false
	}
	var out []Param
	index := 0
	for fi, field := range ft.Params.List {
		n := max(1, len(field.Names))
		if fi == 0 {
			index += n
			if n != 1 {
				return nil, false
			}
			continue
		}
		typ := canonical(exprString(field.Type))
		if !fuzzTypes[typ] {
			return nil, false
		}
		for k := 0; k < n; k++ {
			p := Param{Index: index, Type: typ}
			if len(field.Names) > 0 {
				p.Name = field.Names[k].Name
			}
			out = append(out, p)
			index++
		}
	}
	return out, len(out) > 0
}

// paramOfType returns the name of the function's first parameter when it
// is a named *<testing>.<typ>.
func paramOfType(ft *ast.FuncType, testing, typ string) string {
	if ft.Params == nil || len(ft.Params.List) == 0 {
		return ""
	}
	field := ft.Params.List[0]
	if len(field.Names) == 0 || field.Names[0].Name == "_" || !isPointerTo(field.Type, testing, typ) {
		return ""
	}
	return field.Names[0].Name
}

// blankT reports a first parameter *testing.T that is unnamed or blank.
func blankT(ft *ast.FuncType, testing string) bool {
	field := ft.Params.List[0]
	return (len(field.Names) == 0 || field.Names[0].Name == "_") && isPointerTo(field.Type, testing, "T")
}

func isPointerTo(e ast.Expr, pkg, name string) bool {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	return exprString(star.X) == pkg+"."+name
}

//go:embed faultlinein/rt.go
var runtimeFS embed.FS

// inputRuntime is the argument substitution compiled into the builds of
// suggest.
func inputRuntime() testbuild.Runtime {
	files, err := fs.Sub(runtimeFS, "faultlinein")
	if err != nil {
		panic(err) // the embedded directory is part of this package
	}
	return testbuild.Runtime{Name: "faultlinein", Files: files, Lang: "go1.18"}
}

// Environment variables the runtime reads (see package faultlinein).
const (
	inputEnv = "FAULTLINE_INPUT"
	dumpEnv  = "FAULTLINE_INPUT_DUMP"
)

// substitute adds to an overlay the edit that lets a run replace the fuzz
// function's named arguments on entry, and the runtime it calls. The edit
// replaces the body's opening brace, so that it comes before whatever
// other passes insert after the brace (the analysis records the arguments
// there, and must see the substituted ones). With recoverPanics, a panic
// of the fuzz function becomes a failure of its test, reported with the
// panicking stack, so that the process lives on to write its coverage.
func (t *FuzzTarget) substitute(o *testbuild.Overlay, pkgFiles []string, recoverPanics bool) error {
	rtPath, err := o.AddRuntime(inputRuntime())
	if err != nil {
		return err
	}
	src, err := os.ReadFile(t.fnFile)
	if err != nil {
		return fmt.Errorf("reading %s: %w", t.fnFile, err)
	}
	var all [][]byte
	for _, p := range pkgFiles {
		if data, err := os.ReadFile(p); err == nil {
			all = append(all, data)
		}
	}
	name := testbuild.UnusedName("faultlinein", append(all, src)...)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, t.fnFile, src, parser.PackageClauseOnly)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", t.fnFile, err)
	}
	edits := []testbuild.Edit{pertest.ImportEdit(fset, f, name, rtPath)}
	prologue := "{ "
	if recoverPanics && t.tName != "" {
		tName := t.tName
		if t.tBlank >= 0 {
			tName = name + "T"
			edits = append(edits, testbuild.Edit{Off: t.tBlank, Del: 1, Text: tName})
		}
		prologue += fmt.Sprintf("defer %s.Recover(%s)(); ", name, tName)
	}
	var lhs, rhs []string
	for _, p := range t.Params {
		if p.Name == "" || p.Name == "_" {
			continue
		}
		lhs = append(lhs, p.Name)
		rhs = append(rhs, fmt.Sprintf("%s.V(%d, %s)", name, p.Index, p.Name))
	}
	if len(lhs) > 0 {
		prologue += strings.Join(lhs, ", ") + " = " + strings.Join(rhs, ", ") + ";"
	} else {
		prologue += "_ = " + name + ".V(0, 0);"
	}
	edits = append(edits, testbuild.Edit{Off: t.fnBrace, Del: 1, Text: prologue})
	return o.Edit(t.fnFile, src, edits, "go1.18")
}
