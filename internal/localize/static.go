package localize

import (
	"go/ast"
	"path/filepath"

	"github.com/faultline-go/faultline/internal/parsed"
	"github.com/faultline-go/faultline/spectra"
)

// lineFacts are the cheap static facts of one source line.
type lineFacts struct {
	// kind is that of the outermost statement starting on the line (if,
	// loop, switch, case, return, assign, call, decl, branch, defer); ""
	// for none.
	kind  string
	depth int // blocks enclosing it within its function
	fn    int // first line of the innermost function holding it; 0 outside functions
}

// fileFacts parses a source file through files and returns the facts of
// each of its lines that holds a statement or lies in a function.
func fileFacts(files *parsed.Cache, path string) (map[int]lineFacts, error) {
	v, err := files.DerivedFrom("static.facts", path, func(pf *parsed.File) any {
		if pf.Err != nil {
			return parsedFacts{err: pf.Err}
		}
		return parsedFacts{facts: factsOf(pf)}
	})
	if err != nil {
		return nil, err
	}
	pf := v.(parsedFacts)
	return pf.facts, pf.err
}

// parsedFacts are a file's line facts, or why it does not parse.
type parsedFacts struct {
	facts map[int]lineFacts
	err   error
}

// factsOf finds the facts of the lines of a file that parses.
func factsOf(pf *parsed.File) map[int]lineFacts {
	f := pf.AST
	facts := map[int]lineFacts{}
	lineOf := pf.Line
	var walk func(n ast.Node, depth, fn int)
	walk = func(n ast.Node, depth, fn int) {
		ast.Inspect(n, func(c ast.Node) bool {
			if c == nil || c == n {
				return true
			}
			switch c := c.(type) {
			case *ast.FuncLit:
				walk(c.Body, 0, lineOf(c.Pos()))
				return false
			case *ast.BlockStmt:
				walk(c, depth+1, fn)
				return false
			case *ast.CaseClause:
				note(facts, lineOf(c.Pos()), "case", depth, fn)
				for _, s := range c.Body {
					walk(s, depth+1, fn)
				}
				return false
			case *ast.CommClause:
				note(facts, lineOf(c.Pos()), "case", depth, fn)
				for _, s := range c.Body {
					walk(s, depth+1, fn)
				}
				return false
			case ast.Stmt:
				note(facts, lineOf(c.Pos()), kindOf(c), depth, fn)
			}
			return true
		})
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			walk(fd.Body, 0, lineOf(fd.Pos()))
			// Lines of the function without a statement of their own
			// (a closing brace, a continued expression) still belong to it.
			for l := lineOf(fd.Pos()); l <= lineOf(fd.End()); l++ {
				if _, ok := facts[l]; !ok {
					facts[l] = lineFacts{fn: lineOf(fd.Pos())}
				}
			}
		}
	}
	return facts
}

// note records the outermost statement starting on a line.
func note(facts map[int]lineFacts, line int, kind string, depth, fn int) {
	if f, ok := facts[line]; ok && f.kind != "" {
		return
	}
	facts[line] = lineFacts{kind: kind, depth: depth, fn: fn}
}

func kindOf(s ast.Stmt) string {
	switch s := s.(type) {
	case *ast.IfStmt:
		return "if"
	case *ast.ForStmt, *ast.RangeStmt:
		return "loop"
	case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
		return "switch"
	case *ast.ReturnStmt:
		return "return"
	case *ast.AssignStmt, *ast.IncDecStmt:
		return "assign"
	case *ast.ExprStmt, *ast.GoStmt, *ast.SendStmt:
		return "call"
	case *ast.DeclStmt:
		return "decl"
	case *ast.BranchStmt:
		return "branch"
	case *ast.DeferStmt:
		return "defer"
	case *ast.LabeledStmt:
		return kindOf(s.Stmt)
	}
	return ""
}

// maxDepth caps the nesting depth evidence.
const maxDepth = 6

// staticEvidence gives each line's statement kind (a column per kind),
// its nesting depth within its function (a share of maxDepth), and where
// it stands on the failing tests' panic stacks: 1/(k+1) for the k-th
// frame from the innermost, and whether its function is on a stack.
func staticEvidence(in *evidenceInput, put func(string, int, float64)) error {
	// Panic stacks of the failing tests.
	stackPos := map[line]int{}
	stackFn := map[line]bool{} // keyed by the function's first line
	var stacks [][]spectra.Site
	for _, t := range in.matrix.Tests {
		if t.Verdict == spectra.Panic || t.Verdict == spectra.Timeout {
			if s := spectra.StackSites(t.Output, in.matrix.Root); len(s) > 0 {
				stacks = append(stacks, s)
			}
		}
	}
	for _, s := range stacks {
		for k, site := range s {
			l := line{site.File, site.Line}
			if p, ok := stackPos[l]; !ok || k < p {
				stackPos[l] = k
			}
		}
	}
	byFile := map[string][]int{}
	for i, l := range in.lines {
		byFile[l.File] = append(byFile[l.File], i)
	}
	facts := map[string]map[int]lineFacts{}
	for file := range byFile {
		f, err := fileFacts(in.files, filepath.Join(in.matrix.Root, filepath.FromSlash(file)))
		if err != nil {
			continue // a file that no longer parses: no static facts for it
		}
		facts[file] = f
	}
	for l := range stackPos {
		if f, ok := facts[l.file][l.line]; ok && f.fn > 0 {
			stackFn[line{l.file, f.fn}] = true
		}
	}
	for file, idx := range byFile {
		for _, i := range idx {
			l := in.lines[i]
			f := facts[file][l.Line]
			if f.kind != "" {
				put("kind."+f.kind, i, 1)
			}
			if f.depth > 0 {
				put("depth", i, float64(min(f.depth, maxDepth))/maxDepth)
			}
			if k, ok := stackPos[line{file, l.Line}]; ok {
				put("stack", i, 1/float64(k+1))
			}
			if f.fn > 0 && stackFn[line{file, f.fn}] {
				put("stackFunc", i, 1)
			}
		}
	}
	return nil
}
