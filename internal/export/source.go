package export

import (
	"bytes"
	"go/ast"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/faultline-go/faultline/internal/parsed"
	"github.com/faultline-go/faultline/internal/receiver"
)

// Sources reads the module's source files on demand, for the text of a
// line and the function that holds it. A file that cannot be read or
// parsed has no lines and no functions: the exports still name its lines.
type Sources struct {
	root   string
	parsed *parsed.Cache
	files  map[string]*SourceFile
}

// SourceFile is one file's text split into lines and its functions.
type SourceFile struct {
	Lines  [][]byte // Lines[i] is line i+1, without its newline
	funcs  []funcSpan
	decls  []funcSpan // the declared functions alone, in source order
	funcOf []string   // by line, built on first use
}

type funcSpan struct {
	start, end int // lines, inclusive
	name       string
}

// NewSources reads files below root, a module root directory, parsing
// them into a cache of its own.
func NewSources(root string) *Sources {
	return NewSourcesIn(root, parsed.New(0))
}

// NewSourcesIn reads files below root through files, the parsed files its
// caller shares with the other readers of the same source.
func NewSourcesIn(root string, files *parsed.Cache) *Sources {
	return &Sources{root: root, parsed: files, files: map[string]*SourceFile{}}
}

// File returns the file at rel, a slash-separated path below the root.
func (s *Sources) File(rel string) *SourceFile {
	if f, ok := s.files[rel]; ok {
		return f
	}
	f := &SourceFile{}
	s.files[rel] = f
	v, err := s.parsed.DerivedFrom("export.SourceFile", filepath.Join(s.root, filepath.FromSlash(rel)), func(pf *parsed.File) any {
		return sourceFileOf(pf)
	})
	if err != nil {
		return f
	}
	// A copy: funcOf is built on first use, each Sources its own.
	*f = *v.(*SourceFile)
	return f
}

// sourceFileOf splits a parsed file into lines and finds its functions.
func sourceFileOf(pf *parsed.File) *SourceFile {
	f := &SourceFile{}
	f.Lines = bytes.Split(bytes.TrimSuffix(pf.Src, []byte("\n")), []byte("\n"))
	if pf.AST == nil {
		return f
	}
	// A partial syntax tree still names the functions it holds.
	for _, d := range pf.AST.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		decl := funcSpan{pf.Line(fn.Pos()), pf.Line(fn.End()), funcName(fn)}
		f.funcs = append(f.funcs, decl)
		f.decls = append(f.decls, decl)
		// Function literals inside take the enclosing name with a suffix,
		// as the Go toolchain names them (F.func1, F.func2, ...).
		n := 0
		ast.Inspect(fn.Body, func(node ast.Node) bool {
			if lit, ok := node.(*ast.FuncLit); ok {
				n++
				f.funcs = append(f.funcs, funcSpan{pf.Line(lit.Pos()), pf.Line(lit.End()), funcName(fn) + ".func" + strconv.Itoa(n)})
				return false
			}
			return true
		})
	}
	// Innermost last among those that contain a line: sort by start, and
	// a literal starts after its function.
	sort.SliceStable(f.funcs, func(i, j int) bool { return f.funcs[i].start < f.funcs[j].start })
	return f
}

// Lines reads files as analysis.SourceLines: the text of each line of the
// file at rel, nil when it cannot be read.
func (s *Sources) Lines(rel string) []string {
	f := s.File(rel)
	if f.Lines == nil {
		return nil
	}
	out := make([]string, len(f.Lines))
	for i, l := range f.Lines {
		out[i] = string(l)
	}
	return out
}

// Line returns the text of line n (1-based), or nil.
func (f *SourceFile) Line(n int) []byte {
	if n < 1 || n > len(f.Lines) {
		return nil
	}
	return f.Lines[n-1]
}

// Func returns the name of the innermost function holding line n, as
// "Name", "Type.Method" or "Name.func1", or "" outside any function.
func (f *SourceFile) Func(n int) string {
	if f.funcOf == nil {
		// One pass over the functions, innermost last, names every line.
		f.funcOf = make([]string, len(f.Lines)+2)
		for _, fs := range f.funcs {
			for l := max(fs.start, 1); l <= fs.end && l < len(f.funcOf); l++ {
				f.funcOf[l] = fs.name
			}
		}
	}
	if n < 1 || n >= len(f.funcOf) {
		return ""
	}
	return f.funcOf[n]
}

// Decl returns the declared function holding line n, the one a function
// literal inside it belongs to too: its name, as Func names it, and the
// first line of its declaration; "" and 0 outside any declared function.
func (f *SourceFile) Decl(n int) (name string, line int) {
	// Declarations do not overlap and come in source order.
	i := sort.Search(len(f.decls), func(i int) bool { return f.decls[i].end >= n })
	if i < len(f.decls) && f.decls[i].start <= n {
		return f.decls[i].name, f.decls[i].start
	}
	return "", 0
}

// funcName is "F" for a function and "T.M" for a method (type parameters
// and the pointer dropped).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	if recv := receiver.TypeName(fn.Recv.List[0].Type); recv != "" {
		return recv + "." + fn.Name.Name
	}
	return fn.Name.Name
}
