package pertest

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// Names are the identifiers instrumented files of one package use: the
// runtime's import name and the package's counters variable, chosen so
// that no identifier of the package is spelled the same (see
// testbuild.UnusedName).
type Names struct {
	Runtime  string // import name of the runtime
	Counters string // the package's counters variable
	Atomic   string // import name of sync/atomic, for atomic counters
	// Test names a test function's *testing.T (or F, or a suite method's
	// receiver) left unnamed or blank, as in a fuzz target's
	// func(_ *testing.T, in string), so that its hook can refer to it.
	Test string
}

// NamesFor chooses the names for a package from the sources of all its
// files.
func NamesFor(files ...[]byte) Names {
	n := testbuild.UnusedNames(files, "faultlinert_", "faultlineCounters_", "faultlineatomic_", "faultlineT_")
	return Names{Runtime: n[0], Counters: n[1], Atomic: n[2], Test: n[3]}
}

// Hooked is what Hooks found in one file.
type Hooked struct {
	Edits []testbuild.Edit
	// Import says the edits call the runtime, which the file must import
	// (ImportEdit).
	Import bool
	// Split lists the top-level tests whose bodies start subtests (t.Run):
	// shards divide their direct subtests among themselves rather than
	// the whole test.
	Split []string
}

// Hooks returns the edits that tell the runtime where each test starts and
// ends: a deferred call at the top of every function that takes a
// *testing.T or *testing.F (tests, subtests, fuzz targets and callbacks,
// helpers), of every Example and of every test method of a testify suite,
// and t.Parallel() turned into a no-op, since attribution needs one test
// at a time.
//
// suites names the package's testify suite types declared in its other
// files (SuiteTypes); the file's own are found here.
func Hooks(fset *token.FileSet, f *ast.File, names Names, suites []string) Hooked {
	h := &hooker{file: fset.File(f.Pos()), names: names, testing: testbuild.ImportName(f, "testing")}
	if h.testing == "" && !isTestFile(h.file.Name()) {
		return Hooked{}
	}
	var split []string
	suiteSet := map[string]bool{}
	for _, name := range suites {
		suiteSet[name] = true
	}
	addSuiteTypes(f, suiteSet)
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		h.hookFunc(fn.Name.Name, fn.Recv == nil, fn.Type, fn.Body)
		h.hookSuiteMethod(fn, suiteSet)
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok {
				h.hookFunc("", false, lit.Type, lit.Body)
			}
			return true
		})
		if t := h.testingParam(fn.Type); t != "" && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") && startsSubtests(fn.Body, t) {
			split = append(split, fn.Name.Name)
		}
	}
	return Hooked{Edits: h.edits, Import: h.hooked, Split: split}
}

// testifySuite is the import path of testify's suites, whose test methods
// take no *testing.T: testify runs each as a subtest and hands the
// suite its T.
const testifySuite = "github.com/stretchr/testify/suite"

// SuiteTypes returns the names of the struct types that the test files
// among files (name to source) declare embedding testify's suite.Suite,
// sorted: a suite's methods are often in other files than its type.
func SuiteTypes(files map[string][]byte) []string {
	suites := map[string]bool{}
	for name, src := range files {
		if !isTestFile(name) || !bytes.Contains(src, []byte(testifySuite)) {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			continue // the build reports it
		}
		addSuiteTypes(f, suites)
	}
	return slices.Sorted(maps.Keys(suites))
}

// addSuiteTypes adds to suites the names of the file's struct types that
// embed testify's suite.Suite: their methods can reach the running test's
// T.
func addSuiteTypes(f *ast.File, suites map[string]bool) {
	pkg := testbuild.ImportName(f, testifySuite)
	if pkg == "" || pkg == "_" {
		return
	}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.TYPE {
			continue
		}
		for _, spec := range gen.Specs {
			ts := spec.(*ast.TypeSpec)
			if st, ok := ts.Type.(*ast.StructType); ok && ts.TypeParams == nil && embedsSuite(st, pkg) {
				suites[ts.Name.Name] = true
			}
		}
	}
}

