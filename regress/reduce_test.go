package regress

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// rewriteCompletion completes a revert the way the compiler does on a
// rewrite: reverting any hunk of rewrite needs all of them reverted.
func rewriteCompletion(rewrite []int) closeFunc {
	return func(_ context.Context, set []int) ([]int, error) {
		if slices.ContainsFunc(set, func(h int) bool { return slices.Contains(rewrite, h) }) {
			return union(set, rewrite), nil
		}
		return sorted(set), nil
	}
}

// revertPasses passes when every hunk of need is reverted.
func revertPasses(need ...int) passFunc {
	return func(_ context.Context, reverted []int) (bool, error) {
		for _, h := range need {
			if !slices.Contains(reverted, h) {
				return false, nil
			}
		}
		return true, nil
	}
}

// TestClosedDDMinStepsOverARewrite checks that hunks that compile only
// together do not hide a culprit elsewhere: the search ends at it.
func TestClosedDDMinStepsOverARewrite(t *testing.T) {
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	units, full, err := closedDDMin(context.Background(), singles(all), all, rewriteCompletion([]int{0, 1, 2, 3, 4}), revertPasses(7), singles)
	if err != nil {
		t.Fatal(err)
	}
	if got := flatten(units); !slices.Equal(got, []int{7}) || !slices.Equal(full, []int{7}) {
		t.Errorf("closedDDMin = %v (revert %v), want [7]", got, full)
	}
}

// TestClosedDDMinKeepsAWholeRewrite checks that when the culprit lies in
// a rewrite whose hunks compile only together, the whole rewrite is
// kept, where ddmin over the completed reverts ends at whichever hunk it
// tried first and names it alone.
func TestClosedDDMinKeepsAWholeRewrite(t *testing.T) {
	ctx := context.Background()
	rewrite := []int{0, 1, 2, 3, 4, 5}
	complete := rewriteCompletion(rewrite)
	passes := revertPasses(3)
	units, full, err := closedDDMin(ctx, singles(rewrite), rewrite, complete, passes, singles)
	if err != nil {
		t.Fatal(err)
	}
	if got := flatten(units); !slices.Equal(got, rewrite) || !slices.Equal(full, rewrite) {
		t.Errorf("closedDDMin = %v (revert %v), want the whole rewrite", got, full)
	}
	completed := func(ctx context.Context, set []int) (bool, error) {
		f, _ := complete(ctx, set)
		return passes(ctx, f)
	}
	if got, _ := ddmin(ctx, rewrite, completed); len(got) != 1 || got[0] == 3 {
		t.Errorf("ddmin over completed reverts = %v; the case no longer shows what it guards against", got)
	}
}

// TestClosedDDMinOverGroups checks the search over groups of hunks: the
// group holding the culprit is kept whole.
func TestClosedDDMinOverGroups(t *testing.T) {
	groups := [][]int{{0, 1}, {2}, {3, 4, 5}, {6, 7}}
	full := flatten(groups)
	units, _, err := closedDDMin(context.Background(), groups, full, rewriteCompletion(nil), revertPasses(4, 5), keepGroups(groups))
	if err != nil {
		t.Fatal(err)
	}
	if got := flatten(units); !slices.Equal(got, []int{3, 4, 5}) {
		t.Errorf("closedDDMin = %v, want [3 4 5]", got)
	}
}

// TestDeclUnits checks that hunks sharing a declaration, directly or
// through another hunk, form one group, and that a hunk of no
// declaration is alone.
func TestDeclUnits(t *testing.T) {
	d := &declHunks{decls: map[int][]string{
		0: {"f.go\x00func a"},
		1: {"f.go\x00func a", "f.go\x00func b"},
		2: {"f.go\x00func b"},
		3: {"f.go\x00func c"},
		5: {"f.go\x00func c"},
	}}
	got := declUnits(d, []int{5, 4, 3, 2, 1, 0})
	want := [][]int{{0, 1, 2}, {3, 5}, {4}}
	if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
		t.Errorf("declUnits = %v, want %v", got, want)
	}
}

// keepGroups regroups a revert into the groups given, each cut down to
// the revert.
func keepGroups(groups [][]int) func([]int) [][]int {
	return func(set []int) [][]int {
		var out [][]int
		for _, g := range groups {
			var kept []int
			for _, h := range g {
				if slices.Contains(set, h) {
					kept = append(kept, h)
				}
			}
			if len(kept) > 0 {
				out = append(out, kept)
			}
		}
		return out
	}
}

// TestClosedDDMinDropsADeclarationForItsUse checks that a declaration
// added whole, whose revert compiles only with its use reverted too,
// gives way to the use: reverting the use alone compiles and passes, and
// the declaration without a use changes nothing.
func TestClosedDDMinDropsADeclarationForItsUse(t *testing.T) {
	const decl, use = 1, 5
	complete := func(_ context.Context, set []int) ([]int, error) {
		if slices.Contains(set, decl) {
			return union(set, []int{use}), nil
		}
		return sorted(set), nil
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	units, full, err := closedDDMin(context.Background(), singles(all), all, complete, revertPasses(use), singles)
	if err != nil {
		t.Fatal(err)
	}
	if got := flatten(units); !slices.Equal(got, []int{use}) || !slices.Equal(full, []int{use}) {
		t.Errorf("closedDDMin = %v (revert %v), want [%d]", got, full, use)
	}
}

// TestClosedDDMinKeepsItsProgressWhenTheBudgetRunsOut checks that a
// search stopped by the budget returns the smallest revert it found
// that passes, with the error.
func TestClosedDDMinKeepsItsProgressWhenTheBudgetRunsOut(t *testing.T) {
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	runs := 0
	passes := func(ctx context.Context, reverted []int) (bool, error) {
		if runs++; runs > 2 {
			return false, errBudget
		}
		return revertPasses(6)(ctx, reverted)
	}
	units, full, err := closedDDMin(context.Background(), singles(all), all, rewriteCompletion(nil), passes, singles)
	if !errors.Is(err, errBudget) {
		t.Fatalf("err = %v, want the budget's", err)
	}
	if got := flatten(units); !slices.Equal(got, []int{4, 5, 6, 7}) || !slices.Equal(full, got) {
		t.Errorf("closedDDMin = %v (revert %v), want [4 5 6 7], the one revert that passed", got, full)
	}
}
