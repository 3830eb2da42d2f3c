package edges

import (
	"fmt"
	"slices"

	"faultline/internal/testbuild"
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
	count := func(col int) string {
		var index string
		switch len(rows[col]) {
		case 0:
			return ""
		case 1:
			index = fmt.Sprint(p.opts.FirstID + base + disp[rows[col][0]] + col)
		default:
			index = fmt.Sprintf("%s+%d", n.Prev, p.opts.FirstID+base+col)
		}
		if p.opts.Atomic {
			return fmt.Sprintf("%s.AddUint32(&%s[%s], 1);", n.Atomic, n.Edges, index)
		}
		return fmt.Sprintf("%s[%s]++;", n.Edges, index)
	}
	enter := func(blk int) string { return count(blk) + fmt.Sprintf("%s = %d;", n.Prev, disp[blk]) }

	g := sh.cfg
	for i, b := range g.Blocks {
		if sh.role[i] != probed {
			continue
		}
		blk := sh.node[i]
		s := sh.site[i]
		switch {
		case i == 0:
			p.insert(s.off, fmt.Sprintf("%s := %d; _ = %s; %s", n.Prev, disp[blk], n.Prev, count(blk)))
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
			if ret.Return == sh.body.Rbrace {
				p.insert(p.off(sh.body.Rbrace), ";"+count(Exit))
			} else {
				p.insert(p.off(ret.Pos()), count(Exit))
			}
		}
	}
	// Returns in blocks that are not probed (a case test merged into the
	// block before it cannot hold one) count from the block they merged
	// into.
	for i, b := range g.Blocks {
		if ret := b.Return(); ret != nil && b.Live && sh.role[i] != probed && sh.node[i] >= 0 {
			if ret.Return == sh.body.Rbrace {
				p.insert(p.off(sh.body.Rbrace), ";"+count(Exit))
			} else {
				p.insert(p.off(ret.Pos()), count(Exit))
			}
		}
	}
}

func (p *pass) insert(off int, text string) {
	p.res.Edits = append(p.res.Edits, testbuild.Insert(off, text))
}