// embedsSuite reports whether the struct embeds pkg.Suite or *pkg.Suite.
func embedsSuite(st *ast.StructType, pkg string) bool {
	for _, field := range st.Fields.List {
		typ := field.Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		sel, ok := typ.(*ast.SelectorExpr)
		if len(field.Names) > 0 || !ok || sel.Sel.Name != "Suite" {
			continue
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkg {
			return true
		}
	}
	return false
}

// hookSuiteMethod hooks a test method of a testify suite of the package
// (func (s *S) TestX()), which testify runs as a subtest whose T the
// receiver's T() returns (faultlinert.EnterSuite), and the functions it
// runs as subtests of its own with s.Run. Without the hooks every
// method's run would be its suite's test's.
func (h *hooker) hookSuiteMethod(fn *ast.FuncDecl, suites map[string]bool) {
	if len(suites) == 0 || fn.Recv == nil || len(fn.Recv.List) != 1 || !strings.HasPrefix(fn.Name.Name, "Test") ||
		fn.Type.Params.NumFields() != 0 || fn.Type.Results.NumFields() != 0 {
		return
	}
	recv := fn.Recv.List[0]
	typ := recv.Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); !ok || !suites[id.Name] {
		return
	}
	name := h.names.Test
	switch {
	case name == "" && (len(recv.Names) == 0 || recv.Names[0].Name == "_"):
		return
	case len(recv.Names) == 0:
		h.insert(recv.Type.Pos(), name+" ")
	case recv.Names[0].Name == "_":
		h.edits = append(h.edits, testbuild.Edit{Off: h.file.Offset(recv.Names[0].Pos()), Del: len("_"), Text: name})
	default:
		name = recv.Names[0].Name
	}
	hook := fmt.Sprintf("defer %s.EnterSuite(%s)();", h.names.Runtime, name)
	h.insert(fn.Body.Lbrace+1, hook)
	h.hooked = true
	// The method's own subtests, s.Run("case", func() {...}): testify
	// hands the suite each one's T as it runs the function.
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if call := methodCall(n, name, "Run"); call != nil && len(call.Args) == 2 {
			if lit, ok := call.Args[1].(*ast.FuncLit); ok && lit.Type.Params.NumFields() == 0 && lit.Type.Results.NumFields() == 0 {
				h.insert(lit.Body.Lbrace+1, hook)
			}
		}
		return true
	})
}

// methodCall returns n when it calls method on the variable recv
// (recv.method(...)), else nil.
func methodCall(n ast.Node, recv, method string) *ast.CallExpr {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return nil
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != method {
		return nil
	}
	if id, ok := sel.X.(*ast.Ident); !ok || id.Name != recv {
		return nil
	}
	return call
}

// startsSubtests reports whether body calls t.Run itself.
func startsSubtests(body *ast.BlockStmt, t string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		found = methodCall(n, t, "Run") != nil
		return !found
	})
	return found
}

// ImportEdit imports a package on the package clause's line, so that no
// line moves.
func ImportEdit(fset *token.FileSet, f *ast.File, name, path string) testbuild.Edit {
	return testbuild.Insert(fset.File(f.Pos()).Offset(f.Name.End()), fmt.Sprintf("; import %s %q", name, path))
}

type hooker struct {
	file    *token.File
	names   Names
	testing string // local name of the imported "testing" package
	edits   []testbuild.Edit
	hooked  bool
}

func (h *hooker) insert(p token.Pos, text string) {
	h.edits = append(h.edits, testbuild.Insert(h.file.Offset(p), text))
}

