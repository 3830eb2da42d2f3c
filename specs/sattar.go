package specs

import (
	"errors"
	"fmt"
	"slices"

	"github.com/faultline-go/faultline/analysis"
)

// Tarantula and its confidence, as SAT-TAR uses them (Gopinath, Nokhbeh
// Zaeem and Khurshid, ASE 2012): susp = (ef/F) / (ef/F + ep/P) and conf =
// max(ef/F, ep/P), a ratio with nothing to count taken as 0.
type rating struct{ susp, conf float64 }

func tarantula(ef, ep, failed, passed int) rating {
	f, p := 0.0, 0.0
	if failed > 0 {
		f = float64(ef) / float64(failed)
	}
	if passed > 0 {
		p = float64(ep) / float64(passed)
	}
	r := rating{conf: max(f, p)}
	if f+p > 0 {
		r.susp = f / (f + p)
	}
	return r
}

// ratings computes the rating of each line of lines over a suite.
func ratings(suite []*trial, lines []int32) map[int32]rating {
	failed, passed := 0, 0
	ef, ep := map[int32]int{}, map[int32]int{}
	for _, t := range suite {
		count := ep
		if t.out.Failing() {
			failed++
			count = ef
		} else {
			passed++
		}
		for _, l := range intersect(t.cov, lines) {
			count[l]++
		}
	}
	out := map[int32]rating{}
	for _, l := range lines {
		out[l] = tarantula(ef[l], ep[l], failed, passed)
	}
	return out
}

// Generation strategies of SAT-TAR: an input must bring new coverage
// (default), or, after rounds that left every suspect's rating as it was,
// new coverage of the suspects.
const (
	strategyDefault = iota
	strategyNew
)

// satTar is SAT-TAR's loop: from the inputs made by flipping the failing
// run's path conditions, each round adds the one with new coverage that
// executes the most suspects (the unsat core's lines), runs it against the
// target's checks, drops a failing one that violates other checks than the
// failing run, recomputes Tarantula over the suite, and refines: a failing
// input that lowers both a suspect's suspiciousness and its confidence
// clears it, unless it violates only some of the failing run's checks.
// When rounds leave every suspect's rating unchanged, inputs must bring
// new coverage of the suspects. It stops when no input with new coverage
// is left or the bounds are reached.
func (s *search) satTar(root *trial, f *analysis.PathFormula) error {
	var suspects []int32
	for _, sus := range s.res.Suspects {
		for l := sus.Line; l <= max(sus.Line, sus.EndLine); l++ {
			if id, ok := s.lineID[lineKey{sus.File, l}]; ok && !slices.Contains(suspects, id) {
				suspects = append(suspects, id)
			}
		}
	}
	slices.Sort(suspects)
	noCore := len(suspects) == 0
	if noCore {
		// Without a core every line of the failing run is a suspect: the
		// inputs are then those most like the failing run, as directed
		// test generation for fault localisation chooses them.
		suspects = slices.Clone(root.cov)
		s.res.Notes = append(s.res.Notes, "without a core, SAT-TAR chose inputs by their similarity to the failing run on every line it executes")
	}
	// The suite: the target's entries, but for failing ones that violate
	// none of the failing run's checks.
	var suite []*trial
	for _, t := range s.entries {
		if t.out.Hits != nil && (!t.out.Failing() || t == root || !disjoint(t.sites, root.sites)) {
			suite = append(suite, t)
		}
	}
	used := map[*trial]bool{}
	for _, t := range suite {
		used[t] = true
	}
	prev := ratings(suite, suspects)
	strategy, stall := strategyDefault, 0
	pool := slices.Clone(s.flipped[root])
	generated := false // the pool was just refilled
	for round := 0; round < s.opts.Rounds; {
		best, score, overlap := (*trial)(nil), 0, 0
		for _, c := range pool {
			if used[c] || c.out.Hits == nil || !s.unique(c, suite, strategy, suspects) {
				continue
			}
			sc := len(intersect(c.cov, suspects))
			ov := len(intersect(c.cov, root.cov))
			if sc > score || sc == score && sc > 0 && ov > overlap {
				best, score, overlap = c, sc, ov
			}
		}
		if best == nil {
			if generated {
				break // a fresh generation brought no input with new coverage
			}
			// A new generation: the failing run's path conditions flipped
			// again, away from every input tried.
			_, err := s.flips(root, f, func(t *trial) error {
				if !slices.Contains(pool, t) {
					pool = append(pool, t)
				}
				return nil
			})
			if err != nil && !errors.Is(err, errBounded) {
				return err
			}
			generated = true
			continue
		}
		generated = false
		used[best] = true
		if best.out.Failing() && disjoint(best.sites, root.sites) {
			continue // it likely meets another fault
		}
		round++
		suite = append(suite, best)
		reason := fmt.Sprintf("executes %d of the %d suspect lines, the most of the inputs with new coverage", score, len(suspects))
		if best.out.Failing() {
			reason = "fails" + s.where(best) + " and " + reason
		} else {
			reason = "passes and " + reason
		}
		s.suggest(best, "sattar", reason)
		cur := ratings(suite, suspects)
		if best.out.Failing() && !strictSubset(best.sites, root.sites) {
			var keep []int32
			for _, l := range suspects {
				if cur[l].susp < prev[l].susp && cur[l].conf < prev[l].conf {
					k := s.lines[l]
					s.res.Cleared = append(s.res.Cleared, Cleared{File: k.file, Line: k.line, Reason: fmt.Sprintf(
						"the failing input (%s) lowered its Tarantula score (%.3g to %.3g) and confidence (%.3g to %.3g)",
						joinArgs(s.ordered(best.vals)), prev[l].susp, cur[l].susp, prev[l].conf, cur[l].conf)})
					continue
				}
				keep = append(keep, l)
			}
			if len(keep) > 0 {
				suspects = keep // a list left empty would guide nothing
			}
		}
		changed := false
		for _, l := range suspects {
			if cur[l] != prev[l] {
				changed = true
			}
		}
		if changed {
			stall = 0
		} else if stall++; stall >= 2 {
			strategy = strategyNew
		}
		prev = cur
	}
	if noCore {
		return nil
	}
	// The suspect list as refined.
	keep := s.res.Suspects[:0:0]
	for _, sus := range s.res.Suspects {
		for l := sus.Line; l <= max(sus.Line, sus.EndLine); l++ {
			if id, ok := s.lineID[lineKey{sus.File, l}]; ok && slices.Contains(suspects, id) {
				keep = append(keep, sus)
				break
			}
		}
	}
	s.res.Suspects = keep
	return nil
}

// unique reports whether a candidate's coverage differs from every run of
// the suite: overall, or on the suspects under the NEW strategy.
func (s *search) unique(c *trial, suite []*trial, strategy int, suspects []int32) bool {
	cov := c.cov
	if strategy == strategyNew {
		cov = intersect(cov, suspects)
	}
	for _, t := range suite {
		other := t.cov
		if strategy == strategyNew {
			other = intersect(other, suspects)
		}
		if slices.Equal(cov, other) {
			return false
		}
	}
	return true
}

func disjoint(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// strictSubset reports whether a's sites are some but not all of b's.
func strictSubset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return true
		}
	}
	return false
}

func joinArgs(vals []Value) string {
	var out []byte
	for i, v := range vals {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = append(out, v.String()...)
	}
	return string(out)
}
