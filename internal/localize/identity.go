package localize

import (
	"fmt"
	"go/ast"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/faultline-go/faultline/internal/parsed"
	"github.com/faultline-go/faultline/internal/receiver"

	"golang.org/x/mod/modfile"
)

// FailingTest names a failing leaf test: its package's import path and
// its full name as go test prints it (TestX/case_3).
type FailingTest struct {
	Package string
	Name    string
}

// identitySource is the evidence source of the failing tests' identity.
const identitySource = "identity"

// maxCallDistance bounds the search of the static call graph from a
// failing test: farther functions get no call-distance evidence.
const maxCallDistance = 4

// IdentityEvidence computes, from the source of the module at root alone
// (no build, no types), what the failing tests' own identity says of each
// line: whether the line's function is called directly from a failing
// test's body (direct: the share of the failing test functions that do;
// their subtests' closures are part of the body), its static call
// distance from the nearest failing test (callDistance: 1/d for d ≤
// maxCallDistance), and how much of the names of its function, its
// method's receiver type, its file and its package the failing tests'
// and subtests' names hold (funcName, typeName, fileName, pkgName: the
// share of the name's words, camelCase and underscores split, found in
// a failing test's words). Calls are resolved by name over the packages
// holding the lines and the tests: a method call reaches every method of
// that name, a cheap over-approximation. Columns are named
// "identity.<column>", each in [0, 1].
func IdentityEvidence(root string, failing []FailingTest, lines []RankedLine) (*Evidence, error) {
	return identityEvidenceIn(root, parsed.New(0), failing, lines)
}

// identityEvidenceIn is IdentityEvidence reading the source through files.
func identityEvidenceIn(root string, files *parsed.Cache, failing []FailingTest, lines []RankedLine) (*Evidence, error) {
	ev := &Evidence{Columns: map[string][]float64{}}
	put := ev.putter(identitySource, len(lines))
	if len(failing) == 0 || len(lines) == 0 {
		return ev, nil
	}
	modPath, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, l := range lines {
		dirs[path.Dir(l.File)] = true
	}
	for _, t := range failing {
		if d, ok := packageDir(modPath, t.Package); ok {
			dirs[d] = true
		}
	}
	g := &callGraph{funcs: map[string][]int{}, methods: map[string][]int{}, modPath: modPath, files: files}
	for d := range dirs {
		if err := g.parseDir(root, d); err != nil {
			return nil, err
		}
	}
	g.link()

	// The failing tests' functions and words, each top-level test once
	// for the call evidence.
	var tests []int
	seen := map[int]bool{}
	var words []map[string]bool
	for _, t := range failing {
		top, _, _ := strings.Cut(t.Name, "/")
		words = append(words, wordSet(strings.TrimPrefix(strings.ReplaceAll(t.Name, "/", "_"), "Test")))
		d, ok := packageDir(modPath, t.Package)
		if !ok {
			continue
		}
		for _, n := range g.funcs[d+"\x00"+top] {
			if strings.HasSuffix(g.nodes[n].file, "_test.go") && !seen[n] {
				seen[n] = true
				tests = append(tests, n)
			}
		}
	}
	direct := make([]int, len(g.nodes)) // failing test functions calling each function
	nearest := make([]int, len(g.nodes))
	for _, t := range tests {
		for n, d := range g.distances(t) {
			if d == 1 {
				direct[n]++
			}
			if nearest[n] == 0 || d < nearest[n] {
				nearest[n] = d
			}
		}
	}
	fileNodes := map[string][]int{}
	for n, node := range g.nodes {
		fileNodes[node.file] = append(fileNodes[node.file], n)
	}
	for i, l := range lines {
		fn := -1
		for _, n := range fileNodes[l.File] {
			if g.nodes[n].start <= l.Line && l.Line <= g.nodes[n].end {
				fn = n
				break
			}
		}
		base := strings.TrimSuffix(path.Base(l.File), ".go")
		names := map[string]string{"fileName": base, "pkgName": g.pkgNames[l.File]}
		if fn >= 0 {
			node := g.nodes[fn]
			names["funcName"], names["typeName"] = node.name, node.recv
			if len(tests) > 0 && direct[fn] > 0 {
				put("direct", i, float64(direct[fn])/float64(len(tests)))
			}
			if d := nearest[fn]; d > 0 {
				put("callDistance", i, 1/float64(d))
			}
		}
		for column, name := range names {
			if s := bestOverlap(wordSet(name), words); s > 0 {
				put(column, i, s)
			}
		}
	}
	return ev, nil
}

