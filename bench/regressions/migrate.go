package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// migrateTest moves one top-level test from the fix's test files of its
// package (fixSrcs; the test is in the first) into an older version of the
// first (old; nil when the file did not exist yet), the way regression
// miners migrate a test to an older commit when the fix's whole file no
// longer compiles there: the old file keeps its declarations, the test's
// function replaces the old one of that name (or is added), and the
// declarations of the fix's files the test needs that the old package's
// test files lack (declared, the names the package's other test files
// declare at the old commit) come along, with the imports they use.
// Imports left unused are dropped.
//
// Imports of the fix's module (fixMod) are rewritten to the old module's
// path (oldMod), which differs across a major version.
func migrateTest(fixSrcs [][]byte, old []byte, test string, declared map[string]bool, fixMod, oldMod string) ([]byte, error) {
	fset := token.NewFileSet()
	var fixes []*ast.File
	srcOf := map[ast.Decl][]byte{}
	for i, src := range fixSrcs {
		f, err := parser.ParseFile(fset, fmt.Sprintf("fix%d_test.go", i), src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			if i == 0 {
				return nil, fmt.Errorf("the fix's test file: %w", err)
			}
			continue
		}
		if i > 0 && f.Name.Name != fixes[0].Name.Name {
			continue // an external test package's file
		}
		fixes = append(fixes, f)
		for _, d := range f.Decls {
			srcOf[d] = src
		}
	}
	fix := fixes[0]
	if old == nil {
		old = []byte("package " + fix.Name.Name + "\n")
	}
	oldFile, err := parser.ParseFile(token.NewFileSet(), "old_test.go", old, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("the old test file: %w", err)
	}
	// What the fix's file declares, by name; methods go with their type.
	decls := map[string][]ast.Decl{}
	var all []ast.Decl
	for _, f := range fixes {
		for _, d := range f.Decls {
			all = append(all, d)
			for _, n := range declNames(d) {
				decls[n] = append(decls[n], d)
			}
		}
	}
	if len(decls[test]) == 0 {
		return nil, fmt.Errorf("the fix's test file does not declare %s", test)
	}
	oldHas := map[string]bool{}
	for _, d := range oldFile.Decls {
		for _, n := range declNames(d) {
			oldHas[n] = true
		}
	}
	need := map[ast.Decl]bool{}
	var order []ast.Decl
	var visit func(name string)
	visit = func(name string) {
		for _, d := range decls[name] {
			if need[d] {
				continue
			}
			need[d] = true
			order = append(order, d)
			ast.Inspect(d, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && id.Name != name {
					if !declared[id.Name] && !oldHas[id.Name] {
						visit(id.Name)
					}
					if m := "." + id.Name; !declared[m] && !oldHas[m] {
						visit(m)
					}
				}
				return true
			})
		}
	}
	visit(test)

	// The old file without its version of the test, then the moved
	// declarations in the fix's order.
	var out bytes.Buffer
	cut := token.NewFileSet()
	oldFile, _ = parser.ParseFile(cut, "old_test.go", old, parser.ParseComments|parser.SkipObjectResolution)
	at := 0
	for _, d := range oldFile.Decls {
		if f, ok := d.(*ast.FuncDecl); ok && f.Recv == nil && f.Name.Name == test {
			start := d.Pos()
			if f.Doc != nil {
				start = f.Doc.Pos()
			}
			out.Write(old[at:cut.Position(start).Offset])
			at = cut.Position(d.End()).Offset
		}
	}
	out.Write(old[at:])
	for _, d := range all {
		if !need[d] {
			continue
		}
		src := srcOf[d]
		start := d.Pos()
		if f, ok := d.(*ast.FuncDecl); ok && f.Doc != nil {
			start = f.Doc.Pos()
		} else if g, ok := d.(*ast.GenDecl); ok && g.Doc != nil {
			start = g.Doc.Pos()
		}
		out.WriteString("\n")
		out.Write(src[fset.Position(start).Offset:fset.Position(d.End()).Offset])
		out.WriteString("\n")
	}

	// Imports: the fix's that the result uses, minus those it no longer
	// uses.
	rfset := token.NewFileSet()
	res, err := parser.ParseFile(rfset, "test.go", out.Bytes(), parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("the migrated test file: %w", err)
	}
	have := map[string]bool{} // names the old file imports
	for _, im := range res.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := ""
		if im.Name != nil {
			name = im.Name.Name
		}
		have[importName(p, name)] = true
	}
	for _, im := range imports(fixes) {
		p, _ := strconv.Unquote(im.Path.Value)
		name := ""
		if im.Name != nil {
			name = im.Name.Name
		}
		if fixMod != oldMod && (p == fixMod || strings.HasPrefix(p, fixMod+"/")) {
			if name == "" {
				name = importName(p, "")
			}
			p = oldMod + strings.TrimPrefix(p, fixMod)
		}
		if !have[importName(p, name)] && used(res, importName(p, name)) {
			astutil.AddNamedImport(rfset, res, name, p)
		}
	}
	var unused [][2]string // name, path
	for _, im := range res.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := ""
		if im.Name != nil {
			name = im.Name.Name
		}
		if name != "_" && name != "." && !used(res, importName(p, name)) {
			unused = append(unused, [2]string{name, p})
		}
	}
	for _, u := range unused {
		astutil.DeleteNamedImport(rfset, res, u[0], u[1])
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, rfset, res); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// imports are the import specs of files.
func imports(files []*ast.File) []*ast.ImportSpec {
	var out []*ast.ImportSpec
	for _, f := range files {
		out = append(out, f.Imports...)
	}
	return out
}

// declNames are the names a top-level declaration declares; a method is
// named by its receiver's type, so that it comes along with the type, and
// by "." and its name, so that a use of it brings it along to an older
// version of the type.
func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil || len(d.Recv.List) == 0 {
			return []string{d.Name.Name}
		}
		t := d.Recv.List[0].Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		if ix, ok := t.(*ast.IndexExpr); ok {
			t = ix.X
		}
		if ix, ok := t.(*ast.IndexListExpr); ok {
			t = ix.X
		}
		if id, ok := t.(*ast.Ident); ok {
			return []string{id.Name, "." + d.Name.Name}
		}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			}
		}
		return names
	}
	return nil
}

// importName is the name a file refers to an import by: the explicit one,
// else the path's last element without a major version or a go- prefix
// (a guess, as goimports makes it, where the package clause is unread).
func importName(p, name string) string {
	if name != "" {
		return name
	}
	base := path.Base(p)
	if strings.HasPrefix(base, "v") && len(base) > 1 && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	if i := strings.Index(base, ".v"); i > 0 {
		base = base[:i]
	}
	base = strings.TrimPrefix(base, "go-")
	return strings.ReplaceAll(base, "-", "")
}

// used reports whether the file refers to a package by name (pkg.X, the
// name resolving to nothing declared in the file, as the parser resolves
// names).
func used(f *ast.File, name string) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && id.Obj == nil {
				found = true
			}
		}
		return !found
	})
	return found
}
