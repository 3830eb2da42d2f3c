package regress

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Reducing a revert that compiles only whole. Plain delta debugging over
// hunks completes each part's revert with the auxiliary hunks it needs to
// compile; on a rewrite those are nearly every other hunk, so each part's
// completed revert is the whole revert again, it passes, and the search
// ends at one hunk chosen by the order of the parts, with everything else
// as its auxiliary changes. Here delta debugging runs over groups of
// hunks that can compile together (the hunks of one declaration) and
// takes a part only when its revert, completed from the compiler's
// errors, is smaller than the one it has: every step then shrinks the
// revert actually run. A second pass does the same over the single hunks
// of the groups found, for a root smaller than a declaration.

// maxCloseRounds bounds the rounds of the compiler's errors that
// complete one revert: each round is one type check.
const maxCloseRounds = 4

// maxRefined bounds the hunks the second pass splits: on a larger
// rewrite its checks and runs would take the budget.
const maxRefined = 64

// closeFunc completes a revert with the hunks it needs to compile, or
// returns nil when it finds none that do.
type closeFunc func(ctx context.Context, set []int) ([]int, error)

// closedDDMin is ddmin over units (sets of hunks), from a completed revert
// full of all of them that passes. A part is taken only when its completed
// revert is smaller than full and passes, so the search cannot circle back
// to the whole revert through the hunks a part needs to compile; the
// search goes on over that completed revert, split into units by regroup,
// so that a part that compiles only with hunks using it (a declaration
// and its uses) can still give way to those hunks alone. It returns the
// units kept and their completed revert, those so far with an error.
func closedDDMin(ctx context.Context, units [][]int, full []int, complete closeFunc, passes passFunc, regroup func([]int) [][]int) ([][]int, []int, error) {
	try := func(part [][]int) (bool, []int, error) {
		f, err := complete(ctx, flatten(part))
		if err != nil || f == nil || len(f) >= len(full) {
			return false, nil, err
		}
		ok, err := passes(ctx, f)
		return ok, f, err
	}
	n := 2
	for len(units) > 1 {
		parts := partitionUnits(units, n)
		reduced := false
		for _, part := range parts {
			ok, f, err := try(part)
			if err != nil {
				return units, full, err
			}
			if ok {
				units, full, n, reduced = regroup(f), f, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range parts {
				rest := make([][]int, 0, len(units))
				for j, p := range parts {
					if j != i {
						rest = append(rest, p...)
					}
				}
				ok, f, err := try(rest)
				if err != nil {
					return units, full, err
				}
				if ok {
					units, full, n, reduced = regroup(f), f, max(n-1, 2), true
					if len(units) != len(rest) {
						n = 2
					}
					break
				}
			}
		}
		if !reduced {
			if n >= len(units) {
				break
			}
			n = min(2*n, len(units))
		}
	}
	return units, full, nil
}

// partitionUnits splits units into n parts of nearly equal count, in
// order.
func partitionUnits(units [][]int, n int) [][][]int {
	idx := make([]int, len(units))
	for i := range idx {
		idx[i] = i
	}
	var out [][][]int
	for _, p := range partition(idx, n) {
		part := make([][]int, 0, len(p))
		for _, i := range p {
			part = append(part, units[i])
		}
		out = append(out, part)
	}
	return out
}

// flatten is the sorted union of units.
func flatten(units [][]int) []int {
	var out []int
	for _, u := range units {
		out = append(out, u...)
	}
	return sorted(out)
}

// declUnits groups a set of hunks by the top-level declarations they
// touch, joining groups that share a hunk: the hunks of a rewritten
// function compile only together, those of different declarations often
// apart. A hunk that touches no declaration (an import) is its own group.
// Groups come in the order of their first hunk.
func declUnits(d *declHunks, set []int) [][]int {
	set = sorted(set)
	parent := map[int]int{}
	var find func(int) int
	find = func(h int) int {
		if p, ok := parent[h]; ok && p != h {
			r := find(p)
			parent[h] = r
			return r
		}
		return h
	}
	first := map[string]int{} // declaration -> a hunk of it in set
	for _, h := range set {
		parent[h] = h
	}
	for _, h := range set {
		for _, k := range d.decls[h] {
			if o, ok := first[k]; ok {
				a, b := find(o), find(h)
				parent[max(a, b)] = min(a, b)
			} else {
				first[k] = h
			}
		}
	}
	byRoot := map[int][]int{}
	var roots []int
	for _, h := range set {
		r := find(h)
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], h)
	}
	out := make([][]int, 0, len(roots))
	for _, r := range roots {
		out = append(out, byRoot[r])
	}
	return out
}

