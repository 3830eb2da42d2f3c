package regress

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// Neutral edits: a hunk is neutral when every declaration it touches reads
// the same before and after once what cannot change behaviour is set
// aside: formatting, comments, parentheses (the syntax tree already fixes
// the order of evaluation), consistent renaming of a function's local
// variables and parameters, the order of imports, and constant
// expressions of literals written differently (60*60 and 3600). A neutral
// hunk is never reverted, so never a root. Two adjacent statements
// swapped are neutral when a cheap check shows they are independent:
// plain assignments of names from calls-free expressions that cannot
// panic, neither touching what the other assigns.

// neutralHunks returns the IDs of the change set's neutral hunks.
func neutralHunks(cs *changeSet) []int {
	var out []int
	for _, f := range cs.files {
		if !strings.HasSuffix(f.Rel, ".go") || !f.HasOld || !f.HasNew {
			continue
		}
		cmp, err := newDeclComparer(f.Old, f.New)
		if err != nil {
			continue // a file that does not parse has no neutral edits
		}
		for _, h := range f.Hunks {
			if cmp.neutral(h) {
				out = append(out, h.ID)
			}
		}
	}
	return out
}

// declComparer holds both versions of one file, parsed.
type declComparer struct {
	old, new *parsedFile
	same     map[string]bool // sameDecl's answers, by key
}

// parsedFile is one version of a file and its top-level declarations.
type parsedFile struct {
	fset  *token.FileSet
	file  *ast.File
	decls []topDecl
	keys  map[string]int // how many declarations share a key
	// comment are the lines a comment is on; literal those a literal
	// spanning several lines is on, where a blank line is text.
	comment, literal map[int]bool
}

// topDecl is one top-level declaration (or the package clause) and its
// lines.
type topDecl struct {
	key         string
	first, last int
	node        ast.Node
}

func newDeclComparer(oldSrc, newSrc []byte) (*declComparer, error) {
	o, err := parseDecls(oldSrc)
	if err != nil {
		return nil, err
	}
	n, err := parseDecls(newSrc)
	if err != nil {
		return nil, err
	}
	return &declComparer{old: o, new: n, same: map[string]bool{}}, nil
}

func parseDecls(src []byte) (*parsedFile, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing: %w", err)
	}
	for _, imp := range f.Imports {
		if imp.Path.Value == `"C"` {
			return nil, fmt.Errorf("cgo: comments are code")
		}
	}
	pf := &parsedFile{fset: fset, file: f, keys: map[string]int{}, comment: map[int]bool{}, literal: map[int]bool{}}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	for _, g := range f.Comments {
		for _, c := range g.List {
			for l := line(c.Pos()); l <= line(c.End()); l++ {
				pf.comment[l] = true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok {
			for l := line(lit.Pos()); l <= line(lit.End()); l++ {
				pf.literal[l] = true
			}
		}
		return true
	})
	pf.add(topDecl{key: "package", first: line(f.Package), last: line(f.Name.End()), node: f.Name})
	for _, d := range f.Decls {
		pf.add(topDecl{key: declKey(d), first: line(d.Pos()), last: line(d.End()), node: d})
	}
	return pf, nil
}

func (pf *parsedFile) add(d topDecl) {
	pf.decls = append(pf.decls, d)
	pf.keys[d.key]++
}

// declKey names a declaration so that its two versions can be paired.
func declKey(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		recv := ""
		if d.Recv != nil && len(d.Recv.List) > 0 {
			recv = recvTypeName(d.Recv.List[0].Type) + "."
		}
		return "func " + recv + d.Name.Name
	case *ast.GenDecl:
		if d.Tok == token.IMPORT {
			return "import"
		}
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
		return d.Tok.String() + " " + strings.Join(names, ",")
	}
	return "bad"
}

// recvTypeName names a receiver's type without its type parameters' names.
func recvTypeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + recvTypeName(e.X)
	case *ast.ParenExpr:
		return recvTypeName(e.X)
	case *ast.IndexExpr:
		return recvTypeName(e.X)
	case *ast.IndexListExpr:
		return recvTypeName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

// touched returns the declarations that lines first..first+count-1
// overlap; a count of 0 is an insertion after line first, which touches
// the declaration it falls inside.
func (pf *parsedFile) touched(first, count int) []topDecl {
	var out []topDecl
	for _, d := range pf.decls {
		if count == 0 && d.first <= first && first+1 <= d.last ||
			count > 0 && d.first <= first+count-1 && first <= d.last {
			out = append(out, d)
		}
	}
	return out
}

