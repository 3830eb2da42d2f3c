package edges

import (
	"go/ast"
	"go/token"
	"slices"

	"golang.org/x/tools/go/cfg"

	"github.com/faultline-go/faultline/spectra/instrument"
)

// pass instruments the functions of one file.
type pass struct {
	fset  *token.FileSet
	file  *token.File
	src   []byte
	opts  Options
	code  map[int]bool // lines holding code (instrument.CodeLines)
	res   *Result
	slots int // counters used so far
}

func newPass(fset *token.FileSet, f *ast.File, src []byte, opts Options) *pass {
	file := fset.File(f.Pos())
	return &pass{fset: fset, file: file, src: src, opts: opts, code: instrument.CodeLines(fset, file, src), res: &Result{}}
}

func (p *pass) off(pos token.Pos) int  { return p.file.Offset(pos) }
func (p *pass) line(pos token.Pos) int { return p.file.Line(pos) }

// role is what a go/cfg block becomes.
type role int

const (
	dropped     role = iota // unreachable
	probed                  // a block with a probe at its start
	transparent             // a block with no place for a probe: a loop header, a for loop's post statement
	contracted              // a case test merged into the block before it (the tests of one switch form one branch)
)

// site is where a block's probe goes.
type site struct {
	off   int         // insert at this offset
	after ast.Stmt    // or: right after this statement (a block after a control statement)
	wrap  *ast.IfStmt // or: inside braces wrapped around this "else if"
}

// shape is one function's graph under construction.
type shape struct {
	cfg     *cfg.CFG
	body    *ast.BlockStmt
	role    []role
	site    []site
	node    []int // go/cfg block -> graph block; -1 when dropped
	blocks  []Block
	edges   []Edge
	clauses map[ast.Node]int // case clause -> graph block that runs its body
	holders map[*cfg.Block]ast.Node
	results int // the function's results
}

func mayReturn(call *ast.CallExpr) bool {
	id, ok := call.Fun.(*ast.Ident)
	return !ok || id.Name != "panic"
}

// function instruments one function body.
func (p *pass) function(name string, typ *ast.FuncType, body *ast.BlockStmt) {
	funcPos := typ.Pos()
	g := cfg.New(body, mayReturn)
	sh := &shape{cfg: g, body: body, clauses: map[ast.Node]int{}, results: typ.Results.NumFields()}
	p.classify(sh)
	p.build(sh)
	p.attributeLines(sh)
	fn := Func{Name: name, Line: p.line(funcPos), Blocks: sh.blocks, Edges: sh.edges}
	p.probe(sh, &fn)
	p.res.Funcs = append(p.res.Funcs, fn)
}

// classify gives every go/cfg block its role and, when probed, its site.
func (p *pass) classify(sh *shape) {
	g := sh.cfg
	sh.role = make([]role, len(g.Blocks))
	sh.site = make([]site, len(g.Blocks))
	loopLabels := branchLabels(sh.body)
	sh.holders = defaultHolders(g, sh.body)
	for i, b := range g.Blocks {
		if !b.Live {
			continue
		}
		r, s := transparent, site{}
		at := func(pos token.Pos) { r, s = probed, site{off: p.off(pos)} }
		if i == 0 {
			at(sh.body.Lbrace + 1)
			sh.role[i], sh.site[i] = r, s
			continue
		}
		switch b.Kind {
		case cfg.KindIfThen:
			at(b.Stmt.(*ast.IfStmt).Body.Lbrace + 1)
		case cfg.KindIfElse:
			switch e := b.Stmt.(*ast.IfStmt).Else.(type) {
			case *ast.BlockStmt:
				at(e.Lbrace + 1)
			case *ast.IfStmt:
				r, s = probed, site{wrap: e}
			}
		case cfg.KindIfDone, cfg.KindForDone, cfg.KindRangeDone, cfg.KindSwitchDone, cfg.KindSelectDone:
			r, s = probed, site{after: b.Stmt}
		case cfg.KindForBody:
			at(b.Stmt.(*ast.ForStmt).Body.Lbrace + 1)
		case cfg.KindRangeBody:
			at(b.Stmt.(*ast.RangeStmt).Body.Lbrace + 1)
		case cfg.KindSwitchCaseBody:
			at(b.Stmt.(*ast.CaseClause).Colon + 1)
		case cfg.KindSelectCaseBody:
			at(b.Stmt.(*ast.CommClause).Colon + 1)
		case cfg.KindSwitchNextCase, cfg.KindSelectAfterCase:
			if def := sh.holders[b]; def != nil {
				at(colon(def) + 1)
			} else {
				r = contracted
			}
		case cfg.KindLabel:
			// A statement between a label and the loop, switch or select
			// it names would break "break L" and "continue L".
			if ls, ok := b.Stmt.(*ast.LabeledStmt); ok && !(isBreakable(ls.Stmt) && loopLabels[ls.Label.Name]) {
				at(ls.Stmt.Pos())
			}
		}
		sh.role[i], sh.site[i] = r, s
	}
	// A case test is merged into the block before it only when it has no
	// other predecessor; otherwise it stays, unprobed.
	preds := make([]int, len(g.Blocks))
	for _, b := range g.Blocks {
		if b.Live {
			for _, s := range b.Succs {
				preds[s.Index]++
			}
		}
	}
	for i, r := range sh.role {
		if r == contracted && preds[i] != 1 {
			sh.role[i] = transparent
		}
	}
}

