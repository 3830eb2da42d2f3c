package realfault

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// ChangedTests returns the top-level tests of a package directory that the
// fix added or changed: test functions whose lines the fix touched, and
// those that use, directly or through other declarations of the test
// files, a declaration the fix touched (a shared table, a helper). touched
// maps each test file of dir (base name) to its added or changed lines.
func ChangedTests(dir string, touched map[string][]int) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type decl struct {
		names []string // what it declares
		uses  map[string]bool
		test  bool // a Test, Fuzz or Example function
	}
	var decls []decl
	changed := map[string]bool{} // names of changed declarations
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			continue // a test file that does not parse fails the build anyway
		}
		lines := touched[e.Name()]
		for _, d := range f.Decls {
			var dc decl
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil {
					name = "(method)." + name
				}
				dc.names = []string{name}
				dc.test = d.Recv == nil && isTestName(name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							dc.names = append(dc.names, n.Name)
						}
					case *ast.TypeSpec:
						dc.names = append(dc.names, s.Name.Name)
					}
				}
			}
			dc.uses = map[string]bool{}
			ast.Inspect(d, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					dc.uses[id.Name] = true
				}
				return true
			})
			start, end := fset.Position(d.Pos()).Line, fset.Position(d.End()).Line
			for _, l := range lines {
				if l >= start && l <= end {
					for _, n := range dc.names {
						changed[n] = true
					}
					break
				}
			}
			decls = append(decls, dc)
		}
	}
	for grew := true; grew; {
		grew = false
		for _, d := range decls {
			if len(d.names) == 0 || changed[d.names[0]] {
				continue
			}
			for u := range d.uses {
				if changed[u] {
					for _, n := range d.names {
						changed[n] = true
					}
					grew = true
					break
				}
			}
		}
	}
	tests := map[string]bool{}
	for _, d := range decls {
		if d.test && changed[d.names[0]] {
			tests[d.names[0]] = true
		}
	}
	return tests, nil
}

func isTestName(name string) bool {
	for _, p := range []string{"Test", "Fuzz", "Example"} {
		if rest, ok := strings.CutPrefix(name, p); ok && (rest == "" || !('a' <= rest[0] && rest[0] <= 'z')) {
			return true
		}
	}
	return false
}
