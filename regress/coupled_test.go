package regress

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestCoupledHunksFirst checks that a revert which compiles only with
// other hunks of its own function gets them as its auxiliary changes
// without shrinking every other hunk of the file: in coupled.txtar the
// compiler's error names nothing, and Sum's and Pos's hunks would each
// cost builds; and that the reverts which do not compile are told by the
// type checker, without builds.
func TestCoupledHunksFirst(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	target := testbuild.Target{Package: "example.com/coupled", Test: "TestTotal"}
	for _, c := range []struct {
		strategy string
		builds   int // 14 and 11 when every other hunk was shrunk, 12 and 9 when each revert was built
	}{{"after", 4}, {"ddmin", 4}} {
		t.Run(c.strategy, func(t *testing.T) {
			ex, _ := explainArchive(t, "coupled.txtar", target, Options{Strategy: c.strategy})
			if ex.Message != "" {
				t.Fatalf("message: %s", ex.Message)
			}
			// Which of Total's three hunks is the root and which are
			// auxiliary is delta debugging's choice: they revert only
			// together.
			var got []string
			for _, ch := range ex.Changes {
				got = append(got, fmt.Sprintf("%s:%d-%d", ch.File, ch.Line, ch.EndLine))
			}
			slices.Sort(got)
			if want := []string{"coupled.go:4-4", "coupled.go:5-4", "coupled.go:8-8"}; !slices.Equal(got, want) {
				t.Errorf("changes = %v, want %v", got, want)
			}
			if ex.Builds > c.builds || ex.TypeChecks == 0 {
				t.Errorf("%d builds and %d reverts type-checked in process, want at most %d builds", ex.Builds, ex.TypeChecks, c.builds)
			}
		})
	}
}

// TestSingleChange checks that the one change between the base and the
// working tree is the root without a search: no failing run recorded, and
// no rerun, since reverting it reads as the base, where the test passed.
func TestSingleChange(t *testing.T) {
	ex := explainExpecting(t, "single", "TestScale", Options{}, "root single.go:5-5")
	if ex.Found != "only" || ex.SemanticSeconds != 0 || ex.Reruns != 0 || ex.Builds != 0 {
		t.Errorf("found by %q with %.1fs semantic, %d reruns and %d builds, want the only change without a search or a rebuild of the base", ex.Found, ex.SemanticSeconds, ex.Reruns, ex.Builds)
	}
}

// TestRootInAddedCode checks that a root change which only calls a
// function the change adds gives way to that function when the failing
// run executes it: reverting the call only dodges the new code.
func TestRootInAddedCode(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	target := testbuild.Target{Package: "example.com/newcode", Test: "TestLabel"}
	ex, _ := explainArchive(t, "newcode.txtar", target, Options{})
	if ex.Message != "" {
		t.Fatalf("message: %s", ex.Message)
	}
	if got, want := describeChanges(ex), []string{"root pad.go:4-8", "auxiliary newcode.go:7-7", "auxiliary pad.go:1-3"}; !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	plain, _ := explainArchive(t, "newcode.txtar", target, Options{Strategy: "ddmin"})
	if got, want := describeChanges(plain), []string{"root newcode.go:7-7"}; !slices.Equal(got, want) {
		t.Errorf("ddmin changes = %v, want %v", got, want)
	}
}

// TestBudgetKeepsSmallestPass checks that a search stopped by its budget
// reports the smallest set it tried whose revert passes, and says so.
func TestBudgetKeepsSmallestPass(t *testing.T) {
	ex, _ := explainArchive(t, "budget.txtar", testbuild.Target{Package: "example.com/budget", Test: "TestArea"}, Options{Strategy: "ddmin", MaxReruns: 1})
	if ex.Message != "" {
		t.Fatalf("message: %s", ex.Message)
	}
	if got, want := describeChanges(ex), []string{"root budget.go:4-4", "root budget.go:5-5"}; !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	if ex.Found != "partial" || len(ex.Notes) == 0 || !strings.Contains(ex.Notes[0], "not a minimal one") {
		t.Errorf("found by %q, notes %q: want the smallest set tried, said so", ex.Found, ex.Notes)
	}
}

// TestRootBuildsAlone checks that of the hunks of a rewritten switch,
// which compile only together, the new case whose revert alone builds
// and passes is the root, not the hunk delta debugging tried first.
func TestRootBuildsAlone(t *testing.T) {
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	explainExpecting(t, "retagged", "TestKinds", Options{}, "root retagged.go:12-13")
}

// TestSingleAmongFew checks that among a few changes the only one whose
// revert alone passes is the root without recording the failing run: in
// nobuild.txtar the causes hold only the refactor, and the fallback found
// factor after recording.
func TestSingleAmongFew(t *testing.T) {
	ex := explainExpecting(t, "nobuild", "TestScale", Options{}, "root nobuild.go:3-3")
	if ex.Found != "single" || ex.SemanticSeconds != 0 || ex.NoRoot != "" {
		t.Errorf("found by %q with %.1fs semantic (no root: %q), want the single passing revert without recording", ex.Found, ex.SemanticSeconds, ex.NoRoot)
	}
}

// explainExpecting explains test in testdata/name.txtar (package
// example.com/name) and checks that it reports exactly the changes want.
func explainExpecting(t *testing.T, name, test string, opts Options, want ...string) *Explanation {
	t.Helper()
	ex, _ := explainArchive(t, name+".txtar", testbuild.Target{Package: "example.com/" + name, Test: test}, opts)
	if ex.Message != "" {
		t.Fatalf("message: %s", ex.Message)
	}
	if got := describeChanges(ex); !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	return ex
}