func colon(c ast.Node) token.Pos {
	switch c := c.(type) {
	case *ast.CaseClause:
		return c.Colon
	case *ast.CommClause:
		return c.Colon
	}
	return token.NoPos
}

func isBreakable(s ast.Stmt) bool {
	switch s.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
		return true
	}
	return false
}

// inspect visits the nodes of a function body, not those of the function
// literals inside it, which are functions of their own.
func inspect(body ast.Node, visit func(ast.Node)) {
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n != nil {
			visit(n)
		}
		return true
	})
}

// branchLabels are the labels that break or continue statements name.
func branchLabels(body *ast.BlockStmt) map[string]bool {
	labels := map[string]bool{}
	inspect(body, func(n ast.Node) {
		if br, ok := n.(*ast.BranchStmt); ok && br.Label != nil && (br.Tok == token.BREAK || br.Tok == token.CONTINUE) {
			labels[br.Label.Name] = true
		}
	})
	return labels
}

// defaultHolders finds the blocks go/cfg puts the default clause's body in
// for type switches and selects: the last test block of the last other
// clause (go/cfg gives such a default no block of its own). A default
// without other clauses runs in the block before the statement.
func defaultHolders(g *cfg.CFG, body *ast.BlockStmt) map[*cfg.Block]ast.Node {
	holders := map[*cfg.Block]ast.Node{}
	note := func(clauses []ast.Stmt, kind cfg.BlockKind) {
		var def, last ast.Node
		for _, c := range clauses {
			switch c := c.(type) {
			case *ast.CaseClause:
				if c.List == nil {
					def = c
				} else {
					last = c
				}
			case *ast.CommClause:
				if c.Comm == nil {
					def = c
				} else {
					last = c
				}
			}
		}
		if def == nil || last == nil {
			return
		}
		var holder *cfg.Block
		for _, b := range g.Blocks {
			if b.Kind == kind && ast.Node(b.Stmt) == last && (holder == nil || b.Index > holder.Index) {
				holder = b
			}
		}
		if holder != nil {
			holders[holder] = def
		}
	}
	inspect(body, func(n ast.Node) {
		switch s := n.(type) {
		case *ast.TypeSwitchStmt:
			note(s.Body.List, cfg.KindSwitchNextCase)
		case *ast.SelectStmt:
			note(s.Body.List, cfg.KindSelectAfterCase)
		}
	})
	return holders
}

// build numbers the graph's blocks (virtual entry and exit first, then
// the kept go/cfg blocks) and its edges, merging contracted blocks into
// their predecessor.
func (p *pass) build(sh *shape) {
	g := sh.cfg
	sh.blocks = []Block{{Kind: "Entry", Probed: true}, {Kind: "Exit", Probed: true}}
	sh.node = make([]int, len(g.Blocks))
	preds := make([][]int, len(g.Blocks))
	for _, b := range g.Blocks {
		if b.Live {
			for _, s := range b.Succs {
				preds[s.Index] = append(preds[s.Index], int(b.Index))
			}
		}
	}
	for i, b := range g.Blocks {
		sh.node[i] = -1
		if r := sh.role[i]; r == probed || r == transparent {
			sh.node[i] = len(sh.blocks)
			sh.blocks = append(sh.blocks, Block{Kind: b.Kind.String(), Probed: r == probed})
		}
	}
	// A contracted block takes its predecessor's node; chains of them
	// resolve in index order, since a case test is created after the one
	// before it.
	var resolve func(i int) int
	resolve = func(i int) int {
		if sh.role[i] != contracted {
			return sh.node[i]
		}
		if sh.node[i] < 0 {
			sh.node[i] = -2 // being resolved: a cycle of case tests cannot happen
			sh.node[i] = resolve(preds[i][0])
		}
		return sh.node[i]
	}
	for i := range g.Blocks {
		if sh.role[i] == contracted {
			resolve(i)
		}
	}
	seen := map[Edge]bool{}
	add := func(e Edge) {
		if e.From >= 0 && e.To >= 0 && !seen[e] {
			seen[e] = true
			sh.edges = append(sh.edges, e)
		}
	}
	add(Edge{Entry, sh.node[0]})
	for i, b := range g.Blocks {
		if !b.Live {
			continue
		}
		for _, s := range b.Succs {
			if sh.role[s.Index] == contracted {
				continue // merged into this block
			}
			add(Edge{sh.node[i], sh.node[s.Index]})
		}
		if b.Return() != nil {
			add(Edge{sh.node[i], Exit})
		}
	}
}

