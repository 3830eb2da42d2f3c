// Package blockrank computes BlockRank (Zhang, Chan, Tse and Jiang,
// "Precise Propagation of Fault-Failure Correlations in Program Flow
// Graphs", COMPSAC 2011): it ranks the basic blocks of control-flow graphs
// from the mean edge profiles of passing and failing runs, propagating each
// edge's increase in traversals backwards over the graph, with the measured
// block transition rate in place of PageRank's damping factor.
//
// The paper's displayed equations are lost from its text; this package
// implements their reconstruction, checked against every number of the
// paper's worked example (Fig. 1):
//
//	Δ(e)      = mean failing traversals of e − mean passing traversals of e
//	I(b)      = Σ Δ(e) over the edges e into b
//	W(b, s)   = Δ(edge(b, s)) / I(s), or 0 when I(s) = 0
//	T(b)      = traversals leaving b / traversals entering b, over all runs
//	BR(b)     = T(b) · Σ_s W(b, s)·BR(s) + (1 − T(b)) · I(b)
//
// One linear system per graph. Strongly connected parts without a cycle are
// solved exactly by back-substitution; loops by bounded iteration, whose
// non-convergence is reported (and then solved directly where the system
// is not singular).
//
// The paper's worked example does not solve that system as written: it
// propagates without the T factor and calibrates each block by T once
// afterwards, so the calibration of one block does not reach its
// predecessors. Both readings are available (Mode). It is pure computation:
// graphs and counts in, scores out.
package blockrank

import (
	"fmt"
	"math"
)

// Mode chooses how the equations are solved.
type Mode int

const (
	// Full solves BR = T·W·BR + (1−T)·I as one simultaneous system: the
	// transition rate of a block reaches its predecessors. On Fig. 1 it
	// gives BR(b1) = BR(b2) = 82/19.
	Full Mode = iota
	// Calibrated reproduces the paper's worked example: scores are first
	// propagated without the T factor (blocks without successors keep
	// their I), then each block is calibrated once,
	// BR(b) = T(b)·Σ_s W(b,s)·BR₀(s) + (1−T(b))·I(b). On Fig. 1 it gives
	// BR(b2) = 82/19 and BR(b1) = 4.
	Calibrated
)

