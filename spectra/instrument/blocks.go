package instrument

import (
	"go/ast"
	"go/scanner"
	"go/token"
	"slices"

	"github.com/faultline-go/faultline/internal/testbuild/pertest"
)

// block places counters on a statement list that starts executing at
// start: one counter per straight run of statements, a run ending after any
// statement that transfers control (as go tool cover splits blocks).
func (r *rewriter) block(start token.Pos, list []ast.Stmt) {
	if len(list) == 0 {
		r.counter(start, start, nil)
		return
	}
	for i := 0; i < len(list); {
		j := i
		for j < len(list) {
			s := list[j]
			if j > i {
				if _, labeled := s.(*ast.LabeledStmt); labeled {
					break // a jump may land here: a new block starts
				}
			}
			j++
			if endsBlock(s) {
				break
			}
		}
		run := list[i:j]
		lines := map[int]bool{}
		for _, s := range run {
			r.ownLines(s, lines)
		}
		pos := run[0].Pos()
		if i == 0 {
			pos = start
		}
		r.counter(pos, run[len(run)-1].End(), lines)
		for _, s := range run {
			r.nested(s)
		}
		i = j
	}
}

func (r *rewriter) counter(at, end token.Pos, lines map[int]bool) {
	r.insert(r.offset(at), pertest.Increment(r.opts.Names, r.opts.FirstID+len(r.blocks), r.opts.Atomic))
	b := Block{Start: r.position(at), End: r.position(end)}
	for line := range lines {
		b.Lines = append(b.Lines, line)
	}
	slices.Sort(b.Lines)
	r.blocks = append(r.blocks, b)
}

func (r *rewriter) position(p token.Pos) Position {
	pos := r.file.Position(p)
	return Position{pos.Line, pos.Column}
}

func endsBlock(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.BlockStmt, *ast.BranchStmt, *ast.ForStmt, *ast.IfStmt, *ast.LabeledStmt,
		*ast.RangeStmt, *ast.SwitchStmt, *ast.SelectStmt, *ast.TypeSwitchStmt, *ast.ReturnStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" && len(call.Args) == 1 {
				return true
			}
		}
	}
	return hasFuncLit(s)
}

func hasFuncLit(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			found = true
		}
		return !found
	})
	return found
}

// nested instruments the blocks inside s: bodies of control statements and
// function literals.
func (r *rewriter) nested(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.LabeledStmt:
		r.nested(s.Stmt)
	case *ast.BlockStmt:
		r.block(s.Lbrace+1, s.List)
	case *ast.IfStmt:
		r.literals(s.Init, s.Cond)
		r.block(s.Body.Lbrace+1, s.Body.List)
		r.elseBranch(s.Else)
	case *ast.ForStmt:
		r.literals(s.Init, s.Cond, s.Post)
		r.block(s.Body.Lbrace+1, s.Body.List)
	case *ast.RangeStmt:
		r.literals(s.X)
		r.block(s.Body.Lbrace+1, s.Body.List)
	case *ast.SwitchStmt:
		r.literals(s.Init, s.Tag)
		r.clauses(s.Body)
	case *ast.TypeSwitchStmt:
		r.literals(s.Init, s.Assign)
		r.clauses(s.Body)
	case *ast.SelectStmt:
		r.clauses(s.Body)
	default:
		r.literals(s)
	}
}

// elseBranch gives "else if" its own block by wrapping it in braces on the
// same lines: "else if c {...}" becomes "else {counter; if c {...}}".
func (r *rewriter) elseBranch(e ast.Stmt) {
	switch e := e.(type) {
	case *ast.BlockStmt:
		r.block(e.Lbrace+1, e.List)
	case *ast.IfStmt:
		r.wrap(e.Pos(), e.End())
		lines := map[int]bool{}
		r.ownLines(e, lines)
		r.counter(e.Pos(), e.Body.Lbrace, lines)
		r.nested(e)
	}
}