// closeLocally completes a revert with the hunks the compiler's errors
// point at, within maxCloseRounds checks, never with a neutral hunk; nil
// when it still does not compile. Unlike auxFor it never starts from
// every other hunk: a part that compiles only with the whole revert is no
// smaller revert.
func (x *explainer) closeLocally(ctx context.Context, set []int) ([]int, error) {
	set = sorted(without(set, x.neutral))
	msg, err := x.o.check(ctx, set)
	for round := 0; err == nil && msg != "" && round < maxCloseRounds; round++ {
		more := without(x.o.errorHunks(set, msg), union(set, x.neutral))
		if len(more) == 0 {
			return nil, nil
		}
		set = union(set, more)
		msg, err = x.o.check(ctx, set)
	}
	if err != nil || msg != "" {
		return nil, err
	}
	return set, nil
}

// reduce finds a small revert among c, whose revert (completed) passes:
// closedDDMin over declaration groups, then over the hunks of the groups
// kept. The completed revert found is kept as the root's auxiliary hunks,
// so that the explanation reports the revert that was run. When the root
// stays large, a note says why.
func (x *explainer) reduce(ctx context.Context, c []int) ([]int, error) {
	c = sorted(without(c, x.neutral))
	aux, err := x.o.auxFor(ctx, c)
	if err != nil || aux == nil {
		return nil, err
	}
	full := union(c, aux) // the revert that passed
	if x.o.decls == nil {
		x.o.decls = newDeclHunks(x.cs)
	}
	units := declUnits(x.o.decls, without(full, x.neutral))
	x.say("delta debugging over %d groups of %d hunks (a declaration's hunks together)", len(units), len(full))
	groups := func(set []int) [][]int { return declUnits(x.o.decls, without(set, x.neutral)) }
	units, full, err = closedDDMin(ctx, units, full, x.closeLocally, x.o.passes, groups)
	if root := flatten(units); err == nil && len(root) > 1 && len(root) <= maxRefined {
		ones := func(set []int) [][]int { return singles(without(set, x.neutral)) }
		x.say("delta debugging over the %d hunks of the groups kept", len(root))
		units, full, err = closedDDMin(ctx, singles(root), full, x.closeLocally, x.o.passes, ones)
	}
	root := flatten(units)
	switch {
	case errors.Is(err, errBudget):
		// The revert found so far passes: an answer, if not a minimal one;
		// an earlier step's smaller revert that passed is a better one.
		x.ex.BudgetRanOut, err = true, nil
		best := x.o.best
		if len(best) > 0 && len(best) < len(root) && !slices.ContainsFunc(best, setOf(x.neutral)) {
			root, full = best, nil
		}
		x.ex.Notes = append(x.ex.Notes, fmt.Sprintf("the budget ran out while delta debugging: the %d root changes are the smallest revert found so far that passes, not a minimal one", len(root)))
		if full == nil {
			return root, nil // its auxiliary hunks are those it passed with
		}
	case err != nil:
		return nil, err
	case len(root) > maxRefined:
		x.ex.Notes = append(x.ex.Notes, fmt.Sprintf("no declaration's changes among the %d root changes compile without the others and make the test pass reverted; more than %d, they were not tried one by one", len(root), maxRefined))
	case len(root) > maxUnconfirmedAux:
		x.ex.Notes = append(x.ex.Notes, fmt.Sprintf("no part of the %d root changes compiles without the others and makes the test pass reverted: the revert could not be split further", len(root)))
	}
	x.o.aux[key(root)] = sorted(without(full, root))
	return root, nil
}

// singles makes each hunk a unit of its own.
func singles(ids []int) [][]int {
	out := make([][]int, len(ids))
	for i, id := range ids {
		out[i] = []int{id}
	}
	return out
}
