// Package edges is the edge-profile pass over the instrumented-build
// layer: for every function of a non-test file (function literals
// included) it builds the control-flow graph of golang.org/x/tools/go/cfg,
// maps its blocks to source lines, adds a virtual entry and exit, and
// places probes that count, per test, how often each edge is taken.
//
// Go's coverage counts blocks, not edges, and edge counts cannot in
// general be recovered from block counts. Each function invocation keeps
// in a local variable the row of the block it last entered; the probe at
// the start of a block adds one to the counter of the (previous, current)
// pair and sets the row to its own. Pairs are numbered by row
// displacement, so that a function's counters are few and a probe is one
// indexed increment and one assignment. A block that cannot hold a
// statement (a loop header, the post statement of a for loop) gets no
// probe: a pair of probed blocks then stands for the one path between them
// through unprobed ones, and counts each edge of it. A panic or exit
// inside a block leaves the block without an outgoing traversal, which is
// what BlockRank's transition rate measures.
package edges

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/testbuild/pertest"
)

// Version changes whenever the pass changes what it produces, so that
// stored results made by an older one are not reused.
const Version = "faultline-edges-1"

// Names are the identifiers the pass declares in one package, chosen so
// that no identifier of the package begins with them.
type Names struct {
	Edges  string // the package's edge counters
	Prev   string // the local holding the row of the block last entered
	Atomic string // import name of sync/atomic, for atomic counters
	Pass   string // the function that counts a return once its results are evaluated
}

// NamesFor chooses the names from the sources of all the package's files.
func NamesFor(files ...[]byte) Names {
	n := testbuild.UnusedNames(files, "faultlineEdges_", "faultlinePrev_", "faultlineedgeatomic_", "faultlinePass_")
	return Names{Edges: n[0], Prev: n[1], Atomic: n[2], Pass: n[3]}
}

// RangeName is the name of a package's edge counters in the layout.
func RangeName(pkgPath string) string { return pkgPath + "#edges" }

// CountersFile declares the package's n edge counters (a counting range
// of pertest's layout, registered under RangeName) and the generic
// function that counts a return after its results are evaluated (Go 1.18,
// which the file's build constraint sets as its language version).
func CountersFile(pkgName, pkgPath, runtimePath string, runtime pertest.Names, names Names, n int, atomic bool) []byte {
	decl := pertest.RangeFile(pkgName, runtimePath, runtime, names.Edges, RangeName(pkgPath), n)
	count := "*c++"
	imports := ""
	if atomic {
		count = names.Atomic + ".AddUint32(c, 1)"
		imports = fmt.Sprintf("import %s \"sync/atomic\"\n\n", names.Atomic)
	}
	return fmt.Appendf([]byte("//go:build go1.18\n\n"), "%s\n%sfunc %s[T any](c *uint32, v T) T { %s; return v }\n", decl, imports, names.Pass, count)
}

// PassLang is the language version files calling Names.Pass need.
const PassLang = "go1.18"

// Options say how to count in one file.
type Options struct {
	FirstID int   // the file's first counter within the package's edge range
	Names   Names //
	// Atomic makes increments atomic, for builds with the race detector.
	Atomic bool
}

// Func is the control-flow graph of one function: its blocks (the virtual
// entry and exit first) and edges.
type Func struct {
	Name   string // as in a stack trace: F, T.M, (*T).M, F.func1
	Line   int    // line of the func keyword
	Blocks []Block
	Edges  []Edge
}

// Block indices of a Func's virtual blocks.
const (
	Entry = 0
	Exit  = 1
)

// Block is one basic block.
type Block struct {
	Kind  string // go/cfg's kind (Body, IfThen, ForLoop, …); "Entry" or "Exit" for the virtual ones
	Line  int    // where it starts; 0 for the virtual ones
	Lines []int  // executable source lines it owns, ascending; none for the virtual ones
	// Probed is false for a block without a probe of its own, whose
	// traversals are inferred from its probed neighbours.
	Probed bool
}

// Edge is one control-flow edge between blocks of a Func.
type Edge struct{ From, To int }

// Result is one instrumented file.
type Result struct {
	Edits []testbuild.Edit
	Funcs []Func
	// Edges is the number of edges of all Funcs; a file's edges are
	// numbered function after function.
	Edges int
	// Slots are the file's counters: Slots[i] lists the edges (file
	// numbering) counter FirstID+i counts, a path of edges through
	// unprobed blocks; an unused counter lists none.
	Slots [][]int32
	// Ambiguous counts pairs of probed blocks joined by more than one path
	// through unprobed blocks, whose counts went to the first path.
	Ambiguous int
	// Generic says the edits call Names.Pass: the file needs PassLang.
	Generic bool
}

// File instruments one non-test file.
func File(filename string, src []byte, opts Options) (*Result, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", filename, err)
	}
	return Instrument(fset, f, src, opts), nil
}

// Instrument instruments a parsed file.
func Instrument(fset *token.FileSet, f *ast.File, src []byte, opts Options) *Result {
	p := newPass(fset, f, src, opts)
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			name := funcName(d)
			p.function(name, d.Type, d.Body)
			p.literals(name, d.Body)
		case *ast.GenDecl:
			p.nested("glob..func", d)
		}
	}
	if opts.Atomic && len(p.res.Slots) > 0 {
		p.res.Edits = append(p.res.Edits, pertest.ImportEdit(fset, f, opts.Names.Atomic, "sync/atomic"))
	}
	return p.res
}

// literals instruments the function literals inside n, each as a function
// of its own, named as the compiler names them (F.func1, F.func1.1).
func (p *pass) literals(outer string, n ast.Node) {
	p.nested(outer+".func", n)
}

func (p *pass) nested(prefix string, n ast.Node) {
	count := 0
	ast.Inspect(n, func(m ast.Node) bool {
		lit, ok := m.(*ast.FuncLit)
		if !ok || m == n {
			return true
		}
		count++
		name := fmt.Sprintf("%s%d", prefix, count)
		p.function(name, lit.Type, lit.Body)
		p.nested(name+".", lit.Body)
		return false
	})
}

func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	recv := "?"
	if id, ok := t.(*ast.Ident); ok {
		recv = id.Name
	}
	if star != "" {
		return "(*" + recv + ")." + d.Name.Name
	}
	return recv + "." + d.Name.Name
}
