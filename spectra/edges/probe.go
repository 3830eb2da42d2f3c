package edges

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// pair is a (row, column) of a function's counters: control went from
// probed block row to probed block col (or the exit) along path.
type pair struct {
	row, col int
	path     []int // edge indices
}

// pairs enumerates what the probes can record: from each probed block
// (and the virtual entry) to each probed block (or the virtual exit) it
// reaches through unprobed blocks only, with the path taken.
func pairs(fn *Func) ([]pair, int) {
	out := make([][]int, len(fn.Blocks)) // block -> edges leaving it
	for i, e := range fn.Edges {
		out[e.From] = append(out[e.From], i)
	}
	var all []pair
	ambiguous := 0
	for row, b := range fn.Blocks {
		if !b.Probed || row == Exit {
			continue
		}
		found := map[int]bool{}
		onPath := map[int]bool{}
		var walk func(at int, path []int)
		walk = func(at int, path []int) {
			for _, e := range out[at] {
				to := fn.Edges[e].To
				p := append(slices.Clip(path), e)
				if fn.Blocks[to].Probed {
					if found[to] {
						ambiguous++
						continue
					}
					found[to] = true
					all = append(all, pair{row, to, p})
					continue
				}
				if onPath[to] {
					continue // a loop of unprobed blocks records nothing
				}
				onPath[to] = true
				walk(to, p)
				onPath[to] = false
			}
		}
		walk(row, nil)
	}
	return all, ambiguous
}

// straight reports whether a function is one block between its entry and
// its return.
func straight(fn *Func) bool {
	return len(fn.Blocks) == 3 && len(fn.Edges) == 2 &&
		fn.Edges[0] == Edge{Entry, 2} && fn.Edges[1] == Edge{2, Exit}
}

// displace places each row's columns in one array so that no two pairs
// share a counter (row displacement): counter(row, col) = disp[row] + col.
// Rows with more pairs are placed first, each at the lowest free offset.
func displace(blocks int, ps []pair) (disp []int, size int) {
	cols := make([][]int, blocks)
	for _, p := range ps {
		cols[p.row] = append(cols[p.row], p.col)
	}
	rows := make([]int, 0, blocks)
	for r := range cols {
		if len(cols[r]) > 0 {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b int) int { return len(cols[b]) - len(cols[a]) })
	disp = make([]int, blocks)
	var used []bool
	for _, r := range rows {
		for d := 0; ; d++ {
			free := true
			for _, c := range cols[r] {
				if d+c < len(used) && used[d+c] {
					free = false
					break
				}
			}
			if !free {
				continue
			}
			disp[r] = d
			for _, c := range cols[r] {
				for d+c >= len(used) {
					used = append(used, false)
				}
				used[d+c] = true
			}
			break
		}
	}
	return disp, len(used)
}

// probe numbers the function's counters and adds its probes to the file's
// edits.
func (p *pass) probe(sh *shape, fn *Func) {
	ps, ambiguous := pairs(fn)
	p.res.Ambiguous += ambiguous
	if straight(fn) {
		// One block from entry to return: its entry counter counts the
		// return too, and the function costs the inliner one increment, as
		// the coverage pass's. Small functions stay inlinable, so that
		// instrumentation changes no allocation a test may count (a panic
		// inside still leaves the caller's block without its way out).
		ps = []pair{{row: Entry, col: fn.Edges[0].To, path: []int{0, 1}}}
	}
	disp, size := displace(len(fn.Blocks), ps)
	base := p.slots
	p.slots += size
	p.res.Slots = append(p.res.Slots, make([][]int32, size)...)
	rows := make([][]int, len(fn.Blocks)) // col -> rows pairing with it
	for _, pr := range ps {
		slot := base + disp[pr.row] + pr.col
		for _, e := range pr.path {
			p.res.Slots[slot] = append(p.res.Slots[slot], int32(p.res.Edges+e))
		}
		rows[pr.col] = append(rows[pr.col], pr.row)
	}
	p.res.Edges += len(fn.Edges)

	n := p.opts.Names
	// count is the statement that counts arriving at col: a constant
	// counter when only one row can precede it.
	// index is the counter of arriving at col, "" when nothing can arrive.
	index := func(col int) string {
		switch len(rows[col]) {
		case 0:
			return ""
		case 1:
			return fmt.Sprint(p.opts.FirstID + base + disp[rows[col][0]] + col)
		}
		return fmt.Sprintf("%s+%d", n.Prev, p.opts.FirstID+base+col)
	}
	count := func(col int) string {
		index := index(col)
		if index == "" {
			return ""
		}
		if p.opts.Atomic {
			return fmt.Sprintf("%s.AddUint32(&%s[%s], 1);", n.Atomic, n.Edges, index)
		}
		return fmt.Sprintf("%s[%s]++;", n.Edges, index)
	}
	// The row of the block last entered is kept only when some block can
	// be reached from several: otherwise every counter is a constant and
	// the function carries no variable.
	tracked := false
	for _, r := range rows {
		tracked = tracked || len(r) > 1
	}
	enter := func(blk int) string {
		if !tracked {
			return count(blk)
		}
		return count(blk) + fmt.Sprintf("%s = %d;", n.Prev, disp[blk])
	}

	g := sh.cfg
	for i, b := range g.Blocks {
		if sh.role[i] != probed {
			continue
		}
		blk := sh.node[i]
		s := sh.site[i]
		switch {
		case i == 0 && tracked:
			p.insert(s.off, fmt.Sprintf("%s := %d; _ = %s; %s", n.Prev, disp[blk], n.Prev, count(blk)))
		case i == 0:
			p.insert(s.off, count(blk))
		case s.after != nil:
			// Inside any braces wrapped around the statement itself
			// (an "else if" of the coverage pass or this one).
			end, start := p.off(s.after.End()), p.off(s.after.Pos())
			p.res.Edits = append(p.res.Edits, testbuild.Edit{Off: end, Text: ";" + enter(blk), Close: true, Span: end - start - 1})
		case s.wrap != nil:
			start, end := p.off(s.wrap.Pos()), p.off(s.wrap.End())
			p.insert(start, "{"+enter(blk))
			p.res.Edits = append(p.res.Edits, testbuild.Edit{Off: end, Text: "}", Close: true, Span: end - start})
		default:
			p.insert(s.off, enter(blk))
		}
		if ret := b.Return(); ret != nil {
			p.exit(sh, ret, index(Exit), count(Exit))
		}
	}
	// Returns in blocks that are not probed (a case test merged into the
	// block before it cannot hold one) count from the block they merged
	// into.
	for i, b := range g.Blocks {
		if ret := b.Return(); ret != nil && b.Live && sh.role[i] != probed && sh.node[i] >= 0 {
			p.exit(sh, ret, index(Exit), count(Exit))
		}
	}
}

