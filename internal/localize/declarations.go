package localize

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Declaration is a package-level variable or constant specification: its
// value runs before any test (or never runs, a constant), so no spectrum
// holds its lines, and a fault in a regular expression, a table or a
// limit written there is out of every formula's reach.
type Declaration struct {
	File  string `json:"file"` // relative to the module root, slash-separated
	Name  string `json:"name"` // its first name
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// DeclarationReads names the package-level declarations a line of a file
// reads: by name, directly, or through the values of the declarations it
// reads (a regular expression compiled from a string constant). Names are
// matched without types, so a local variable that shadows one counts too.
type DeclarationReads func(file string, line int) []Declaration

// SourceDeclarationReads reads the module's non-test source files under
// root, a package at a time as its lines are asked for.
func SourceDeclarationReads(root string) DeclarationReads {
	var mu sync.Mutex
	pkgs := map[string]*packageDecls{}
	return func(file string, line int) []Declaration {
		dir := path.Dir(file)
		mu.Lock()
		p, ok := pkgs[dir]
		if !ok {
			p = parsePackageDecls(root, dir)
			pkgs[dir] = p
		}
		mu.Unlock()
		return p.reads(file, line)
	}
}

// packageDecls are one package directory's declarations and what reads
// them.
type packageDecls struct {
	byName map[string]int   // a declared name's declaration
	decls  []Declaration    // in file, then line order
	uses   [][]int          // the declarations each declaration's values read
	read   map[lineOf][]int // the declarations each line reads directly
}

type lineOf struct {
	file string
	line int
}

// maxDeclarationHops bounds how far reads are followed through other
// declarations' values.
const maxDeclarationHops = 3

func (p *packageDecls) reads(file string, line int) []Declaration {
	direct := p.read[lineOf{file, line}]
	if len(direct) == 0 {
		return nil
	}
	seen := map[int]bool{}
	var out []Declaration
	frontier := direct
	for hop := 0; hop < maxDeclarationHops && len(frontier) > 0; hop++ {
		var next []int
		for _, d := range frontier {
			if seen[d] {
				continue
			}
			seen[d] = true
			out = append(out, p.decls[d])
			next = append(next, p.uses[d]...)
		}
		frontier = next
	}
	return out
}

// parsePackageDecls parses the non-test Go files of root/dir; a file that
// does not parse gives what its partial syntax tree holds.
func parsePackageDecls(root, dir string) *packageDecls {
	p := &packageDecls{byName: map[string]int{}, read: map[lineOf][]int{}}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return p
	}
	fset := token.NewFileSet()
	type parsed struct {
		rel  string
		file *ast.File
	}
	var files []parsed
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		rel := path.Join(dir, name)
		if dir == "." {
			rel = name
		}
		f, _ := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(rel)), nil, parser.SkipObjectResolution)
		if f == nil {
			continue
		}
		files = append(files, parsed{rel, f})
	}
	// First the declarations, so that reads can name them whatever file
	// they are in.
	var specs []*ast.ValueSpec
	for _, f := range files {
		for _, d := range f.file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || (g.Tok != token.VAR && g.Tok != token.CONST) {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if len(vs.Values) == 0 {
					continue // no value of its own to be wrong
				}
				k := len(p.decls)
				p.decls = append(p.decls, Declaration{File: f.rel, Name: vs.Names[0].Name,
					Start: fset.Position(vs.Pos()).Line, End: fset.Position(vs.End()).Line})
				specs = append(specs, vs)
				for _, n := range vs.Names {
					if n.Name != "_" {
						p.byName[n.Name] = k
					}
				}
			}
		}
	}
	p.uses = make([][]int, len(p.decls))
	for k, vs := range specs {
		for _, v := range vs.Values {
			p.uses[k] = append(p.uses[k], p.namesRead(v)...)
		}
	}
	for _, f := range files {
		for _, d := range f.file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						ast.Inspect(sel.X, func(n ast.Node) bool { p.noteRead(fset, f.rel, n); return true })
						return false // a field or method name is not a package-level one
					}
					return true
				}
				p.noteRead(fset, f.rel, id)
				return true
			})
		}
	}
	return p
}

