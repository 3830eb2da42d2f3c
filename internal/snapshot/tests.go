package snapshot

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
)

// testKey names a top-level test function of a package.
type testKey struct{ pkg, name string }

// testFunc is where a test function is declared.
type testFunc struct {
	File string // relative to the module root, slash-separated
	Line int    // 1-based line of the func keyword
}

// TopLevel is the test function a leaf test belongs to: TestX for TestX/case.
func TopLevel(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

// TestFunc finds the declaration of the function running t.
func (snap *Snapshot) TestFunc(t *localize.TestRun) (testFunc, bool) {
	snap.testsOnce.Do(func() { snap.tests = findTestFuncs(snap.Root, snap.Matrix) })
	fn, ok := snap.tests[testKey{t.Package, TopLevel(t.Name)}]
	return fn, ok
}

// findTestFuncs parses the test files of the packages with failing tests.
func findTestFuncs(root string, m *localize.Matrix) map[testKey]testFunc {
	out := make(map[testKey]testFunc)
	seen := make(map[string]bool)
	for _, t := range m.Tests {
		if !t.Verdict.Failing() || seen[t.Package] {
			continue
		}
		seen[t.Package] = true
		dir, ok := packageDir(m.ModulePath, t.Package)
		if !ok {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*_test.go"))
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			rel := path.Join(dir, filepath.Base(f))
			for _, fn := range TestDecls(src) {
				out[testKey{t.Package, fn.Name}] = testFunc{File: rel, Line: fn.Line}
			}
		}
	}
	return out
}

// packageDir is the slash-separated directory of an import path inside the
// module, relative to its root.
func packageDir(modulePath, pkg string) (string, bool) {
	if pkg == modulePath {
		return ".", true
	}
	rest, ok := strings.CutPrefix(pkg, modulePath+"/")
	return rest, ok
}

// ImportPath is the import path of the package in module directory dir.
func ImportPath(modulePath, dir string) string {
	if dir == "." || dir == "" {
		return modulePath
	}
	return modulePath + "/" + dir
}

type testDecl struct {
	Name string
	Line int // 1-based
}

// TestDecls lists the Test and Fuzz functions declared in a Go source file. A file
// that does not parse yields what could be parsed.
func TestDecls(src []byte) []testDecl {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	var out []testDecl
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !isTestName(fn.Name.Name) {
			continue
		}
		out = append(out, testDecl{Name: fn.Name.Name, Line: fset.Position(fn.Pos()).Line})
	}
	return out
}

// isTestName reports whether name is a test or fuzz function's name, as go
// test decides: Test or Fuzz followed by nothing or by a character that is
// not lower case. A fuzz target's seed entries run as its subtests.
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		if rest, ok = strings.CutPrefix(name, "Fuzz"); !ok {
			return false
		}
	}
	return rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z')
}