// attributeLines gives each block the executable lines of its statements
// and expressions. A case clause's header (case x, y:) belongs to the
// block that runs its body, as in the coverage pass; the lines of a
// function literal's body to the literal; branch statements, and headers
// that evaluate nothing (for {, select {), to the block they are in.
func (p *pass) attributeLines(sh *shape) {
	g := sh.cfg
	for i, b := range g.Blocks {
		if sh.node[i] < 0 || !b.Live {
			continue
		}
		switch c := b.Stmt.(type) {
		case *ast.CaseClause, *ast.CommClause:
			if b.Kind == cfg.KindSwitchCaseBody || b.Kind == cfg.KindSelectCaseBody {
				sh.clauses[c] = sh.node[i]
			}
		}
	}
	for b, def := range sh.holders {
		if sh.node[b.Index] >= 0 {
			sh.clauses[def] = sh.node[b.Index]
		}
	}
	header := map[int]int{} // line -> block running the clause
	inspect(sh.body, func(n ast.Node) {
		var from, to token.Pos
		switch c := n.(type) {
		case *ast.CaseClause:
			from, to = c.Case, c.Colon
		case *ast.CommClause:
			from, to = c.Case, c.Colon
		default:
			return
		}
		if blk, ok := sh.clauses[n]; ok {
			for l := p.line(from); l <= p.line(to); l++ {
				header[l] = blk
			}
		}
	})
	lines := make([]map[int]bool, len(sh.blocks))
	own := func(blk, l int) {
		if !p.code[l] {
			return
		}
		if lines[blk] == nil {
			lines[blk] = map[int]bool{}
		}
		lines[blk][l] = true
	}
	for l, blk := range header {
		own(blk, l)
	}
	for i, b := range g.Blocks {
		blk := sh.node[i]
		if blk < 0 || !b.Live {
			continue
		}
		for _, n := range b.Nodes {
			if ret, ok := n.(*ast.ReturnStmt); ok && ret.Return == sh.body.Rbrace {
				continue // the implicit return at the closing brace
			}
			for l := range p.nodeLines(n) {
				if _, ok := header[l]; !ok {
					own(blk, l)
				}
			}
		}
	}
	p.statementLines(sh, lines, own)
	for blk := range sh.blocks {
		for l := range lines[blk] {
			sh.blocks[blk].Lines = append(sh.blocks[blk].Lines, l)
		}
		slices.Sort(sh.blocks[blk].Lines)
	}
	for i, b := range g.Blocks {
		blk := sh.node[i]
		if blk < 0 || !b.Live || sh.blocks[blk].Line != 0 {
			continue
		}
		switch {
		case len(sh.blocks[blk].Lines) > 0:
			sh.blocks[blk].Line = sh.blocks[blk].Lines[0]
		case sh.role[i] == probed && sh.site[i].after != nil:
			sh.blocks[blk].Line = p.line(sh.site[i].after.End())
		case sh.role[i] == probed && sh.site[i].wrap != nil:
			sh.blocks[blk].Line = p.line(sh.site[i].wrap.Pos())
		case sh.role[i] == probed:
			sh.blocks[blk].Line = p.file.Line(p.file.Pos(sh.site[i].off))
		case b.Stmt != nil:
			sh.blocks[blk].Line = p.line(b.Stmt.Pos())
		}
	}
}

// nodeLines are the lines of a node, less those inside the bodies of
// function literals in it.
func (p *pass) nodeLines(n ast.Node) map[int]bool {
	lines := map[int]bool{}
	for l := p.line(n.Pos()); l <= p.line(n.End()); l++ {
		lines[l] = true
	}
	ast.Inspect(n, func(m ast.Node) bool {
		if lit, ok := m.(*ast.FuncLit); ok {
			for l := p.line(lit.Body.Lbrace) + 1; l < p.line(lit.Body.Rbrace); l++ {
				delete(lines, l)
			}
			return false
		}
		return true
	})
	return lines
}