func (m Mode) String() string {
	switch m {
	case Full:
		return "full"
	case Calibrated:
		return "calibrated"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads a mode's name.
func ParseMode(name string) (Mode, error) {
	switch name {
	case "full", "":
		return Full, nil
	case "calibrated", "paper":
		return Calibrated, nil
	}
	return Full, fmt.Errorf("unknown BlockRank mode %q (full or calibrated)", name)
}

// DefaultMaxIterations bounds the iteration over a loop: the paper's (and
// PageRank's) 200.
const DefaultMaxIterations = 200

// Options tune a solve. The zero value is the full system with the
// paper's iteration bound.
type Options struct {
	Mode          Mode
	MaxIterations int     // 0: DefaultMaxIterations
	Tolerance     float64 // relative change that ends an iteration; 0: 1e-10
}

// Graph is one function's control-flow graph: blocks 0..Blocks−1 and the
// edges between them. Parallel edges are allowed and act as one.
type Graph struct {
	Blocks int
	Edges  []Edge
}

// Edge is one control-flow edge.
type Edge struct{ From, To int }

// Evidence is what the runs say about one graph: the traversals of each
// edge summed over the passing runs and over the failing runs (parallel to
// Graph.Edges), and how many runs of each kind there were (the same for
// every graph of a program).
type Evidence struct {
	Passing, Failing []float64
	PassingRuns      int
	FailingRuns      int
}

// Score is one block's BlockRank and the parts that make it up.
type Score struct {
	BR         float64
	Successors float64 // T·Σ_s W(b,s)·BR(s): what the block's successors pass back to it
	Local      float64 // (1−T)·I: the block's own share, for runs that stop in it
	T          float64 // transition rate: traversals out / traversals in
	I          float64 // Σ Δ over the edges into the block
	Entered    float64 // traversals into the block over all runs
	Left       float64 // traversals out of it over all runs
}

// Result is the solution for one graph.
type Result struct {
	Blocks []Score
	Delta  []float64 // Δ per edge, parallel to Graph.Edges
	// Converged is false when an iteration over a loop did not settle
	// within MaxIterations; Resolution then says what was used instead.
	Converged  bool
	Iterations int // the most iterations any loop of the graph took
	Resolution string
}

// Solve computes the BlockRank of every block of g.
func Solve(g Graph, ev Evidence, opts Options) (*Result, error) {
	m := len(g.Edges)
	if len(ev.Passing) != m || len(ev.Failing) != m {
		return nil, fmt.Errorf("blockrank: %d edges but evidence for %d passing and %d failing", m, len(ev.Passing), len(ev.Failing))
	}
	for _, e := range g.Edges {
		if e.From < 0 || e.From >= g.Blocks || e.To < 0 || e.To >= g.Blocks {
			return nil, fmt.Errorf("blockrank: edge %d→%d outside %d blocks", e.From, e.To, g.Blocks)
		}
	}
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = DefaultMaxIterations
	}
	if opts.Tolerance <= 0 {
		opts.Tolerance = 1e-10
	}
	n := g.Blocks
	res := &Result{Blocks: make([]Score, n), Delta: make([]float64, m), Converged: true}
	mean := func(sum float64, runs int) float64 {
		if runs == 0 {
			return 0
		}
		return sum / float64(runs)
	}
	inAbs := make([]float64, n) // Σ|Δ| into each block, the scale of I
	for i, e := range g.Edges {
		d := mean(ev.Failing[i], ev.FailingRuns) - mean(ev.Passing[i], ev.PassingRuns)
		res.Delta[i] = d
		total := ev.Failing[i] + ev.Passing[i]
		res.Blocks[e.To].I += d
		res.Blocks[e.To].Entered += total
		res.Blocks[e.From].Left += total
		inAbs[e.To] += math.Abs(d)
	}
	hasSucc := make([]bool, n)
	for _, e := range g.Edges {
		hasSucc[e.From] = true
	}
	for b := range res.Blocks {
		s := &res.Blocks[b]
		// A block nothing entered lost nothing: T = 1. That is also the
		// virtual entry of a function, which has no edges in.
		s.T = 1
		if s.Entered > 0 {
			s.T = min(1, s.Left/s.Entered)
		}
		// I is a sum of differences: treat cancellation noise as zero so
		// that W does not explode.
		if math.Abs(s.I) <= 1e-12*inAbs[b] {
			s.I = 0
		}
	}
	w := make([]float64, m)
	for i, e := range g.Edges {
		if in := res.Blocks[e.To].I; in != 0 {
			w[i] = res.Delta[i] / in
		}
	}

	// The system BR = A·BR + c, with A and c as the mode says.
	sys := newSystem(n)
	switch opts.Mode {
	case Full:
		for i, e := range g.Edges {
			sys.add(e.From, e.To, res.Blocks[e.From].T*w[i])
		}
		for b, s := range res.Blocks {
			sys.c[b] = (1 - s.T) * s.I
		}
	case Calibrated:
		for i, e := range g.Edges {
			sys.add(e.From, e.To, w[i])
		}
		for b, s := range res.Blocks {
			if !hasSucc[b] {
				sys.c[b] = s.I
			}
		}
	default:
		return nil, fmt.Errorf("blockrank: unknown mode %v", opts.Mode)
	}
	x := sys.solve(opts, res)

	for b := range res.Blocks {
		s := &res.Blocks[b]
		succ := 0.0
		for _, t := range sys.row[b] {
			succ += t.a * x[t.to]
		}
		if opts.Mode == Calibrated {
			// Stage two: calibrate by T once; hasSucc blocks propagated
			// with T = 1, the others are their own I.
			if !hasSucc[b] {
				succ = 0
			}
			s.Successors = s.T * succ
		} else {
			s.Successors = succ
		}
		s.Local = (1 - s.T) * s.I
		s.BR = s.Successors + s.Local
	}
	return res, nil
}