// identityEvidence is the identity source: the failing tests are the
// collection's failing leaf tests.
func identityEvidence(in *evidenceInput, put func(string, int, float64)) error {
	var failing []FailingTest
	for _, t := range in.matrix.Tests {
		if t.Verdict.Failing() {
			failing = append(failing, FailingTest{Package: t.Package, Name: t.Name})
		}
	}
	ev, err := identityEvidenceIn(in.matrix.Root, in.files, failing, in.lines)
	if err != nil {
		return err
	}
	for name, c := range ev.Columns {
		column := strings.TrimPrefix(name, identitySource+".")
		for i, v := range c {
			if v != 0 {
				put(column, i, v)
			}
		}
	}
	return nil
}

// modulePath reads the module path from root's go.mod.
func modulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("identity evidence: %w", err)
	}
	p := modfile.ModulePath(data)
	if p == "" {
		return "", fmt.Errorf("identity evidence: %s/go.mod names no module", root)
	}
	return p, nil
}

// packageDir is the slash-separated, module-relative directory of a
// package of the module; ok is false for a package outside it.
func packageDir(modPath, importPath string) (string, bool) {
	if importPath == modPath {
		return ".", true
	}
	rest, ok := strings.CutPrefix(importPath, modPath+"/")
	return rest, ok
}

// callGraph is the module's declared functions, found by name, and the
// functions each one's body names.
type callGraph struct {
	modPath string
	files   *parsed.Cache
	nodes   []funcNode
	// funcs are the functions (not methods) by directory and name,
	// methods the methods by name alone.
	funcs, methods map[string][]int
	pkgNames       map[string]string // package name by module-relative file
	calls          [][]int
}

// funcNode is one declared function.
type funcNode struct {
	dir, file, name, recv string
	method                bool
	start, end            int
	refs                  *funcRefs
	imports               map[string]string // package name in the file → import path
}

// funcRefs are the names a function's body refers to, which link
// resolves: each set once, in no particular order.
type funcRefs struct {
	// qualified are pkg.F with pkg a name the file imports.
	qualified [][2]string
	// selected are the selectors' names after any other x. (a method or
	// a field), idents every other identifier.
	selected, idents []string
}

// fileNodes are the declared functions of a parsed file, as the call
// graph keeps them: what link needs of their bodies, not the bodies.
type fileNodes struct {
	pkgName string
	imports map[string]string
	nodes   []funcNode // dir and file left to the reader
}

// nodesOf finds the declared functions of a file that parses.
func nodesOf(pf *parsed.File) *fileNodes {
	f := pf.AST
	out := &fileNodes{pkgName: f.Name.Name, imports: map[string]string{}}
	for _, s := range f.Imports {
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil {
			continue
		}
		name := importName(p)
		if s.Name != nil {
			name = s.Name.Name
		}
		out.imports[name] = p
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		n := funcNode{name: fd.Name.Name, refs: refsOf(fd.Body, out.imports), imports: out.imports,
			start: pf.Line(fd.Pos()), end: pf.Line(fd.End())}
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			n.method, n.recv = true, receiver.TypeName(fd.Recv.List[0].Type)
		}
		out.nodes = append(out.nodes, n)
	}
	return out
}

// refsOf collects the names a body refers to: an identifier (called or
// passed on), pkg.F for a name the file imports, and x.M otherwise.
func refsOf(body *ast.BlockStmt, imports map[string]string) *funcRefs {
	r := &funcRefs{}
	qualified, selected, idents := map[[2]string]bool{}, map[string]bool{}, map[string]bool{}
	ast.Inspect(body, func(c ast.Node) bool {
		switch c := c.(type) {
		case *ast.SelectorExpr:
			if x, ok := c.X.(*ast.Ident); ok {
				if _, ok := imports[x.Name]; ok {
					if q := [2]string{x.Name, c.Sel.Name}; !qualified[q] {
						qualified[q] = true
						r.qualified = append(r.qualified, q)
					}
					return false
				}
			}
			if !selected[c.Sel.Name] {
				selected[c.Sel.Name] = true
				r.selected = append(r.selected, c.Sel.Name)
			}
		case *ast.Ident:
			if !idents[c.Name] {
				idents[c.Name] = true
				r.idents = append(r.idents, c.Name)
			}
		}
		return true
	})
	return r
}

