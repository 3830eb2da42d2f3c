//go:build cgo

package analysis

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestSeededFaults analyses failing tests of the benchmark's seeded-fault
// programs (bench/analysis/programs) and checks that the faulty line is in
// a verified candidate: a helper call that forgets to negate, a parallel
// assignment in a loop, a Boolean chain with && for ||, an int32 overflow.
func TestSeededFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds several instrumented test binaries")
	}
	cases := []struct {
		program, pkg string
		tests        []string
	}{
		{"distance", "example.com/distance", []string{"TestManhattan/backward_x"}},
		{"fib", "example.com/fib", []string{"TestFib"}},
		{"leap", "example.com/leap", []string{"TestDays/2024", "TestDays/2000"}},
		{"midpoint", "example.com/midpoint", []string{"TestMidLarge"}},
	}
	for _, c := range cases {
		t.Run(c.program, func(t *testing.T) {
			t.Parallel()
			dir := extractFrom(t, filepath.Join("..", "bench", "analysis", "programs", c.program+".txtar"))
			data, err := os.ReadFile(filepath.Join(dir, "fault.json"))
			if err != nil {
				t.Fatal(err)
			}
			var fault struct {
				File string
				Line int
			}
			if err := json.Unmarshal(data, &fault); err != nil {
				t.Fatal(err)
			}
			var targets []testbuild.Target
			for _, name := range c.tests {
				targets = append(targets, testbuild.Target{Package: c.pkg, Test: name})
			}
			// Single locations and a short budget keep the test quick; the
			// benchmark runs with the defaults.
			res, err := Analyze(context.Background(), open(t, dir), targets, Options{MaxSize: 1, Budget: 10 * time.Second}.WithWallCap(10*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(c.tests) {
				t.Fatalf("got %d results, want %d", len(res), len(c.tests))
			}
			for _, r := range res {
				checkFaultFound(t, r, fault.File, fault.Line)
			}
		})
	}
}

// checkFaultFound checks that every candidate of r is verified and that one
// of them covers the faulty line.
func checkFaultFound(t *testing.T, r TestResult, file string, line int) {
	t.Helper()
	found := false
	var seen []string
	for _, cand := range r.Candidates {
		if !cand.Verified {
			t.Errorf("%s: unverified candidate reported", r.Test)
		}
		for _, l := range cand.Locations {
			seen = append(seen, l.File+":"+l.Expr+" -> "+l.Angelic)
			if l.File == file && l.Line <= line && line <= l.EndLine {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("%s: faulty line %s:%d in no verified candidate; got %s; notes %v",
			r.Test, file, line, strings.Join(seen, ", "), r.Notes)
	}
}

// checkFormulaFinds analyses the named tests of pkg in dir with single
// locations and checks that each faulty line (by test) is in a verified
// candidate the formula found, not predicate switching.
func checkFormulaFinds(t *testing.T, dir, pkg, file string, faulty map[string]int) {
	t.Helper()
	checkFormulaFindsWith(t, Options{MaxSize: 1}, dir, pkg, file, faulty)
}

// checkFormulaFindsWith is checkFormulaFinds with other options.
func checkFormulaFindsWith(t *testing.T, opts Options, dir, pkg, file string, faulty map[string]int) {
	t.Helper()
	var targets []testbuild.Target
	for name := range faulty {
		targets = append(targets, testbuild.Target{Package: pkg, Test: name})
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].Test < targets[j].Test })
	res, err := Analyze(context.Background(), open(t, dir), targets, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(faulty) {
		t.Fatalf("got %d results, want %d", len(res), len(faulty))
	}
	for _, r := range res {
		if r.Switched != 0 {
			t.Errorf("%s: %d candidates by predicate switching; notes %v", r.Test, r.Switched, r.Notes)
		}
		checkFaultFound(t, r, file, faulty[r.Test])
	}
}

// checkPassesInstrumented checks that tests which pass uninstrumented pass
// instrumented too: the analysis finds nothing to fix.
func checkPassesInstrumented(t *testing.T, dir, pkg string, tests ...string) {
	t.Helper()
	var targets []testbuild.Target
	for _, name := range tests {
		targets = append(targets, testbuild.Target{Package: pkg, Test: name})
	}
	res, err := Analyze(context.Background(), open(t, dir), targets, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if len(r.Candidates) != 0 || !slices.Contains(r.Notes, "the test passes: nothing to fix") {
			t.Errorf("instrumented %s: %d candidates, notes %v", r.Test, len(r.Candidates), r.Notes)
		}
	}
}
