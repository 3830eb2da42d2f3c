package regress

import (
	"context"
	"slices"
	"testing"
)

// paperOracle is the running example as the notes abstract it: with the
// changes in applied, the test fails when c3 is applied, or c1 and c2 are.
// Changes are 1..4; a revert applies the others.
func paperOracle(runs *int) passFunc {
	seen := map[string]bool{}
	return func(_ context.Context, reverted []int) (bool, error) {
		if k := key(sorted(reverted)); !seen[k] {
			seen[k] = true
			*runs++
		}
		applied := func(c int) bool { return !slices.Contains(reverted, c) }
		fails := applied(3) || applied(1) && applied(2)
		return !fails, nil
	}
}

func TestAsymmetricDDRunningExample(t *testing.T) {
	ctx := context.Background()
	runs := 0
	passes := paperOracle(&runs)
	got, err := asymmetricDD(ctx, []int{3}, 2, passes)
	if err != nil || got != nil {
		t.Fatalf("on {c3}: %v, %v; want nothing", got, err)
	}
	got, err = asymmetricDD(ctx, []int{2, 3}, 2, passes)
	if err != nil || !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("on {c2, c3}: %v, %v; want [2 3]", got, err)
	}
	// {c3}, then {c2} and {c2, c3}: three distinct runs.
	if runs != 3 {
		t.Errorf("runs = %d, want 3", runs)
	}
}

func TestDDMinFindsAOneMinimalRevert(t *testing.T) {
	runs := 0
	got, err := ddmin(context.Background(), []int{1, 2, 3, 4}, paperOracle(&runs))
	if err != nil {
		t.Fatal(err)
	}
	// Either {c2, c3} or {c1, c3} is 1-minimal; ddmin meets {c2, c3}
	// first.
	if !slices.Equal(got, []int{2, 3}) {
		t.Errorf("ddmin = %v, want [2 3]", got)
	}
}

// TestAsymmetricDDNeedsPassingRuns checks that a failing revert never
// drops a change: with the failure needing both of two changes reverted
// among eight, the pair is found.
func TestAsymmetricDDNeedsPassingRuns(t *testing.T) {
	passes := func(_ context.Context, reverted []int) (bool, error) {
		return slices.Contains(reverted, 2) && slices.Contains(reverted, 7), nil
	}
	got, err := asymmetricDD(context.Background(), []int{0, 1, 2, 3, 4, 5, 6, 7}, 2, passes)
	if err != nil || !slices.Equal(got, []int{2, 7}) {
		t.Errorf("got %v, %v; want [2 7]", got, err)
	}
}

func TestMinimizeAux(t *testing.T) {
	// Reverting 1 compiles only together with 4 and 6.
	compiles := func(_ context.Context, set []int) (bool, error) {
		if !slices.Contains(set, 1) {
			return true, nil
		}
		return slices.Contains(set, 4) && slices.Contains(set, 6), nil
	}
	got, err := minimizeAux(context.Background(), []int{1}, []int{2, 3, 4, 5, 6, 7}, 2, compiles)
	if err != nil || !slices.Equal(got, []int{4, 6}) {
		t.Errorf("got %v, %v; want [4 6]", got, err)
	}
}

// TestMinimizeAuxBounded checks that shrinking auxiliary hunks that are
// all needed (a rewrite whose hunks compile only together) stops after
// maxAuxChecks checks with a set that compiles, not after hundreds.
func TestMinimizeAuxBounded(t *testing.T) {
	var aux []int
	for i := 1; i <= 300; i++ {
		aux = append(aux, i)
	}
	checks := 0
	compiles := func(_ context.Context, set []int) (bool, error) {
		checks++
		return len(set) == 301, nil
	}
	got, err := minimizeAux(context.Background(), []int{0}, aux, 2, compiles)
	if err != nil || !slices.Equal(got, aux) {
		t.Errorf("got %d hunks, %v; want all 300", len(got), err)
	}
	if checks > maxAuxChecks {
		t.Errorf("%d checks, want at most %d", checks, maxAuxChecks)
	}
}

func TestPartition(t *testing.T) {
	parts := partition([]int{1, 2, 3, 4, 5}, 3)
	if len(parts) != 3 || len(parts[0])+len(parts[1])+len(parts[2]) != 5 {
		t.Errorf("partition = %v", parts)
	}
	if got := partition([]int{1, 2}, 4); len(got) != 2 {
		t.Errorf("more parts than members: %v", got)
	}
}