// statementLines gives the lines go/cfg keeps no node for (branch
// statements, control statements' headers that evaluate nothing, type and
// constant declarations) to the
// block that is current where they stand, found by walking the statement
// lists as go/cfg does.
func (p *pass) statementLines(sh *shape, lines []map[int]bool, own func(blk, line int)) {
	g := sh.cfg
	type key struct {
		stmt ast.Node
		kind cfg.BlockKind
	}
	blockOf := map[key]int{}     // control statement and kind -> block
	nodeOf := map[ast.Node]int{} // simple statement -> block
	for i, b := range g.Blocks {
		if !b.Live || sh.node[i] < 0 {
			continue
		}
		if b.Stmt != nil {
			blockOf[key{b.Stmt, b.Kind}] = sh.node[i]
		}
		for _, n := range b.Nodes {
			nodeOf[n] = sh.node[i]
		}
	}
	owned := func(l int) bool {
		for _, m := range lines {
			if m[l] {
				return true
			}
		}
		return false
	}
	header := func(s ast.Stmt, lbrace token.Pos, cur int) {
		if cur < 0 {
			return
		}
		for l := p.line(s.Pos()); l <= p.line(lbrace); l++ {
			if !owned(l) {
				own(cur, l)
			}
		}
	}
	of := func(s ast.Node, kind cfg.BlockKind) int {
		if b, ok := blockOf[key{s, kind}]; ok {
			return b
		}
		return -1
	}
	var list func(stmts []ast.Stmt, cur int) int
	var stmt func(s ast.Stmt, cur int) int
	list = func(stmts []ast.Stmt, cur int) int {
		for _, s := range stmts {
			cur = stmt(s, cur)
		}
		return cur
	}
	clauses := func(body *ast.BlockStmt) {
		for _, c := range body.List {
			var inner []ast.Stmt
			switch c := c.(type) {
			case *ast.CaseClause:
				inner = c.Body
			case *ast.CommClause:
				inner = c.Body
			}
			if blk, ok := sh.clauses[c]; ok {
				list(inner, blk)
			}
		}
	}
	// stmt attributes the lines of s and returns the block current after
	// it (-1 when nothing after it runs).
	stmt = func(s ast.Stmt, cur int) int {
		switch s := s.(type) {
		case *ast.BranchStmt:
			if cur >= 0 {
				for l := range p.nodeLines(s) {
					own(cur, l)
				}
			}
			return -1
		case *ast.ReturnStmt:
			return -1
		case *ast.LabeledStmt:
			if blk := of(s, cfg.KindLabel); blk >= 0 {
				cur = blk
			}
			return stmt(s.Stmt, cur)
		case *ast.BlockStmt:
			return list(s.List, cur)
		case *ast.IfStmt:
			header(s, s.Body.Lbrace, cur)
			list(s.Body.List, of(s, cfg.KindIfThen))
			switch e := s.Else.(type) {
			case *ast.BlockStmt:
				list(e.List, of(s, cfg.KindIfElse))
			case *ast.IfStmt:
				stmt(e, of(s, cfg.KindIfElse))
			}
			return of(s, cfg.KindIfDone)
		case *ast.ForStmt:
			header(s, s.Body.Lbrace, cur)
			list(s.Body.List, of(s, cfg.KindForBody))
			return of(s, cfg.KindForDone)
		case *ast.RangeStmt:
			header(s, s.Body.Lbrace, cur)
			list(s.Body.List, of(s, cfg.KindRangeBody))
			return of(s, cfg.KindRangeDone)
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			var body *ast.BlockStmt
			done := cfg.KindSwitchDone
			switch s := s.(type) {
			case *ast.SwitchStmt:
				body = s.Body
			case *ast.TypeSwitchStmt:
				body = s.Body
			case *ast.SelectStmt:
				body, done = s.Body, cfg.KindSelectDone
			}
			header(s, body.Lbrace, cur)
			clauses(body)
			return of(s, done)
		case *ast.ExprStmt:
			if call, ok := s.X.(*ast.CallExpr); ok && !mayReturn(call) {
				return -1
			}
		case *ast.DeclStmt:
			// go/cfg keeps a var declaration's specs, not its "var (".
			if d, ok := s.Decl.(*ast.GenDecl); ok && len(d.Specs) > 0 {
				if blk, ok := nodeOf[d.Specs[0]]; ok {
					cur = blk
				}
			}
		}
		if blk, ok := nodeOf[s]; ok {
			return blk
		}
		// A statement go/cfg keeps no node for (a type or constant
		// declaration) belongs to the block it stands in.
		if cur >= 0 {
			for l := range p.nodeLines(s) {
				if !owned(l) {
					own(cur, l)
				}
			}
		}
		return cur
	}
	list(sh.body.List, sh.node[0])
}
