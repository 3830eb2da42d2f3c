package blockrank

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fig1 is the worked example of the paper (Fig. 1, SIR schedule v2): the
// edge counts of three passing and three failing runs, with a virtual
// entry b0 whose edge into b1 counts b1's entries, so that T(b1) = 1.
//
//	e0 b0→b1, e1 b1→b4, e2 b1→b2, e3 b2→b4, e4 b2→b3, e5 b3→b4
func fig1() (Graph, Evidence) {
	g := Graph{Blocks: 5, Edges: []Edge{{0, 1}, {1, 4}, {1, 2}, {2, 4}, {2, 3}, {3, 4}}}
	runs := [][6]float64{ // per run: e0 … e5
		{22, 19, 3, 2, 1, 1},  // t1
		{17, 12, 5, 3, 2, 2},  // t2
		{22, 20, 2, 1, 1, 1},  // t3
		{25, 18, 7, 2, 5, 5},  // t'1
		{29, 18, 11, 1, 8, 8}, // t'2: b2 crashes in 2 of its 11 entries
		{25, 15, 10, 4, 2, 2}, // t'3: b2 crashes in 4 of its 10 entries
	}
	ev := Evidence{Passing: make([]float64, 6), Failing: make([]float64, 6), PassingRuns: 3, FailingRuns: 3}
	for r, run := range runs {
		for e, n := range run {
			if r < 3 {
				ev.Passing[e] += n
			} else {
				ev.Failing[e] += n
			}
		}
	}
	return g, ev
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestFig1Delta(t *testing.T) {
	g, ev := fig1()
	res, err := Solve(g, ev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The paper's suspicious edge profile: 0, 6, 1/3, 11/3, 11/3.
	for i, want := range []float64{6, 0, 6, 1.0 / 3, 11.0 / 3, 11.0 / 3} {
		if !near(res.Delta[i], want) {
			t.Errorf("Δ(e%d) = %v, want %v", i, res.Delta[i], want)
		}
	}
	if got := res.Blocks[2].T; !near(got, 16.0/19) {
		t.Errorf("T(b2) = %v, want 16/19", got)
	}
	for b, want := range map[int]float64{1: 1, 3: 1, 4: 0} {
		if got := res.Blocks[b].T; !near(got, want) {
			t.Errorf("T(b%d) = %v, want %v", b, got, want)
		}
	}
	if got := res.Blocks[2].I; !near(got, 6) {
		t.Errorf("I(b2) = %v, want 6", got)
	}
	if got := res.Blocks[4].I; !near(got, 4) {
		t.Errorf("I(b4) = %v, want 4", got)
	}
}

// TestFig1Calibrated is the paper's own computation: 4.00, 82/19 (4.32),
// 11/3 (3.67) and 4.00 for b1 … b4, so b2, the faulty block, ranks first.
func TestFig1Calibrated(t *testing.T) {
	g, ev := fig1()
	res, err := Solve(g, ev, Options{Mode: Calibrated})
	if err != nil {
		t.Fatal(err)
	}
	for b, want := range map[int]float64{1: 4, 2: 82.0 / 19, 3: 11.0 / 3, 4: 4} {
		if got := res.Blocks[b].BR; !near(got, want) {
			t.Errorf("BR'(b%d) = %v, want %v", b, got, want)
		}
	}
	// b2's explanation: (16/19)·4 passed back by its successors, (3/19)·6
	// its own share of the runs that stop in it.
	if s := res.Blocks[2]; !near(s.Successors, 64.0/19) || !near(s.Local, 18.0/19) {
		t.Errorf("b2 parts = %v + %v, want 64/19 + 18/19", s.Successors, s.Local)
	}
	if !res.Converged || res.Iterations != 0 {
		t.Errorf("acyclic graph: converged %v after %d iterations, want back-substitution", res.Converged, res.Iterations)
	}
}

// TestFig1Full solves eq. (8) as one system: the calibration of b2 reaches
// b1, which then ties with the fault.
func TestFig1Full(t *testing.T) {
	g, ev := fig1()
	res, err := Solve(g, ev, Options{Mode: Full})
	if err != nil {
		t.Fatal(err)
	}
	for b, want := range map[int]float64{0: 82.0 / 19, 1: 82.0 / 19, 2: 82.0 / 19, 3: 11.0 / 3, 4: 4} {
		if got := res.Blocks[b].BR; !near(got, want) {
			t.Errorf("BR(b%d) = %v, want %v", b, got, want)
		}
	}
}

// randomGraph is a function-like graph: an entry 0, an exit n−1, every
// block reachable from the entry, forward edges and, with loops, back
// edges.
func randomGraph(r *rand.Rand, n int, loops bool) Graph {
	g := Graph{Blocks: n}
	for b := 1; b < n; b++ {
		g.Edges = append(g.Edges, Edge{r.IntN(b), b})
	}
	for range n {
		from, to := r.IntN(n-1), r.IntN(n-1)+1
		if from < to || loops && to > 0 {
			g.Edges = append(g.Edges, Edge{from, to})
		}
	}
	return g
}

func TestNoDifferenceScoresZero(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		g := randomGraph(r, 2+r.IntN(20), trial%2 == 1)
		ev := Evidence{PassingRuns: 1 + r.IntN(5), FailingRuns: 1 + r.IntN(5)}
		for range g.Edges {
			mean := float64(r.IntN(50))
			ev.Passing = append(ev.Passing, mean*float64(ev.PassingRuns))
			ev.Failing = append(ev.Failing, mean*float64(ev.FailingRuns))
		}
		for _, mode := range []Mode{Full, Calibrated} {
			res, err := Solve(g, ev, Options{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			for b, s := range res.Blocks {
				if s.BR != 0 {
					t.Fatalf("trial %d %v: Δ = 0 everywhere but BR(b%d) = %v", trial, mode, b, s.BR)
				}
			}
		}
	}
}

// walks adds to counts the edge traversals of k runs that start at the
// entry and follow random successors other than avoid until a block
// without one (a return, or a block they cannot leave but by avoid).
func walks(r *rand.Rand, g Graph, succ [][]int, avoid, k int, counts []float64) {
	for range k {
		for b := 0; ; {
			var out []int
			for _, e := range succ[b] {
				if g.Edges[e].To != avoid {
					out = append(out, e)
				}
			}
			if len(out) == 0 {
				break
			}
			e := out[r.IntN(len(out))]
			counts[e]++
			b = g.Edges[e].To
		}
	}
}

// TestFailingOnlyBlockOutranksSiblings: failing runs behave as passing
// runs do (the same mean profile), plus extra runs along one path through
// block x, which passing runs never reach; the extra runs end in a block
// without successors (a return) or stop inside the path's last block (a
// crash). x then outranks every successor of its predecessor off that
// path. In the calibrated reading a crash counts only in the block it
// happens in (calibration does not propagate), so there x must be that
// block.
func TestFailingOnlyBlockOutranksSiblings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for trial := range 300 {
		n := 4 + r.IntN(16)
		g := randomGraph(r, n, false)
		succ := make([][]int, n) // edge indices by source
		for i, e := range g.Edges {
			succ[e.From] = append(succ[e.From], i)
		}
		crash := trial%2 == 0
		var path []int // edges
		onPath := map[int]bool{0: true}
		for b := 0; len(succ[b]) > 0; {
			if crash && len(path) > 0 && r.IntN(3) == 0 {
				break
			}
			e := succ[b][r.IntN(len(succ[b]))]
			path = append(path, e)
			b = g.Edges[e].To
			onPath[b] = true
		}
		if len(path) == 0 {
			continue
		}
		k := r.IntN(len(path))
		x, parent := g.Edges[path[k]].To, g.Edges[path[k]].From
		ev := Evidence{PassingRuns: 10, FailingRuns: 10, Passing: make([]float64, len(g.Edges))}
		walks(r, g, succ, x, 10*(1+r.IntN(5)), ev.Passing)
		ev.Failing = slices.Clone(ev.Passing)
		extra := float64(1 + r.IntN(5))
		for _, e := range path {
			ev.Failing[e] += 10 * extra
		}
		for _, mode := range []Mode{Full, Calibrated} {
			if mode == Calibrated && crash && k != len(path)-1 {
				continue
			}
			res, err := Solve(g, ev, Options{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range succ[parent] {
				sib := g.Edges[e].To
				if onPath[sib] {
					continue
				}
				checked++
				if !(res.Blocks[x].BR > res.Blocks[sib].BR) {
					t.Fatalf("trial %d %v: BR(x=b%d) = %v does not outrank sibling b%d = %v (crash %v)",
						trial, mode, x, res.Blocks[x].BR, sib, res.Blocks[sib].BR, crash)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d sibling comparisons made", checked)
	}
}

// loop is a function with one loop: entry 0 → header 1; header → body 2
// and → exit 3; body → header (the back edge). Passing runs enter the loop
// once and iterate it 3 times; failing runs iterate it 5 times, and with
// enterMore enter it twice as often, so that Δ reaches the loop from
// outside; with crash, failing runs stop in the body once.
func loop(enterMore, crash bool) (Graph, Evidence) {
	g := Graph{Blocks: 4, Edges: []Edge{{0, 1}, {1, 2}, {2, 1}, {1, 3}}}
	pass := []float64{1, 3, 3, 1}
	fail := []float64{1, 5, 5, 1}
	if enterMore {
		fail = []float64{2, 10, 10, 2}
	}
	if crash {
		fail[2]-- // one entry of the body never leaves it
		fail[3]--
	}
	return g, Evidence{Passing: pass, Failing: fail, PassingRuns: 1, FailingRuns: 1}
}

// residual is max |BR − (A·BR + c)| of the full system.
func residual(g Graph, res *Result) float64 {
	w := make([]float64, len(g.Edges))
	for i, e := range g.Edges {
		if in := res.Blocks[e.To].I; in != 0 {
			w[i] = res.Delta[i] / in
		}
	}
	worst := 0.0
	for b, s := range res.Blocks {
		v := (1 - s.T) * s.I
		for i, e := range g.Edges {
			if e.From == b {
				v += s.T * w[i] * res.Blocks[e.To].BR
			}
		}
		worst = math.Max(worst, math.Abs(v-res.Blocks[b].BR))
	}
	return worst
}

func TestLoopConverges(t *testing.T) {
	g, ev := loop(true, false)
	res, err := Solve(g, ev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.Iterations == 0 {
		t.Fatalf("converged %v after %d iterations (%s)", res.Converged, res.Iterations, res.Resolution)
	}
	if r := residual(g, res); r > 1e-8 {
		t.Errorf("residual %v", r)
	}
	// Δ: entry 1, header→body 7, back edge 7, exit 1; I(header) = 8, so
	// W(body, header) = 7/8: the loop passes back 7/8 of the header's score
	// each time round. BR(exit) = I(exit) = 1, BR(header) = BR(body) + 1,
	// BR(body) = 7/8·BR(header): 8 and 7; the entry gets 1/8 of 8.
	for b, want := range map[int]float64{0: 1, 1: 8, 2: 7, 3: 1} {
		if got := res.Blocks[b].BR; math.Abs(got-want) > 1e-8 {
			t.Errorf("BR(b%d) = %v, want %v", b, got, want)
		}
	}
}

// TestRandomLoopsConverge: graphs with back edges whose failing runs enter
// them more often than passing runs do settle, to the solution of the
// system.
func TestRandomLoopsConverge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	loops := 0
	for trial := range 200 {
		g := randomGraph(r, 3+r.IntN(12), true)
		ev := Evidence{PassingRuns: 1, FailingRuns: 1}
		for range g.Edges {
			p := float64(1 + r.IntN(10))
			ev.Passing = append(ev.Passing, p)
			ev.Failing = append(ev.Failing, p*(1.5+r.Float64()))
		}
		res, err := Solve(g, ev, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Iterations > 0 {
			loops++
		}
		if res.Converged {
			if rr := residual(g, res); rr > 1e-6*math.Max(1, maxBR(res)) {
				t.Errorf("trial %d: converged with residual %v", trial, rr)
			}
		}
	}
	if loops < 50 {
		t.Fatalf("only %d graphs had loops", loops)
	}
}

func maxBR(res *Result) float64 {
	m := 0.0
	for _, s := range res.Blocks {
		m = math.Max(m, math.Abs(s.BR))
	}
	return m
}

// TestDivergentLoopSolvedDirectly: failing runs call the function less
// often (Δ of the entry edge −1) but iterate its loop more (back edge +3),
// so the back edge passes 3/2 of the header's score round the loop:
// iteration diverges, which is reported, and the system is solved
// directly. BR(exit) = I(exit) = −1, BR(header) = BR(body) − 1,
// BR(body) = 3/2·BR(header): 2 and 3.
func TestDivergentLoopSolvedDirectly(t *testing.T) {
	g := Graph{Blocks: 4, Edges: []Edge{{0, 1}, {1, 2}, {2, 1}, {1, 3}}}
	ev := Evidence{Passing: []float64{2, 4, 4, 2}, Failing: []float64{1, 7, 7, 1}, PassingRuns: 1, FailingRuns: 1}
	res, err := Solve(g, ev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged || !strings.Contains(res.Resolution, "solved directly") {
		t.Fatalf("converged %v (%q)", res.Converged, res.Resolution)
	}
	for b, want := range map[int]float64{1: 2, 2: 3, 3: -1} {
		if got := res.Blocks[b].BR; math.Abs(got-want) > 1e-9 {
			t.Errorf("BR(b%d) = %v, want %v", b, got, want)
		}
	}
}

// TestSingularLoopReported: counts no real run makes (more exits than
// entries) give the loop gain 1 with a feed from outside; the system is
// singular, which is reported, and the scores stay finite.
func TestSingularLoopReported(t *testing.T) {
	g := Graph{Blocks: 4, Edges: []Edge{{0, 1}, {1, 2}, {2, 1}, {1, 3}}}
	ev := Evidence{Passing: []float64{1, 3, 3, 1}, Failing: []float64{1, 5, 5, 2}, PassingRuns: 1, FailingRuns: 1}
	res, err := Solve(g, ev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged || !strings.Contains(res.Resolution, "singular") {
		t.Fatalf("converged %v (%q)", res.Converged, res.Resolution)
	}
	for b, s := range res.Blocks {
		if math.IsNaN(s.BR) || math.IsInf(s.BR, 0) {
			t.Errorf("BR(b%d) = %v", b, s.BR)
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := Solve(Graph{Blocks: 2, Edges: []Edge{{0, 2}}}, Evidence{Passing: []float64{1}, Failing: []float64{1}}, Options{}); err == nil {
		t.Error("an edge outside the graph was accepted")
	}
	if _, err := Solve(Graph{Blocks: 2, Edges: []Edge{{0, 1}}}, Evidence{}, Options{}); err == nil {
		t.Error("evidence of the wrong length was accepted")
	}
}
