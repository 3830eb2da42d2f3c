package regress

import (
	"context"
	"slices"
)

// passFunc runs the test with a set of hunks reverted (with whatever else
// it needs to compile) and reports whether it passes.
type passFunc func(ctx context.Context, reverted []int) (bool, error)

// asymmetricDD is the dynamic step of AFTER (Yi et al., ICSE 2015,
// Algorithm 2): it looks for a subset of c whose revert makes the test
// pass, splitting c into n parts and recursing into a part or a complement
// whose revert passes. Only a passing run is conclusive: a part whose
// revert still fails is not thereby irrelevant (the failure may need
// several changes), so the search refines the partition rather than drop
// it. It returns nil when no subset tried passes, reverting c whole
// included.
func asymmetricDD(ctx context.Context, c []int, n int, passes passFunc) ([]int, error) {
	if len(c) < n {
		ok, err := passes(ctx, c)
		if err != nil || !ok {
			return nil, err
		}
		return c, nil
	}
	parts := partition(c, n)
	for _, part := range parts {
		ok, err := passes(ctx, part)
		if err != nil {
			return nil, err
		}
		if ok {
			return asymmetricDD(ctx, part, 2, passes)
		}
		rest := without(c, part)
		if ok, err = passes(ctx, rest); err != nil {
			return nil, err
		}
		if ok {
			return asymmetricDD(ctx, rest, max(n-1, 2), passes)
		}
	}
	return asymmetricDD(ctx, c, 2*n, passes)
}

// ddmin is Zeller and Hildebrandt's minimising delta debugging applied to
// reverts: from a set whose revert passes it finds a 1-minimal subset
// whose revert passes. It is the baseline the benchmark reports beside
// AFTER; it assumes reverting c whole passes.
func ddmin(ctx context.Context, c []int, passes passFunc) ([]int, error) {
	n := 2
	for len(c) > 1 {
		parts := partition(c, n)
		reduced := false
		for _, part := range parts {
			ok, err := passes(ctx, part)
			if err != nil {
				return nil, err
			}
			if ok {
				c, n, reduced = part, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for _, part := range parts {
				rest := without(c, part)
				ok, err := passes(ctx, rest)
				if err != nil {
					return nil, err
				}
				if ok {
					c, n, reduced = rest, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(2*n, len(c))
		}
	}
	return c, nil
}

// compileFunc reports whether the test builds with a set of hunks
// reverted.
type compileFunc func(ctx context.Context, reverted []int) (bool, error)

// maxAuxChecks bounds the compile checks one shrinking of auxiliary hunks
// makes. On a rewrite whose hunks nearly all compile only together
// (hundreds of them) shrinking removes a few hunks in hundreds of checks,
// and the search would spend its budget there instead of on runs; past
// the bound the auxiliary hunks stay as shrunk so far, which compile.
const maxAuxChecks = 64

// minimizeAux is AFTER's Algorithm 4: given r and aux such that reverting
// r ∪ aux compiles, it shrinks aux while r ∪ aux keeps compiling, within
// maxAuxChecks checks. Parts keep the order of aux, which lists hunks
// file by file, so that a part is mostly hunks of one file.
func minimizeAux(ctx context.Context, r, aux []int, n int, compiles compileFunc) ([]int, error) {
	checks := 0
	try := func(set []int) (bool, error) {
		checks++
		return compiles(ctx, union(r, set))
	}
	for len(aux) >= n {
		reduced := false
		for _, part := range partition(aux, n) {
			if checks >= maxAuxChecks {
				return aux, nil
			}
			ok, err := try(part)
			if err != nil {
				return nil, err
			}
			if ok {
				aux, n, reduced = part, 2, true
				break
			}
			rest := without(aux, part)
			if ok, err = try(rest); err != nil {
				return nil, err
			}
			if ok {
				aux, n, reduced = rest, max(n-1, 2), true
				break
			}
		}
		if !reduced {
			n *= 2
		}
	}
	return aux, nil
}

// partition splits c into n parts of nearly equal size, in order.
func partition(c []int, n int) [][]int {
	n = min(n, len(c))
	out := make([][]int, 0, n)
	start := 0
	for i := range n {
		end := start + (len(c)-start)/(n-i)
		out = append(out, c[start:end:end])
		start = end
	}
	return out
}

// without returns the members of c not in part, in order.
func without(c, part []int) []int {
	var out []int
	for _, x := range c {
		if !slices.Contains(part, x) {
			out = append(out, x)
		}
	}
	return out
}

// union returns the sorted union of two sets of IDs.
func union(a, b []int) []int {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
