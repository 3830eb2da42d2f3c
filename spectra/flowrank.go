package spectra

import (
	"errors"
	"fmt"
	"math"

	"github.com/faultline-go/faultline/spectra/blockrank"
	"github.com/faultline-go/faultline/spectra/rank"
)

// BlockRankName is the name a BlockRank ranking's Formula carries. It is
// not a formula of the four counts: RankBlockRank computes it from the
// edge profiles.
const BlockRankName = "blockrank"

// ErrNoFlow says a matrix has no edge profiles: it was not collected with
// CollectOptions.Edges.
var ErrNoFlow = errors.New("no edge profiles: BlockRank needs the spectra collected with edge counts")

// BlockRankLine explains one line's BlockRank score: the block of the
// function's control-flow graph it takes its score from (of the blocks
// holding the line, the highest scoring) and that score's parts.
type BlockRankLine struct {
	Function string `json:"function"`
	Block    int    `json:"block"` // index in the function's graph (0 and 1 are its virtual entry and exit)
	Kind     string `json:"kind"`  // go/cfg's kind of block: IfThen, ForBody, …
	// FirstLine and LastLine are the block's lines.
	FirstLine int `json:"firstLine"`
	LastLine  int `json:"lastLine"`
	// Successors is T·Σ W·BR over the block's successors: how much of
	// their score the failing runs' extra traversals carry back to it.
	Successors float64 `json:"successors"`
	// Local is (1−T)·I: the block's own share for the runs that stop in
	// it (a panic, an exit, a test killed while in it).
	Local float64 `json:"local"`
	T     float64 `json:"t"` // transition rate: traversals out / traversals in
	I     float64 `json:"i"` // Σ Δ into the block: extra mean traversals in failing runs
}

// BlockRankSummary is what a BlockRank ranking says about its solve.
type BlockRankSummary struct {
	Mode      string `json:"mode"` // "full" or "calibrated"
	Functions int    `json:"functions"`
	Blocks    int    `json:"blocks"`
	// Unsettled lists the functions whose loops did not settle within
	// the iteration bound, and what was used instead.
	Unsettled []UnsettledFunc `json:"unsettled,omitempty"`
}

// UnsettledFunc is one function whose BlockRank iteration did not settle.
type UnsettledFunc struct {
	File       string `json:"file"`
	Function   string `json:"function"`
	Resolution string `json:"resolution"`
}

// RankBlockRank ranks every line executed by a counted test by the
// BlockRank of its block (blockrank.Solve over each function's graph, one
// ranking over all of them). Lines of no block (none in practice) rank
// last, as in the paper; ties are reported as by RankLines.
func RankBlockRank(m *Matrix, opts blockrank.Options) (*Scores, error) {
	if m.Flow == nil {
		return nil, ErrNoFlow
	}
	fl := m.Flow
	lines := m.Lines()
	runs := m.LineRuns(lines)
	counts, err := rank.CountMatrix(len(lines), runs)
	if err != nil {
		return nil, fmt.Errorf("counting spectra: %w", err)
	}
	passing := make([]float64, fl.Edges)
	failing := make([]float64, fl.Edges)
	var u, v int
	for ti, t := range m.Tests {
		if !t.Verdict.Counted() || ti >= len(fl.Runs) {
			continue
		}
		sums := passing
		if t.Verdict.Failing() {
			sums, v = failing, v+1
		} else {
			u++
		}
		for _, c := range fl.Runs[ti] {
			if c.Edge < len(sums) {
				sums[c.Edge] += float64(c.N)
			}
		}
	}

	summary := &BlockRankSummary{Mode: opts.Mode.String(), Functions: len(fl.Funcs)}
	type scored struct {
		fn    int
		block int
		score blockrank.Score
	}
	best := map[rank.Location]scored{}
	for fi, fn := range fl.Funcs {
		g := blockrank.Graph{Blocks: len(fn.Blocks)}
		for _, e := range fn.Edges {
			g.Edges = append(g.Edges, blockrank.Edge{From: e.From, To: e.To})
		}
		lo, hi := fn.FirstEdge, fn.FirstEdge+len(fn.Edges)
		res, err := blockrank.Solve(g, blockrank.Evidence{Passing: passing[lo:hi], Failing: failing[lo:hi], PassingRuns: u, FailingRuns: v}, opts)
		if err != nil {
			return nil, fmt.Errorf("BlockRank of %s in %s: %w", fn.Name, fn.File, err)
		}
		summary.Blocks += len(fn.Blocks)
		if !res.Converged {
			summary.Unsettled = append(summary.Unsettled, UnsettledFunc{File: fn.File, Function: fn.Name, Resolution: res.Resolution})
		}
		for bi := range res.Blocks {
			res.Blocks[bi].BR = settled(res.Blocks[bi].BR)
		}
		for bi, b := range fn.Blocks {
			for _, l := range b.Lines {
				loc := rank.Location{File: fn.File, Line: l}
				if cur, ok := best[loc]; !ok || res.Blocks[bi].BR > cur.score.BR {
					best[loc] = scored{fi, bi, res.Blocks[bi]}
				}
			}
		}
	}

	r := &Scores{Formula: BlockRankName, Lines: []LineScore{}, BlockRank: summary}
	for _, run := range runs {
		if run.Failing {
			r.Failed++
		} else {
			r.Passed++
		}
	}
	var locs []rank.Location
	var inBlock, scores []float64
	var which []int
	for i, c := range counts {
		if c.EF+c.EP == 0 {
			continue // never executed: no evidence either way
		}
		loc := rank.Location{File: lines[i].File, Line: lines[i].Line}
		s, ok := best[loc]
		locs = append(locs, loc)
		which = append(which, i)
		if ok {
			inBlock = append(inBlock, 1)
			scores = append(scores, s.score.BR)
		} else {
			inBlock = append(inBlock, 0)
			scores = append(scores, math.Inf(-1))
		}
	}
	ranked, err := rank.RankScores(locs, inBlock, scores)
	if err != nil {
		return nil, err
	}
	for _, rk := range ranked {
		i := which[rk.Elem]
		l, c := lines[i], counts[i]
		line := LineScore{
			File: l.File, Line: l.Line, Rank: rk.Rank, Tie: [2]int{rk.TieFirst, rk.TieLast},
			EF: c.EF, EP: c.EP, NF: c.NF, NP: c.NP, Block: l.Blocks[0],
		}
		if s, ok := best[locs[rk.Elem]]; ok {
			fn := fl.Funcs[s.fn]
			b := fn.Blocks[s.block]
			line.Score = s.score.BR
			line.BlockRank = &BlockRankLine{
				Function: fn.Name, Block: s.block, Kind: b.Kind, FirstLine: b.Lines[0], LastLine: b.Lines[len(b.Lines)-1],
				Successors: s.score.Successors, Local: s.score.Local, T: s.score.T, I: s.score.I,
			}
		}
		r.Lines = append(r.Lines, line)
	}
	return r, nil
}

// settled rounds a score to 32 significant bits (about 9.6 decimal
// digits): iteration over a loop stops at a relative change of 1e-10, so
// scores that are equal in exact arithmetic may differ beyond that, and
// they must tie.
func settled(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	frac, exp := math.Frexp(x)
	return math.Ldexp(math.Round(frac*(1<<32))/(1<<32), exp)
}
