package specs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/spectra"
)

// sfo is Algorithm 1 of Landsberg, Sun and Kroening (FASE 2018) with the
// solver's choice made by flipping path conditions: while some run fails
// without executing a line every failing run so far executes, add it.
// The search is generational: the path conditions of each failing run are
// flipped, and so are those of a passing run that already avoids a shared
// line (up to maxAvoiderDepth such steps from a failing run), since a
// flip further down its path may make it fail where it stays off the
// line. The status says whether that search was exhausted (the data is
// then single-fault optimal as far as it reaches) or the bounds cut it.
func (s *search) sfo(root *trial, f *analysis.PathFormula) error {
	shared := s.failing[0].cov
	for _, t := range s.failing[1:] {
		shared = intersect(shared, t.cov)
	}
	s.res.SharedBefore, s.res.SharedAfter = len(shared), len(shared)
	if len(shared) == 0 {
		s.res.SeveralFaults = true
		s.res.Status = Optimal
		s.res.Notes = append(s.res.Notes, "no line is executed by every failing run: the failing runs likely meet several faults")
		return nil
	}
	var failing, avoiders []*trial
	for _, t := range s.failing {
		if t.vals != nil {
			failing = append(failing, t)
		}
	}
	explored := map[*trial]bool{}
	complete, added := true, 0
	for len(shared) > 0 {
		var src *trial
		switch {
		case len(failing) > 0:
			src, failing = failing[0], failing[1:]
		case len(avoiders) > 0:
			// The avoider of the most shared lines first.
			slices.SortStableFunc(avoiders, func(a, b *trial) int {
				return len(minus(shared, b.cov)) - len(minus(shared, a.cov))
			})
			src, avoiders = avoiders[0], avoiders[1:]
			if len(minus(shared, src.cov)) == 0 {
				continue
			}
		}
		if src == nil {
			break
		}
		if explored[src] {
			continue
		}
		explored[src] = true
		ff := f
		if src != root {
			var err error
			if ff, err = s.record(src.vals); err != nil {
				if errors.Is(err, errBounded) {
					complete = false
					break
				}
				return err
			}
			if ff == nil {
				complete = false
				continue
			}
		}
		ok, err := s.flips(src, ff, func(t *trial) error {
			if t.out.Hits == nil {
				return nil
			}
			avoided := minus(shared, t.cov)
			if len(avoided) == 0 {
				return nil
			}
			if !t.out.Failing() {
				if t.depth <= maxAvoiderDepth {
					avoiders = append(avoiders, t)
				}
				return nil
			}
			s.suggest(t, "sfo", fmt.Sprintf("fails%s and does not execute %s, which every failing run so far executes", s.where(t), s.names(avoided, 4)))
			shared = intersect(shared, t.cov)
			s.failing = append(s.failing, t)
			t.depth = 0
			failing = append(failing, t)
			added++
			return nil
		})
		if ff != f {
			ff.Close()
		}
		if errors.Is(err, errBounded) {
			complete = false
			break
		}
		if err != nil {
			return err
		}
		complete = complete && ok
	}
	s.res.SharedAfter = len(shared)
	switch {
	case complete:
		s.res.Status = Optimal
	case added > 0:
		s.res.Status = Improved
	default:
		s.res.Status = Bounded
	}
	return nil
}

// maxAvoiderDepth bounds how many flips away from a failing run a passing
// run that avoids a shared line may be for sfo to flip its own path.
const maxAvoiderDepth = 2

// sfoP adds passing inputs whose coverage no passing run of the data has
// (the sfo_p variant of Landsberg et al. adds up to 20): first among the
// runs made so far, then among the flips of the passing inputs it adds.
func (s *search) sfoP() error {
	if s.opts.Passing < 0 {
		return nil
	}
	seen := map[string]bool{}
	var covered []int32
	for _, t := range s.passing {
		seen[covKey(t.cov)] = true
		covered = union(covered, t.cov)
	}
	added := 0
	var queue []*trial
	consider := func(t *trial) error {
		if added >= s.opts.Passing || t.out.Failing() || t.out.Hits == nil || seen[covKey(t.cov)] {
			return nil
		}
		seen[covKey(t.cov)] = true
		reason := "passes with a combination of lines no passing run executes"
		if fresh := minus(t.cov, covered); len(fresh) > 0 {
			reason = "passes and executes " + s.names(fresh, 4) + ", which no passing run executes"
		}
		covered = union(covered, t.cov)
		s.passing = append(s.passing, t)
		s.suggest(t, "sfo_p", reason)
		queue = append(queue, t)
		added++
		return nil
	}
	for _, t := range s.order {
		if err := consider(t); err != nil {
			return err
		}
	}
	for qi := 0; qi < len(queue) && added < s.opts.Passing; qi++ {
		f, err := s.record(queue[qi].vals)
		if err != nil {
			return err
		}
		if f == nil {
			continue
		}
		_, err = s.flips(queue[qi], f, consider)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// where says where a failing run failed, for a reason.
func (s *search) where(t *trial) string {
	if len(t.sites) == 0 {
		return ""
	}
	return " at " + strings.Join(t.sites, ", ")
}

func covKey(cov []int32) string { return fmt.Sprint(cov) }

func union(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// failSites names where a failing run failed, file:line relative to the
// module root: its report lines, or its panic's innermost module frame.
func failSites(o *outcome, pkgDir, root string) []string {
	var out []string
	for _, site := range spectra.FailSites(o.Verdict, o.Output, pkgDir, root) {
		out = append(out, fmt.Sprintf("%s:%d", site.File, site.Line))
	}
	return out
}