// directive reports whether a line is a comment the toolchain reads.
func directive(line string) bool {
	line = strings.TrimSpace(line)
	for _, p := range []string{"//go:", "// +build", "//line ", "/*line ", "//export "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// neutral reports whether the hunk changes no behaviour: its lines hold no
// compiler directive, and the declarations it touches at the base pair
// one to one with those it touches in the working tree and read the same.
func (c *declComparer) neutral(h *Hunk) bool {
	if slices.ContainsFunc(h.Old, directive) || slices.ContainsFunc(h.New, directive) {
		return false
	}
	olds := c.old.touched(h.OldStart, h.OldCount)
	news := c.new.touched(h.NewStart, h.NewCount)
	if len(olds) != len(news) {
		return false
	}
	if c.sameStatements(h, olds, news) {
		return true
	}
	for i := range olds {
		o, n := olds[i], news[i]
		if o.key != n.key || c.old.keys[o.key] != 1 || c.new.keys[n.key] != 1 {
			return false
		}
		if o.key == "import" {
			if !slices.Equal(importSet(c.old.file), importSet(c.new.file)) {
				return false
			}
			continue
		}
		if !c.sameDecl(o, n) {
			return false
		}
	}
	return true
}

// sameDecl reports whether two versions of a declaration read the same,
// or would once two adjacent independent statements of the base's are
// swapped. The answer is kept: several hunks ask about one declaration.
func (c *declComparer) sameDecl(o, n topDecl) bool {
	if same, ok := c.same[o.key]; ok {
		return same
	}
	want := normalForm(n.node)
	same := normalForm(o.node) == want
	if fd, ok := o.node.(*ast.FuncDecl); ok && !same && fd.Body != nil {
		same = swapMakes(fd, want)
	}
	c.same[o.key] = same
	return same
}

// maxSwaps bounds the pairs of statements swapSame tries in one function.
const maxSwaps = 200

// swapMakes reports whether swapping one pair of adjacent statements of
// fd that neither read nor write what the other writes, and that cannot
// call, panic or block, gives the normal form want. It restores fd.
func swapMakes(fd *ast.FuncDecl, want string) bool {
	var lists [][]ast.Stmt
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			lists = append(lists, n.List)
		case *ast.CaseClause:
			lists = append(lists, n.Body)
		case *ast.CommClause:
			lists = append(lists, n.Body)
		}
		return true
	})
	tries := 0
	for _, list := range lists {
		for i := 0; i+1 < len(list) && tries < maxSwaps; i++ {
			if !independent(list[i], list[i+1]) {
				continue
			}
			tries++
			list[i], list[i+1] = list[i+1], list[i]
			same := normalForm(fd) == want
			list[i], list[i+1] = list[i+1], list[i]
			if same {
				return true
			}
		}
	}
	return false
}

// independent reports whether two statements can run in either order:
// each assigns plain names only, from expressions that cannot call,
// panic or block, and neither mentions a name the other assigns. Names
// are compared as spelled, so that a declaration cannot change what the
// other statement's names mean.
func independent(a, b ast.Stmt) bool {
	wa, ra, ok := effects(a)
	if !ok {
		return false
	}
	wb, rb, ok := effects(b)
	if !ok {
		return false
	}
	for name := range wa {
		if wb[name] || rb[name] {
			return false
		}
	}
	for name := range wb {
		if ra[name] {
			return false
		}
	}
	return true
}

// effects returns the names a simple assignment writes and reads; ok is
// false for any other statement.
func effects(s ast.Stmt) (writes, reads map[string]bool, ok bool) {
	writes, reads = map[string]bool{}, map[string]bool{}
	write := func(e ast.Expr) bool {
		id, isIdent := e.(*ast.Ident)
		if isIdent && id.Name != "_" {
			writes[id.Name] = true
		}
		return isIdent
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		switch s.Tok {
		case token.QUO_ASSIGN, token.REM_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN:
			return nil, nil, false
		}
		for _, l := range s.Lhs {
			if !write(l) {
				return nil, nil, false
			}
			if s.Tok != token.ASSIGN && s.Tok != token.DEFINE {
				pureReads(l, reads) // x += e reads x
			}
		}
		for _, r := range s.Rhs {
			if !pureReads(r, reads) {
				return nil, nil, false
			}
		}
		return writes, reads, true
	case *ast.IncDecStmt:
		if !write(s.X) {
			return nil, nil, false
		}
		pureReads(s.X, reads)
		return writes, reads, true
	}
	return nil, nil, false
}