// hookFunc adds the test hook to a test function, a subtest or fuzz
// callback literal, or an Example.
func (h *hooker) hookFunc(name string, topLevel bool, typ *ast.FuncType, body *ast.BlockStmt) {
	if topLevel && strings.HasPrefix(name, "Example") && typ.Params.NumFields() == 0 && isTestFile(h.file.Name()) {
		h.insert(body.Lbrace+1, fmt.Sprintf("defer %s.EnterExample(%q)();", h.names.Runtime, name))
		h.hooked = true
		return
	}
	t := h.testingParam(typ)
	if t == "" && h.names.Test != "" && h.blankTestingParam(typ) {
		// Without a name the test could not be told from its parent: a
		// fuzz target's seeds, a subtest, would go unrecorded.
		t = h.names.Test
		h.nameParams(typ)
	}
	if t == "" {
		return
	}
	h.insert(body.Lbrace+1, fmt.Sprintf("defer %s.Enter(%s)();", h.names.Runtime, t))
	h.hooked = true
	h.neutralizeParallel(body, t)
}

func isTestFile(name string) bool { return strings.HasSuffix(name, "_test.go") }

// testingParam returns the name of the function's first parameter when it
// is a named *testing.T or *testing.F.
func (h *hooker) testingParam(typ *ast.FuncType) string {
	field := h.firstTestingT(typ)
	if field == nil || len(field.Names) == 0 || field.Names[0].Name == "_" {
		return ""
	}
	return field.Names[0].Name
}

// blankTestingParam reports whether the function's first parameter is a
// *testing.T or *testing.F without a name or named _.
func (h *hooker) blankTestingParam(typ *ast.FuncType) bool {
	field := h.firstTestingT(typ)
	return field != nil && (len(field.Names) == 0 || field.Names[0].Name == "_")
}

// firstTestingT returns the function's first parameter field when its type
// is *testing.T, or *testing.F: a fuzz target is a test of its own, which
// fails when its setup does and whose seeds are its subtests.
func (h *hooker) firstTestingT(typ *ast.FuncType) *ast.Field {
	if h.testing == "" || typ.Params == nil || len(typ.Params.List) == 0 {
		return nil
	}
	field := typ.Params.List[0]
	star, ok := field.Type.(*ast.StarExpr)
	if !ok {
		return nil
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" && sel.Sel.Name != "F" {
		return nil
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != h.testing {
		return nil
	}
	return field
}

// nameParams gives the blank first parameter its name, names.Test: "_" is
// replaced; in a list of unnamed parameters every other one is named "_",
// since Go names all of a list's parameters or none. Nothing moves to
// another line.
func (h *hooker) nameParams(typ *ast.FuncType) {
	first := typ.Params.List[0]
	if len(first.Names) > 0 {
		blank := first.Names[0]
		h.edits = append(h.edits, testbuild.Edit{Off: h.file.Offset(blank.Pos()), Del: len("_"), Text: h.names.Test})
		return
	}
	for i, field := range typ.Params.List {
		name := "_"
		if i == 0 {
			name = h.names.Test
		}
		h.insert(field.Type.Pos(), name+" ")
	}
}

// neutralizeParallel turns t.Parallel() into a no-op call.
func (h *hooker) neutralizeParallel(body *ast.BlockStmt, t string) {
	ast.Inspect(body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && h.testingParam(lit.Type) != "" {
			return false // a subtest: its own hook handles its own t
		}
		call := methodCall(n, t, "Parallel")
		if call == nil || len(call.Args) != 0 {
			return true
		}
		// "t.Parallel()" becomes "faultlinert_.Parallel(t          )".
		recvEnd := call.Fun.(*ast.SelectorExpr).X.End()
		if h.file.Line(recvEnd) != h.file.Line(call.Rparen) {
			return true // a call split over lines keeps its own
		}
		from, to := h.file.Offset(recvEnd), h.file.Offset(call.Rparen)
		h.insert(call.Pos(), h.names.Runtime+".Parallel(")
		h.edits = append(h.edits, testbuild.Edit{Off: from, Del: to - from, Text: strings.Repeat(" ", to-from)})
		return true
	})
}
