package localize

import (
	"crypto/sha256"
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/parsed"
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
// resolved as the compiler resolves them, so a local variable, parameter or
// field named like a declaration reads nothing of it.
type DeclarationReads func(file string, line int) []Declaration

// SourceDeclarationReads reads the module's non-test source files under
// root, a package at a time as its lines are asked for, parsing them into
// a cache of its own.
func SourceDeclarationReads(root string) DeclarationReads {
	return DeclarationReadsIn(root, parsed.New(0))
}

// DeclarationReadsIn is SourceDeclarationReads through files, the parsed
// files its caller shares with the other readers of the same source.
func DeclarationReadsIn(root string, files *parsed.Cache) DeclarationReads {
	var mu sync.Mutex
	pkgs := map[string]*packageDecls{}
	return func(file string, line int) []Declaration {
		dir := path.Dir(file)
		mu.Lock()
		p, ok := pkgs[dir]
		if !ok {
			p = parsePackageDecls(root, dir, files)
			pkgs[dir] = p
		}
		mu.Unlock()
		return p.reads(file, line)
	}
}

// packageDecls are one package directory's declarations and what reads
// them.
type packageDecls struct {
	decls []Declaration    // in file, then line order
	uses  [][]int          // the declarations each declaration's values read
	read  map[lineOf][]int // the declarations each line reads directly
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

// packageFile is one parsed file of a package and its module-relative path.
type packageFile struct {
	rel string
	*parsed.File
}

// packageSource is one source file of a package as read, not yet parsed.
type packageSource struct {
	rel, path string
	src       []byte
}

// packageSources reads the non-test Go files of root/dir that the build
// takes (its build constraints hold for this platform).
func packageSources(root, dir string) []packageSource {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	var out []packageSource
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(abs, name); err != nil || !ok {
			continue // another platform's file, or one the build ignores
		}
		p := filepath.Join(abs, name)
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		out = append(out, packageSource{path.Join(dir, name), p, src})
	}
	return out
}

// noImports imports nothing: resolving which names are the package's own
// needs no other package, and type-checking the module's dependencies
// would cost more than the rest of the ranking.
type noImports struct{}

func (noImports) Import(path string) (*types.Package, error) {
	return nil, fmt.Errorf("package %s not loaded", path)
}

// resolveNames type-checks the package's files on their own (imports
// unresolved, errors ignored) for what each identifier defines and uses.
// A panic of the checker is reported and leaves the names unresolved.
func resolveNames(fset *token.FileSet, dir string, files []packageFile) (info *types.Info) {
	info = &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	defer func() {
		if r := recover(); r != nil {
			bug.Reportf("resolving the names of package %s: %v", dir, r)
			info = &types.Info{}
		}
	}()
	asts := make([]*ast.File, len(files))
	for i, f := range files {
		asts[i] = f.AST
	}
	conf := types.Config{Importer: noImports{}, Error: func(error) {}, FakeImportC: true}
	_, _ = conf.Check(dir, fset, asts, info) // errors expected: no imports
	return info
}

// parsePackageDecls finds the package-level declarations of root/dir with
// a value and the lines of its functions that read them, or takes them
// from the cache when its files have not changed since: type-checking a
// package costs more than parsing it, and the server ranks again on every
// analysed test.
func parsePackageDecls(root, dir string, cache *parsed.Cache) *packageDecls {
	sources := packageSources(root, dir)
	if len(sources) == 0 {
		return &packageDecls{read: map[lineOf][]int{}}
	}
	var key strings.Builder
	key.WriteString("declarations\x00" + dir)
	for _, s := range sources {
		fmt.Fprintf(&key, "\x00%s %x", s.rel, sha256.Sum256(s.src))
	}
	return cache.Derived(key.String(), func() any {
		// The package's trees are parsed into a file set of their own,
		// which holds every file while they are checked together and is
		// let go with them: the shared cache may let a file go meanwhile.
		own := parsed.New(math.MaxInt64)
		var files []packageFile
		for _, s := range sources {
			if f := own.Parse(s.path, s.src); f.AST != nil {
				files = append(files, packageFile{s.rel, f})
			}
		}
		if len(files) == 0 {
			return &packageDecls{read: map[lineOf][]int{}}
		}
		return packageDeclsOf(own.FileSet(), dir, files)
	}).(*packageDecls)
}

// packageDeclsOf finds the declarations of a package's parsed files.
func packageDeclsOf(fset *token.FileSet, dir string, files []packageFile) *packageDecls {
	p := &packageDecls{read: map[lineOf][]int{}}
	info := resolveNames(fset, dir, files)
	// First the declarations, so that reads can name them whatever file
	// they are in.
	declOf := map[types.Object]int{}
	var specs []*ast.ValueSpec
	for _, f := range files {
		for _, d := range f.AST.Decls {
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
					Start: f.Line(vs.Pos()), End: f.Line(vs.End())})
				specs = append(specs, vs)
				for _, n := range vs.Names {
					if obj := info.Defs[n]; obj != nil && n.Name != "_" {
						declOf[obj] = k
					}
				}
			}
		}
	}
	// declsUsed gives the declarations n uses, in the order it names them.
	declsUsed := func(n ast.Node, each func(id *ast.Ident, k int)) {
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if k, ok := declOf[info.Uses[id]]; ok {
					each(id, k)
				}
			}
			return true
		})
	}
	p.uses = make([][]int, len(p.decls))
	for k, vs := range specs {
		for _, v := range vs.Values {
			declsUsed(v, func(_ *ast.Ident, d int) {
				if !slices.Contains(p.uses[k], d) {
					p.uses[k] = append(p.uses[k], d)
				}
			})
		}
	}
	for _, f := range files {
		for _, d := range f.AST.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			declsUsed(fn.Body, func(id *ast.Ident, k int) {
				at := lineOf{f.rel, f.Line(id.Pos())}
				if !slices.Contains(p.read[at], k) {
					p.read[at] = append(p.read[at], k)
				}
			})
		}
	}
	return p
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
