package specs

import (
	"fmt"
	"slices"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

// SatTarName is the name SAT-TAR's ranking goes by where a formula's name
// is expected. It is not a formula of the four counts: its bonus comes
// from unsat cores of the failing tests' checks.
const SatTarName = "sattar"

// SatTarLine explains one line's score in SAT-TAR's order (Gopinath,
// Nokhbeh Zaeem and Khurshid, ASE 2012): Tarantula plus a bonus of 1 for
// a suspect, a line in the unsat core of a failing test's violated checks,
// with Tarantula's confidence breaking ties.
type SatTarLine struct {
	Tarantula  float64 `json:"tarantula"`
	Confidence float64 `json:"confidence"`
	Bonus      float64 `json:"bonus"`
	// Cores lists the failing tests whose unsat core holds the line.
	Cores []string `json:"cores,omitempty"`
	// Cleared says why the rating refinement took the line's bonus away.
	Cleared string `json:"cleared,omitempty"`
}

// Ranking is SAT-TAR's order of a matrix's executed lines.
type Ranking struct {
	Scores *spectra.Scores // its Formula is SatTarName
	Lines  []*SatTarLine   // Lines[i] explains Scores.Lines[i]
}

// Rank orders the matrix's executed lines by SAT-TAR (Gopinath, Nokhbeh
// Zaeem and Khurshid, ASE 2012): Tarantula over every counted test, plus
// a bonus of 1 for a suspect, a line in the core of a failing test, with
// Tarantula's confidence breaking ties. The paper's rating refinement is
// replayed over the matrix: starting from the passing tests and a core's
// failing test, the other failing tests that violate one of its checks
// join one at a time (in the matrix's order), and a suspect whose
// suspiciousness and confidence both fall when one joins loses its bonus,
// unless that test violates only some of the core's checks. Failing tests
// that violate none of them meet another fault and take no part.
func Rank(m *spectra.Matrix, cores []analysis.CoreResult) (*Ranking, error) {
	tar, err := rank.Lookup("tarantula")
	if err != nil {
		return nil, err
	}
	r, err := spectra.RankLines(m, tar)
	if err != nil {
		return nil, err
	}
	lines := m.Lines()
	runs := m.LineRuns(lines)
	var counted []int // runs[k] is the run of m.Tests[counted[k]]
	for ti, t := range m.Tests {
		if t.Verdict.Counted() {
			counted = append(counted, ti)
		}
	}
	index := map[lineKey]int32{}
	for i, l := range lines {
		index[lineKey{l.File, l.Line}] = int32(i)
	}
	bonus := map[int32][]string{} // line -> tests whose core keeps it
	cleared := map[int32]string{} // line -> why a core's refinement cleared it
	for _, c := range cores {
		src := slices.IndexFunc(counted, func(ti int) bool {
			return m.Tests[ti].Package == c.Package && m.Tests[ti].Name == c.Test
		})
		if src < 0 || !runs[src].Failing {
			continue
		}
		var sus []int32
		for _, s := range c.Suspects {
			for l := s.Line; l <= max(s.Line, s.EndLine); l++ {
				if i, ok := index[lineKey{s.File, l}]; ok && !slices.Contains(sus, i) {
					sus = append(sus, i)
				}
			}
		}
		kept := refine(m, runs, counted, src, sus, cleared)
		for _, l := range kept {
			bonus[l] = append(bonus[l], c.Test)
		}
	}
	locs := make([]rank.Location, len(r.Lines))
	scores := make([]float64, len(r.Lines))
	confs := make([]float64, len(r.Lines))
	explain := make([]*SatTarLine, len(r.Lines))
	for i, l := range r.Lines {
		rt := tarantula(l.EF, l.EP, l.EF+l.NF, l.EP+l.NP)
		e := &SatTarLine{Tarantula: rt.susp, Confidence: rt.conf}
		id := index[lineKey{l.File, l.Line}]
		if tests := bonus[id]; len(tests) > 0 {
			e.Bonus, e.Cores = 1, tests
		} else if why, ok := cleared[id]; ok {
			e.Cleared = why
		}
		locs[i] = rank.Location{File: l.File, Line: l.Line}
		scores[i], confs[i], explain[i] = rt.susp+e.Bonus, rt.conf, e
	}
	order, err := rank.RankScores(locs, scores, confs)
	if err != nil {
		return nil, err
	}
	out := *r
	out.Formula = SatTarName
	out.Lines = make([]spectra.LineScore, len(order))
	why := make([]*SatTarLine, len(order))
	for p, rk := range order {
		l := r.Lines[rk.Elem]
		l.Score, l.Rank, l.Tie = rk.Score, rk.Rank, [2]int{rk.TieFirst, rk.TieLast}
		out.Lines[p], why[p] = l, explain[rk.Elem]
	}
	return &Ranking{Scores: &out, Lines: why}, nil
}

// refine replays the rating refinement for one core and returns the
// suspects it keeps; cleared gets why it dropped the others.
func refine(m *spectra.Matrix, runs []rank.Run, counted []int, src int, sus []int32, cleared map[int32]string) []int32 {
	checks := m.Tests[counted[src]].FailSites
	covers := func(k int, l int32) bool {
		_, ok := slices.BinarySearch(runs[k].Hits, l)
		return ok
	}
	ef, ep := map[int32]int{}, map[int32]int{}
	failed, passed := 1, 0
	for _, l := range sus {
		if covers(src, l) {
			ef[l]++
		}
	}
	for k, run := range runs {
		if run.Failing {
			continue
		}
		passed++
		for _, l := range sus {
			if covers(k, l) {
				ep[l]++
			}
		}
	}
	kept := slices.Clone(sus)
	for k, run := range runs {
		if !run.Failing || k == src {
			continue
		}
		sites := m.Tests[counted[k]].FailSites
		if !overlaps(sites, checks) {
			continue // it violates other checks: another fault
		}
		before := map[int32]rating{}
		for _, l := range kept {
			before[l] = tarantula(ef[l], ep[l], failed, passed)
		}
		failed++
		for _, l := range sus {
			if covers(k, l) {
				ef[l]++
			}
		}
		if subsetOf(sites, checks) && len(sites) < len(checks) {
			continue // it may meet only some of the faults
		}
		var next []int32
		for _, l := range kept {
			after := tarantula(ef[l], ep[l], failed, passed)
			if after.susp < before[l].susp && after.conf < before[l].conf {
				cleared[l] = fmt.Sprintf("%s fails at the same check without executing it: its Tarantula score and confidence fell", m.Tests[counted[k]].Name)
				continue
			}
			next = append(next, l)
		}
		if len(next) > 0 {
			kept = next // a list left empty would favour nothing
		}
	}
	return kept
}

func overlaps(a, b []spectra.Site) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func subsetOf(a, b []spectra.Site) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
