// Package rank owns spectrum-based suspiciousness ranking: the four-count
// spectrum of a program element, the suspiciousness formulas and their
// registry, the single-fault-optimal Opt wrapper, the deterministic ranking
// with explicit tie groups, and the effectiveness measures (EXAM, Top-N)
// computed from a ranking. It is pure computation: no I/O, no LSP, no
// knowledge of how spectra are collected.
package rank

import (
	"fmt"
	"math"
)

// Counts is the spectrum of one program element (a line or a block).
type Counts struct {
	EF int // failing tests that execute the element
	EP int // passing tests that execute the element
	NF int // failing tests that do not execute it
	NP int // passing tests that do not execute it
}

// Failed is the number of failing tests in the suite.
func (c Counts) Failed() int { return c.EF + c.NF }

// Passed is the number of passing tests in the suite.
func (c Counts) Passed() int { return c.EP + c.NP }

// Formula is a suspiciousness measure: a function of the spectrum alone,
// higher meaning more suspicious. Score never returns NaN or ±Inf for
// non-negative counts.
type Formula interface {
	// Name is the canonical registry name; Lookup(f.Name()) returns an
	// equivalent formula.
	Name() string
	Score(Counts) float64
	// Bounded reports whether every score lies in [0,1], which is what Opt
	// requires of the formula it wraps.
	Bounded() bool
}

// DivergentScore is the value of x/0 for x > 0 (and its negation for x < 0).
// The textbook convention is +Inf; a finite value keeps sorting, rounding and
// JSON well defined while preserving order: every finite score from real
// counts is far below it. 0/0 is 0. Only DStar and Ochiai2 can reach it, and
// only for an element that every failing test and no passing test executes,
// which is the most suspicious spectrum there is.
const DivergentScore = 1e300

// ratio divides under the package's zero-denominator convention.
func ratio(x, y float64) float64 {
	switch {
	case y != 0:
		return x / y
	case x > 0:
		return DivergentScore
	case x < 0:
		return -DivergentScore
	}
	return 0
}

// finite maps NaN to -DivergentScore (bottom of the ranking) and clamps
// infinities and overflowing values to ±DivergentScore, so that no formula,
// including one supplied by a caller, can disorder a ranking.
func finite(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return -DivergentScore
	case x > DivergentScore:
		return DivergentScore
	case x < -DivergentScore:
		return -DivergentScore
	}
	return x
}

// measure is a formula given by a plain scoring function.
type measure struct {
	name    string
	bounded bool
	score   func(ef, ep, nf, np float64) float64
}

func (m measure) Name() string  { return m.name }
func (m measure) Bounded() bool { return m.bounded }
func (m measure) Score(c Counts) float64 {
	return finite(m.score(float64(c.EF), float64(c.EP), float64(c.NF), float64(c.NP)))
}

// The formulas. F = ef+nf failing tests, P = ep+np passing tests. Where a
// formula divides by a count that is zero only when ef is also zero, ratio's
// 0/0 = 0 gives the natural "no evidence" score of 0.

func ochiai(ef, ep, nf, np float64) float64 {
	return ratio(ef, math.Sqrt((ef+nf)*(ef+ep)))
}

func tarantula(ef, ep, nf, np float64) float64 {
	failRate, passRate := ratio(ef, ef+nf), ratio(ep, ep+np)
	return ratio(failRate, failRate+passRate)
}

func jaccard(ef, ep, nf, np float64) float64 { return ratio(ef, ef+nf+ep) }

// op2 is ef − ep/(P+1); Naish2 is the same formula (ef − ep/(ep+np+1)).
func op2(ef, ep, nf, np float64) float64 { return ef - ep/(ep+np+1) }

// barinel is 1 − ep/(ep+ef). For an element no test executes, the 0/0
// convention would give 1, the top score; it gets 0 instead, like every
// other formula gives an element without evidence.
func barinel(ef, ep, nf, np float64) float64 {
	if ef+ep == 0 {
		return 0
	}
	return 1 - ep/(ep+ef)
}

// naish1 (Op1) is −1 if some failing test misses the element, else np.
func naish1(ef, ep, nf, np float64) float64 {
	if nf > 0 {
		return -1
	}
	return np
}

func kulczynski2(ef, ep, nf, np float64) float64 {
	return (ratio(ef, ef+nf) + ratio(ef, ef+ep)) / 2
}

func ochiai2(ef, ep, nf, np float64) float64 {
	return ratio(ef*np, math.Sqrt((ef+ep)*(nf+np)*(ef+np)*(nf+ep)))
}

func zoltar(ef, ep, nf, np float64) float64 {
	if ef == 0 {
		return 0
	}
	return ef / (ef + nf + ep + 10000*nf*ep/ef)
}

func anderberg(ef, ep, nf, np float64) float64 { return ratio(ef, ef+2*(nf+ep)) }

func sorensenDice(ef, ep, nf, np float64) float64 { return ratio(2*ef, 2*ef+nf+ep) }

func russellRao(ef, ep, nf, np float64) float64 { return ratio(ef, ef+nf+ep+np) }

func wong1(ef, ep, nf, np float64) float64 { return ef }

func gp13(ef, ep, nf, np float64) float64 {
	if ef == 0 {
		return 0
	}
	return ef * (1 + 1/(2*ep+ef))
}

// confidence is SAT-TAR's tie-breaker for Tarantula: max(ef/F, ep/P), how
// much evidence stands behind the score.
func confidence(ef, ep, nf, np float64) float64 {
	return max(ratio(ef, ef+nf), ratio(ep, ep+np))
}

// Confidence returns the confidence measure max(ef/F, ep/P), meant as a
// tie-breaker (see Rank) rather than a suspiciousness formula.
func Confidence() Formula { return measure{"confidence", true, confidence} }

// Default returns the default formula, Ochiai.
func Default() Formula { return measure{"ochiai", true, ochiai} }

// MaxStar bounds DStar's exponent; beyond it ef^star overflows float64 for
// realistic suite sizes.
const MaxStar = 50

// DStar returns the D* formula ef^star / (ep + nf), star in [1, MaxStar].
func DStar(star int) (Formula, error) {
	if star < 1 || star > MaxStar {
		return nil, fmt.Errorf("dstar: exponent %d out of range [1, %d]", star, MaxStar)
	}
	s := float64(star)
	return measure{
		name: fmt.Sprintf("dstar%d", star),
		score: func(ef, ep, nf, np float64) float64 {
			return ratio(math.Pow(ef, s), ep+nf)
		},
	}, nil
}

// opt is Naish's single-fault-optimal wrapper around a bounded formula.
type opt struct{ base Formula }

// Opt wraps a formula with values in [0,1] so that the result is
// single-fault optimal: an element executed by every failing test scores
// np+2 (above any score of the base, more passing tests not executing it
// ranking higher), every other element keeps the base score.
func Opt(base Formula) (Formula, error) {
	if base == nil || !base.Bounded() {
		name := "<nil>"
		if base != nil {
			name = base.Name()
		}
		return nil, fmt.Errorf("opt: %s is not bounded in [0,1]", name)
	}
	return opt{base}, nil
}

func (o opt) Name() string  { return "opt-" + o.base.Name() }
func (o opt) Bounded() bool { return false }
func (o opt) Score(c Counts) float64 {
	if c.NF == 0 {
		return float64(c.NP) + 2
	}
	return o.base.Score(c)
}