func (r *rewriter) clauses(body *ast.BlockStmt) {
	for _, c := range body.List {
		switch c := c.(type) {
		case *ast.CaseClause:
			r.literals(exprNodes(c.List)...)
			lines := map[int]bool{}
			r.spanLines(c.Case, c.Colon, lines)
			r.clauseBlock(c.Colon+1, c.Body, lines)
		case *ast.CommClause:
			if c.Comm != nil {
				r.literals(c.Comm)
			}
			lines := map[int]bool{}
			r.spanLines(c.Case, c.Colon, lines)
			r.clauseBlock(c.Colon+1, c.Body, lines)
		}
	}
}

// clauseBlock is block for a case body whose first run also owns the case
// header's lines.
func (r *rewriter) clauseBlock(start token.Pos, body []ast.Stmt, header map[int]bool) {
	first := len(r.blocks)
	r.block(start, body)
	if first < len(r.blocks) {
		b := &r.blocks[first]
		for _, l := range b.Lines {
			header[l] = true
		}
		b.Lines = b.Lines[:0]
		for l := range header {
			b.Lines = append(b.Lines, l)
		}
		slices.Sort(b.Lines)
	}
}

func exprNodes(list []ast.Expr) []ast.Node {
	nodes := make([]ast.Node, len(list))
	for i, e := range list {
		nodes[i] = e
	}
	return nodes
}

// literals instruments the bodies of function literals inside the nodes.
func (r *rewriter) literals(nodes ...ast.Node) {
	for _, n := range nodes {
		if n == nil {
			continue
		}
		ast.Inspect(n, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok {
				r.block(lit.Body.Lbrace+1, lit.Body.List)
				return false
			}
			return true
		})
	}
}

// ownLines adds the executable lines of s that belong to the block holding
// s: all of a simple statement except function literal bodies, and only the
// header of a control statement.
func (r *rewriter) ownLines(s ast.Stmt, lines map[int]bool) {
	switch s := s.(type) {
	case *ast.LabeledStmt:
		r.ownLines(s.Stmt, lines)
	case *ast.BlockStmt:
	case *ast.IfStmt:
		r.spanLines(s.Pos(), s.Body.Lbrace, lines)
	case *ast.ForStmt:
		r.spanLines(s.Pos(), s.Body.Lbrace, lines)
	case *ast.RangeStmt:
		r.spanLines(s.Pos(), s.Body.Lbrace, lines)
	case *ast.SwitchStmt:
		r.spanLines(s.Pos(), s.Body.Lbrace, lines)
	case *ast.TypeSwitchStmt:
		r.spanLines(s.Pos(), s.Body.Lbrace, lines)
	case *ast.SelectStmt:
		r.spanLines(s.Pos(), s.Body.Lbrace, lines)
	default:
		own := map[int]bool{}
		r.spanLines(s.Pos(), s.End(), own)
		ast.Inspect(s, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok {
				first, last := r.file.Line(lit.Body.Lbrace), r.file.Line(lit.Body.Rbrace)
				for l := first + 1; l < last; l++ {
					delete(own, l)
				}
				return false
			}
			return true
		})
		for l := range own {
			lines[l] = true
		}
	}
}

// spanLines adds the code lines from..to (inclusive).
func (r *rewriter) spanLines(from, to token.Pos, lines map[int]bool) {
	for l := r.file.Line(from); l <= r.file.Line(to); l++ {
		if r.code[l] {
			lines[l] = true
		}
	}
}

// CodeLines returns the lines that hold a token other than closing
// punctuation: a line with only "})" or "}," executes nothing of its own.
func CodeLines(fset *token.FileSet, file *token.File, src []byte) map[int]bool {
	lines := map[int]bool{}
	var s scanner.Scanner
	tf := fset.AddFile(file.Name(), -1, len(src))
	s.Init(tf, src, nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.RBRACE, token.RPAREN, token.RBRACK, token.COMMA:
			continue
		case token.SEMICOLON:
			if lit == "\n" {
				continue
			}
		}
		lines[tf.Line(pos)] = true
	}
	return lines
}
