// Package instrument is spectra's coverage pass over the instrumented-build
// layer: it places a counter at the start of every basic block of a
// non-test file, as edits that never move a line, and records the source
// lines each counter owns. Test hooks, counter registration and the runtime
// that attributes counters to tests belong to package pertest.
package instrument

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/testbuild/pertest"
)

// Version changes whenever the coverage pass changes what it produces, so
// that stored results made by an older one are not reused.
const Version = "faultline-coverage-6"

// Block is a counter's source region: a straight run of statements.
type Block struct {
	Start, End Position
	Lines      []int // executable lines owned by the block, ascending
}

// Position is a 1-based line and byte column.
type Position struct{ Line, Col int }

// Options say how to count in one file.
type Options struct {
	FirstID int           // index of the file's first counter within its package
	Names   pertest.Names // the package's counters variable and import names
	// Atomic makes counter increments atomic, for builds with the race
	// detector, which would otherwise report the counters themselves.
	Atomic bool
}

type rewriter struct {
	fset   *token.FileSet
	file   *token.File
	src    []byte
	opts   Options
	edits  []testbuild.Edit
	blocks []Block
	code   map[int]bool // lines holding a token other than closing punctuation
}

// Counters returns the edits that count every basic block of a parsed
// file, and the blocks in counter order. With Atomic, the edits include
// the import of sync/atomic when the file has a block.
func Counters(fset *token.FileSet, f *ast.File, src []byte, opts Options) ([]testbuild.Edit, []Block) {
	r := &rewriter{fset: fset, file: fset.File(f.Pos()), src: src, opts: opts}
	r.code = CodeLines(fset, r.file, src)
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		r.block(fn.Body.Lbrace+1, fn.Body.List)
	}
	if opts.Atomic && len(r.blocks) > 0 {
		r.edits = append(r.edits, pertest.ImportEdit(fset, f, opts.Names.Atomic, "sync/atomic"))
	}
	return r.edits, r.blocks
}

func (r *rewriter) offset(p token.Pos) int { return r.file.Offset(p) }

func (r *rewriter) insert(off int, text string) {
	r.edits = append(r.edits, testbuild.Insert(off, text))
}

// wrap puts braces around the source from..to, on the lines it has.
func (r *rewriter) wrap(from, to token.Pos) {
	r.insert(r.offset(from), "{")
	r.edits = append(r.edits, testbuild.Edit{Off: r.offset(to), Text: "}", Close: true, Span: r.offset(to) - r.offset(from)})
}

// FileOptions say how to instrument one file for a per-test coverage build.
type FileOptions struct {
	Options
	Coverage bool   // count blocks: a non-test file
	Runtime  string // import path of the per-test runtime
	// Suites are the package's testify suite types (pertest.SuiteTypes),
	// whose test methods get hooks in whichever file they are.
	Suites []string
}

// Result is one instrumented file.
type Result struct {
	Edits     []testbuild.Edit // the file's rewriting, for testbuild.Overlay.Edit
	Blocks    []Block          // counters of this file, in counter order
	Generated bool             // a generated non-test file, left alone: its lines are nobody's to fix
	Split     []string         // top-level tests that start subtests (see pertest.Hooked)
}

// File instruments one file: the test hooks of package pertest wherever a
// function takes a *testing.T, and with Coverage a counter per block.
func File(filename string, src []byte, opts FileOptions) (*Result, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", filename, err)
	}
	if opts.Coverage && ast.IsGenerated(f) {
		return &Result{Generated: true}, nil
	}
	hooks := pertest.Hooks(fset, f, opts.Names, opts.Suites)
	res := &Result{Split: hooks.Split}
	edits := hooks.Edits
	if opts.Coverage {
		var counters []testbuild.Edit
		counters, res.Blocks = Counters(fset, f, src, opts.Options)
		edits = append(edits, counters...)
	}
	if hooks.Import {
		edits = append(edits, pertest.ImportEdit(fset, f, opts.Names.Runtime, opts.Runtime))
	}
	res.Edits = edits
	return res, nil
}