// exit counts a return. A return whose results may panic while they are
// evaluated (return xs[i]) counts once they are: one result expression is
// passed through Names.Pass, which counts and gives it back; others count
// before the statement.
func (p *pass) exit(sh *shape, ret *ast.ReturnStmt, index, count string) {
	switch {
	case count == "":
	case ret.Return == sh.body.Rbrace:
		p.insert(p.off(sh.body.Rbrace), ";"+count)
	default:
		k := passThrough(ret, sh.results)
		if k < 0 {
			p.insert(p.off(ret.Pos()), count)
			return
		}
		e := ret.Results[k]
		start, end := p.off(e.Pos()), p.off(e.End())
		p.res.Generic = true
		p.res.Edits = append(p.res.Edits,
			testbuild.Edit{Off: start, Text: fmt.Sprintf("%s(&%s[%s], ", p.opts.Names.Pass, p.opts.Names.Edges, index), Span: end - start},
			testbuild.Edit{Off: end, Text: ")", Close: true, Span: end - start})
	}
}

// passThrough chooses the result expression of a return to count through:
// the only one that may panic, or the last of several that may when they
// all are calls (calls are evaluated in order, other operations not). It
// returns -1 when none may panic, when the order is unknown, or when
// passing the expression through a generic function could change its
// type: a comparison (an untyped bool), a shift of a constant, a call that
// may give several results.
func passThrough(ret *ast.ReturnStmt, results int) int {
	if len(ret.Results) != results || len(ret.Results) == 0 {
		return -1 // return f() of a function giving several results
	}
	chosen, calls := -1, true
	for i, e := range ret.Results {
		if !mayPanic(e) {
			continue
		}
		if !typed(e) {
			return -1
		}
		if _, ok := ast.Unparen(e).(*ast.CallExpr); !ok {
			calls = false
		}
		if chosen >= 0 && !calls {
			return -1
		}
		chosen = i
	}
	return chosen
}

// mayPanic reports whether evaluating e may panic: it calls, indexes,
// slices, dereferences, asserts a type or divides. (Selectors are left out:
// a package's constant cannot be told from a field of a nil pointer.)
func mayPanic(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.SliceExpr, *ast.StarExpr, *ast.TypeAssertExpr:
			found = true
		case *ast.BinaryExpr:
			if n.Op == token.QUO || n.Op == token.REM {
				found = true
			}
		}
		return !found
	})
	return found
}

// typed reports whether e surely has a type of its own, which passing it
// through a generic function keeps: a call, an index, a slice expression,
// a dereference, a type assertion, a composite literal or a function
// literal, a field of one, or arithmetic on one. An identifier or a
// literal may be an untyped constant, a comparison is an untyped bool,
// and the type of a shift of an untyped constant comes from its context.
func typed(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.SliceExpr, *ast.StarExpr, *ast.TypeAssertExpr, *ast.CompositeLit, *ast.FuncLit:
		return true
	case *ast.SelectorExpr:
		return typed(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return false
		case token.SHL, token.SHR:
			return typed(e.X)
		}
		return typed(e.X) || typed(e.Y)
	case *ast.UnaryExpr:
		return e.Op != token.NOT && typed(e.X)
	}
	return false
}

func (p *pass) insert(off int, text string) {
	p.res.Edits = append(p.res.Edits, testbuild.Insert(off, text))
}