// pureReads adds the names e reads to reads and reports whether e is made
// only of names, literals and operators that cannot panic: no calls,
// indexing, selectors, division, shifts, equality (interfaces may panic),
// receiving or taking addresses.
func pureReads(e ast.Expr, reads map[string]bool) bool {
	switch e := e.(type) {
	case *ast.Ident:
		reads[e.Name] = true
		return true
	case *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return pureReads(e.X, reads)
	case *ast.UnaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.NOT, token.XOR:
			return pureReads(e.X, reads)
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.MUL, token.AND, token.OR, token.XOR, token.AND_NOT,
			token.LAND, token.LOR, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return pureReads(e.X, reads) && pureReads(e.Y, reads)
		}
	}
	return false
}

// sameStatements reports whether a hunk inside one function replaces
// whole statements by statements that read the same, names as spelled:
// the test for an edit beside the fault in the same function, where the
// whole declarations differ.
func (c *declComparer) sameStatements(h *Hunk, olds, news []topDecl) bool {
	if len(olds) != 1 || olds[0].key != news[0].key {
		return false
	}
	of, ok1 := olds[0].node.(*ast.FuncDecl)
	nf, ok2 := news[0].node.(*ast.FuncDecl)
	if !ok1 || !ok2 || of.Body == nil || nf.Body == nil {
		return false
	}
	os, ok1 := c.old.statementsIn(of.Body, h.OldStart, h.OldCount, h.Old)
	ns, ok2 := c.new.statementsIn(nf.Body, h.NewStart, h.NewCount, h.New)
	if !ok1 || !ok2 || len(os) != len(ns) {
		return false
	}
	for i := range os {
		if normalForm(os[i]) != normalForm(ns[i]) {
			return false
		}
	}
	return true
}

// statementsIn returns the outermost statements of body that lie within
// lines first..first+count-1, whose text is lines; ok is false unless
// every line holding code belongs to one of them and no other statement
// straddles the range's edge.
func (pf *parsedFile) statementsIn(body *ast.BlockStmt, first, count int, lines []string) ([]ast.Stmt, bool) {
	line := func(p token.Pos) int { return pf.fset.Position(p).Line }
	if count == 0 {
		return nil, line(body.Lbrace) <= first && first < line(body.Rbrace)
	}
	last := first + count - 1
	if first <= line(body.Lbrace) || last >= line(body.Rbrace) {
		return nil, false
	}
	var out []ast.Stmt
	covered := map[int]bool{}
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		s, isStmt := n.(ast.Stmt)
		if !isStmt || n == body {
			return ok
		}
		sf, sl := line(s.Pos()), line(s.End())
		switch {
		case sl < first || sf > last: // apart
			return false
		case first <= sf && sl <= last: // inside: outermost
			out = append(out, s)
			for l := sf; l <= sl; l++ {
				covered[l] = true
			}
			return false
		case sf < first && last < sl: // around the range
			return true
		}
		// A range within the header of a statement with a body (if x {)
		// compares the header; the body lies outside the range.
		if head, body := header(s); head != nil && sf <= first {
			lbrace := line(body.Lbrace)
			if last <= lbrace && line(body.Rbrace) > last &&
				(len(body.List) == 0 || line(body.List[0].Pos()) > lbrace) {
				out = append(out, head)
				for l := sf; l <= lbrace; l++ {
					covered[l] = true
				}
				return false
			}
		}
		ok = false // straddles an edge
		return false
	})
	if !ok {
		return nil, false
	}
	for i, text := range lines {
		l := first + i
		t := strings.TrimSpace(text)
		if covered[l] {
			continue
		}
		if pf.literal[l] || t != "" && !(strings.HasPrefix(t, "//") && pf.comment[l]) {
			return nil, false
		}
	}
	return out, true
}

// header returns a statement's header (what precedes its body) as a
// statement of the same kind without the body, and the body; nil for a
// statement without one.
func header(s ast.Stmt) (ast.Stmt, *ast.BlockStmt) {
	switch s := s.(type) {
	case *ast.IfStmt:
		return &ast.IfStmt{Init: s.Init, Cond: s.Cond}, s.Body
	case *ast.ForStmt:
		return &ast.ForStmt{Init: s.Init, Cond: s.Cond, Post: s.Post}, s.Body
	case *ast.RangeStmt:
		return &ast.RangeStmt{Key: s.Key, Value: s.Value, Tok: s.Tok, X: s.X}, s.Body
	case *ast.SwitchStmt:
		return &ast.SwitchStmt{Init: s.Init, Tag: s.Tag}, s.Body
	case *ast.TypeSwitchStmt:
		return &ast.TypeSwitchStmt{Init: s.Init, Assign: s.Assign}, s.Body
	case *ast.SelectStmt:
		return &ast.SelectStmt{}, s.Body
	}
	return nil, nil
}

// importSet lists a file's imports, sorted, each as name and path.
func importSet(f *ast.File) []string {
	var out []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			p = imp.Path.Value
		}
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out = append(out, name+" "+p)
	}
	slices.Sort(out)
	return out
}
