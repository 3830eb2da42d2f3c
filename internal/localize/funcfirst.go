package localize

import (
	"fmt"
	"math"
	"slices"

	"github.com/faultline-go/faultline/spectra/rank"
)

// Ways FunctionFirst ranks the functions before their lines.
const (
	// FunctionsByBestLine places a function by its best line under the
	// ranking's order, as RankFunctions does.
	FunctionsByBestLine = "best"
	// FunctionsByOwnSpectrum places a function by the ranking's formula
	// over its own spectrum, its best line breaking ties.
	FunctionsByOwnSpectrum = "own"
	// FunctionsMixed places a function by the sum of its two rank shares
	// among the functions, by best line and by own spectrum, its best
	// line breaking ties.
	FunctionsMixed = "mix"
	// FunctionsLearned places a function by a learned weighted sum of
	// its evidence, each column's largest value among its lines, its best
	// line breaking ties.
	FunctionsLearned = "learned"
)

// FunctionFirstOptions says how FunctionFirst reorders a ranking.
type FunctionFirstOptions struct {
	// By is how functions are ranked: FunctionsByBestLine,
	// FunctionsByOwnSpectrum, FunctionsMixed or FunctionsLearned.
	By string `json:"by"`
	// Weights are FunctionsLearned's weight per evidence column.
	Weights map[string]float64 `json:"weights,omitempty"`
	// Keep is how many of the first positions keep their lines (a tie
	// group that starts there, whole); the lines below follow function by
	// function. 0 reorders every line. With By FunctionsByBestLine, the
	// lines below the kept ones then start with the rest of the kept
	// lines' functions.
	Keep int `json:"keep,omitempty"`
}

// FunctionFirst reorders a ranking, its lines in rank order, function by
// function: the functions ranked as opts.By says, then each function's
// lines in the ranking's order. A developer reads a function whole once
// they open it, and which function is faulty is easier to tell than which
// line (most real faults' functions rank far higher than their lines).
// Lines keep their scores, evidence and reasons; their ranks and tie
// groups are the new order's. of names the function holding a line.
func FunctionFirst(r *Ranking, of FunctionOf, opts FunctionFirstOptions) (*Ranking, error) {
	n := len(r.Lines)
	if n == 0 || r.Lines[n-1].Tie[0] <= opts.Keep {
		// Every line is kept: no source to read (the service asks on
		// every ranking it publishes).
		out := *r
		out.Lines = slices.Clone(r.Lines)
		return &out, nil
	}
	place, err := functionPlaces(r, of, opts)
	if err != nil {
		return nil, err
	}
	locs := make([]rank.Location, n)
	kept := make([]float64, n)    // 1 for the lines that keep their places
	fnKey := make([]float64, n)   // the line's function's place, negated
	lineKey := make([]float64, n) // the line's own place, negated
	for i, l := range r.Lines {
		locs[i] = rank.Location{File: l.File, Line: l.Line}
		if l.Tie[0] <= opts.Keep {
			kept[i] = 1
		} else {
			fnKey[i] = -place[of(l.File, l.Line)]
		}
		lineKey[i] = -float64(l.Tie[0])
	}
	ranked, err := rank.RankScores(locs, kept, fnKey, lineKey)
	if err != nil {
		return nil, err
	}
	out := *r
	out.Lines = make([]RankedLine, n)
	for p, x := range ranked {
		l := r.Lines[x.Elem]
		l.Rank, l.Tie = x.Rank, [2]int{x.TieFirst, x.TieLast}
		out.Lines[p] = l
	}
	return &out, nil
}

// functionPlaces ranks the functions holding r's lines as opts.By says and
// gives each its first position, functions tied sharing one. A
// function's own spectrum is counted from its lines: every test that runs
// a line of a function enters it and runs its first statement, so the
// counts of its most executed line are the function's.
func functionPlaces(r *Ranking, of FunctionOf, opts FunctionFirstOptions) (map[Function]float64, error) {
	by := opts.By
	fns, which := linesByFunction(r.Lines, of)
	best := make([]float64, len(fns)) // the first position of each function's best line
	for k := range best {
		best[k] = math.Inf(1)
	}
	counts := make([]rank.Counts, len(fns))
	for i, l := range r.Lines {
		k := which[i]
		c := &counts[k]
		c.EF, c.EP = max(c.EF, l.EF), max(c.EP, l.EP)
		best[k] = min(best[k], float64(l.Tie[0]))
	}
	locs := make([]rank.Location, len(fns))
	byBest := make([]float64, len(fns))
	for k, fn := range fns {
		locs[k] = rank.Location{File: fn.File, Line: fn.Line}
		byBest[k] = -best[k]
	}
	var scores []float64
	switch by {
	case FunctionsByBestLine:
		scores = byBest
	case FunctionsByOwnSpectrum, FunctionsMixed:
		f, err := rank.Lookup(r.Formula)
		if err != nil {
			f = rank.Default()
		}
		own := make([]float64, len(fns))
		for k := range fns {
			c := counts[k]
			c.NF, c.NP = max(r.Failed-c.EF, 0), max(r.Passed-c.EP, 0)
			own[k] = f.Score(c)
		}
		scores = own
		if by == FunctionsMixed {
			scores = make([]float64, len(fns))
			for _, s := range [][]float64{own, byBest} {
				share, err := rankShares(locs, s)
				if err != nil {
					return nil, err
				}
				for k := range scores {
					scores[k] += share[k]
				}
			}
		}
	case FunctionsLearned:
		_, evidence, err := FunctionFeatures(r.Lines, of, []string{AggregateMax})
		if err != nil {
			return nil, err
		}
		m := &Model{Weights: opts.Weights}
		names := m.names()
		scores = make([]float64, len(fns))
		for k := range fns {
			for _, col := range names {
				scores[k] += m.Weights[col] * evidence[k][col]
			}
		}
	default:
		return nil, fmt.Errorf("function order %q: not %s, %s, %s or %s", by, FunctionsByBestLine, FunctionsByOwnSpectrum, FunctionsMixed, FunctionsLearned)
	}
	ranked, err := rank.RankScores(locs, scores, byBest)
	if err != nil {
		return nil, err
	}
	out := make(map[Function]float64, len(fns))
	for _, x := range ranked {
		out[fns[x.Elem]] = float64(x.TieFirst)
	}
	return out, nil
}

// rankShares gives each element's share of the elements it ranks at or
// above by scores, 1 for the first: 1 - (first position of its tie
// group - 1) / n.
func rankShares(locs []rank.Location, scores []float64) ([]float64, error) {
	ranked, err := rank.RankScores(locs, scores)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(locs))
	for _, x := range ranked {
		out[x.Elem] = 1 - float64(x.TieFirst-1)/float64(len(locs))
	}
	return out, nil
}