// noteRead records that n's line reads the declaration n names, if any.
func (p *packageDecls) noteRead(fset *token.FileSet, file string, n ast.Node) {
	id, ok := n.(*ast.Ident)
	if !ok {
		return
	}
	k, ok := p.byName[id.Name]
	if !ok {
		return
	}
	at := lineOf{file, fset.Position(id.Pos()).Line}
	if !slices.Contains(p.read[at], k) {
		p.read[at] = append(p.read[at], k)
	}
}

// namesRead gives the declarations an expression names.
func (p *packageDecls) namesRead(e ast.Expr) []int {
	var out []int
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			ast.Inspect(sel.X, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if k, ok := p.byName[id.Name]; ok && !slices.Contains(out, k) {
						out = append(out, k)
					}
				}
				return true
			})
			return false
		}
		if id, ok := n.(*ast.Ident); ok {
			if k, ok := p.byName[id.Name]; ok && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
		return true
	})
	return out
}

// EvidenceDeclarationRead is the evidence column of a declaration's lines
// that WithDeclarations places: the rank of the line that reads it.
const EvidenceDeclarationRead = "declaration.readAt"

// WithDeclarations places the package-level declarations the ranking's
// lines read, none of which a spectrum holds, into the ranking: each one's
// lines, tied, right after the tie group of the first line that reads it,
// but not above the tie group at position opts.After (the top stays the
// order's own). Lines already ranked are not placed again. A fault in a
// table or a regular expression then sits next to the code that uses it
// rather than nowhere.
func WithDeclarations(r *Ranking, reads DeclarationReads, opts DeclarationOptions) *Ranking {
	after := opts.After
	n := len(r.Lines)
	ranked := map[lineOf]bool{}
	for _, l := range r.Lines {
		ranked[lineOf{l.File, l.Line}] = true
	}
	placed := map[lineOf]bool{}         // a declaration's first line
	attached := map[int][]Declaration{} // by the last position of the tie group they follow
	readBy := map[lineOf]lineOf{}       // a declaration's first line: its first reader
	for _, l := range r.Lines {
		if opts.FailingReaders && l.EF == 0 || opts.Readers > 0 && l.Tie[0] > opts.Readers {
			continue
		}
		for _, d := range reads(l.File, l.Line) {
			key := lineOf{d.File, d.Start}
			if placed[key] || ranked[key] || opts.MaxLines > 0 && d.End-d.Start+1 > opts.MaxLines {
				continue
			}
			placed[key] = true
			at := l.Tie[1]
			if at < after {
				at = after
			}
			at = min(at, n)
			if at > 0 && at < n {
				at = r.Lines[at-1].Tie[1] // the end of the tie group it falls in
			}
			attached[at] = append(attached[at], d)
			readBy[key] = lineOf{l.File, l.Line}
		}
	}
	if len(attached) == 0 {
		return r
	}
	out := *r
	out.Lines = make([]RankedLine, 0, n)
	shift := 0
	var placedAt []int  // the placed lines' indexes in out.Lines
	var declOf []lineOf // and their declarations' first lines
	emit := func(at int) {
		for _, d := range attached[at] {
			var lines []int
			for x := d.Start; x <= d.End; x++ {
				if !ranked[lineOf{d.File, x}] {
					lines = append(lines, x)
				}
			}
			first := len(out.Lines) + 1
			for _, x := range lines {
				out.Lines = append(out.Lines, RankedLine{File: d.File, Line: x, Rank: len(out.Lines) + 1,
					Tie: [2]int{first, first + len(lines) - 1}, NF: r.Failed, NP: r.Passed})
				placedAt = append(placedAt, len(out.Lines)-1)
				declOf = append(declOf, lineOf{d.File, d.Start})
			}
			shift += len(lines)
		}
	}
	for i, l := range r.Lines {
		end := l.Tie[1]
		l.Rank += shift
		l.Tie = [2]int{l.Tie[0] + shift, l.Tie[1] + shift}
		out.Lines = append(out.Lines, l)
		if i+1 == end {
			emit(end)
		}
	}
	// Each placed line names its reader's rank in the new order.
	rankOf := map[lineOf]int{}
	for _, l := range out.Lines {
		rankOf[lineOf{l.File, l.Line}] = l.Rank
	}
	for k, i := range placedAt {
		reader := float64(rankOf[readBy[declOf[k]]])
		out.Lines[i].Evidence = map[string]float64{EvidenceDeclarationRead: reader}
		out.Lines[i].Because = []Reason{{Evidence: EvidenceDeclarationRead, Value: reader}}
	}
	return &out
}