// parseDir reads the Go files of a module-relative directory; a file
// that does not parse is left out, as the static evidence leaves it.
func (g *callGraph) parseDir(root, dir string) error {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("identity evidence: %w", err)
	}
	if g.pkgNames == nil {
		g.pkgNames = map[string]string{}
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		file := path.Join(dir, e.Name())
		v, err := g.files.DerivedFrom("identity.nodes", filepath.Join(root, filepath.FromSlash(file)), func(pf *parsed.File) any {
			if pf.Err != nil {
				return (*fileNodes)(nil)
			}
			return nodesOf(pf)
		})
		if err != nil {
			continue
		}
		fn := v.(*fileNodes)
		if fn == nil {
			continue
		}
		g.pkgNames[file] = fn.pkgName
		for _, n := range fn.nodes {
			n.dir, n.file = dir, file
			id := len(g.nodes)
			if n.method {
				g.methods[n.name] = append(g.methods[n.name], id)
			} else {
				g.funcs[dir+"\x00"+n.name] = append(g.funcs[dir+"\x00"+n.name], id)
			}
			g.nodes = append(g.nodes, n)
		}
	}
	return nil
}

// importName guesses the package name of an import path: its last
// element, or the one before a major version suffix.
func importName(p string) string {
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	return strings.NewReplacer("-", "_", ".", "_").Replace(last)
}

// link finds, for each function, the functions its body names: an
// identifier naming a function of its directory (called or passed on),
// pkg.F for a package of the module, and x.M for every method M.
func (g *callGraph) link() {
	g.calls = make([][]int, len(g.nodes))
	for id, n := range g.nodes {
		to := map[int]bool{}
		for _, q := range n.refs.qualified {
			if d, ok := packageDir(g.modPath, n.imports[q[0]]); ok {
				for _, t := range g.funcs[d+"\x00"+q[1]] {
					to[t] = true
				}
			}
		}
		for _, name := range n.refs.selected {
			for _, t := range g.methods[name] {
				to[t] = true
			}
		}
		for _, name := range n.refs.idents {
			for _, t := range g.funcs[n.dir+"\x00"+name] {
				to[t] = true
			}
		}
		delete(to, id)
		for t := range to {
			g.calls[id] = append(g.calls[id], t)
		}
	}
}

// distances are the call distances from a function to those it reaches
// within maxCallDistance calls.
func (g *callGraph) distances(from int) map[int]int {
	dist := map[int]int{}
	frontier := []int{from}
	for d := 1; d <= maxCallDistance && len(frontier) > 0; d++ {
		var next []int
		for _, n := range frontier {
			for _, t := range g.calls[n] {
				if _, ok := dist[t]; !ok && t != from {
					dist[t] = d
					next = append(next, t)
				}
			}
		}
		frontier = next
	}
	return dist
}

// wordSet splits a name into its lowercased words: at underscores and
// other non-letters, at a lower-to-upper change and before the last
// capital of a run followed by a lower-case letter (HTTPServer: http,
// server); a final s is dropped from words longer than three letters so
// that plurals match, and one-letter words and "test" say nothing.
func wordSet(name string) map[string]bool {
	set := map[string]bool{}
	rs := []rune(name)
	var word []rune
	flush := func() {
		w := strings.ToLower(string(word))
		word = word[:0]
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		if len(w) > 1 && w != "test" {
			set[w] = true
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(word) > 0 {
			prev := rs[i-1]
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush()
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush()
			}
		}
		word = append(word, r)
	}
	flush()
	return set
}

// bestOverlap is the largest share of name's words that one of the tests'
// word sets holds; 0 for a name without words.
func bestOverlap(name map[string]bool, tests []map[string]bool) float64 {
	if len(name) == 0 {
		return 0
	}
	best := 0
	for _, t := range tests {
		n := 0
		for w := range name {
			if t[w] {
				n++
			}
		}
		best = max(best, n)
	}
	return float64(best) / float64(len(name))
}
