package mutation

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

func openModule(t *testing.T, archive string) *testbuild.Module {
	t.Helper()
	dir := txtartest.Extract(t, filepath.Join("testdata", archive))
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// fileLines are every line of a module file.
func fileLines(t *testing.T, mod *testbuild.Module, file string) []Loc {
	data, err := os.ReadFile(filepath.Join(mod.Root, file))
	if err != nil {
		t.Fatal(err)
	}
	var out []Loc
	for i := range strings.Count(string(data), "\n") {
		out = append(out, Loc{file, i + 1})
	}
	return out
}

func covering(lines ...int) map[Loc]bool { return coveringIn("ops.go", lines...) }

func coveringIn(file string, lines ...int) map[Loc]bool {
	out := map[Loc]bool{}
	for _, l := range lines {
		out[Loc{file, l}] = true
	}
	return out
}

// TestOperatorFixes finds the verified operator fix of each fault, and
// the faulty lines score highest.
func TestOperatorFixes(t *testing.T) {
	mod := openModule(t, "operators.txtar")
	const pkg = "example.com/ops"
	tests := []Test{
		{pkg, "TestRatio", true, covering(5), 0},
		{pkg, "TestRatioOne", false, covering(5), 0},
		{pkg, "TestDrain", true, covering(10, 11), 0},
		{pkg, "TestDrainNothing", false, covering(10, 11), 0},
		{pkg, "TestInRangeTop", true, covering(16), 0},
		{pkg, "TestInRangeMiddle", false, covering(16), 0},
	}
	res, err := Analyze(context.Background(), mod, fileLines(t, mod, "ops.go"), tests, Options{MaxMutants: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BuildErrors) > 0 {
		t.Fatalf("schemata did not build: %v", res.BuildErrors)
	}
	fixes := map[string]bool{}
	for _, k := range res.Kills {
		if k.Fix {
			fixes[k.Mutant.Edited] = true
		}
	}
	for _, want := range []string{"return a / b", "level -= n", "return lo <= x && x <= hi"} {
		if !fixes[want] {
			t.Errorf("no verified operator fix %q; fixes: %v", want, fixes)
		}
	}
	for _, l := range []int{5, 10, 16} {
		s := res.Lines[Loc{"ops.go", l}]
		if s.Fixes == 0 || s.Metallaxis <= 0 {
			t.Errorf("line %d: %+v", l, s)
		}
	}
	t.Logf("scores: %+v", res.Lines)
}

// TestBooleanFlipsFindFixesOnly: a flipped boolean constant is a verified
// fix of the fault it undoes, one that breaks a passing test is not, and
// neither counts in its line's scores.
func TestBooleanFlipsFindFixesOnly(t *testing.T) {
	mod := openModule(t, "booleans.txtar")
	const pkg = "example.com/booleans"
	in := func(lines ...int) map[Loc]bool { return coveringIn("booleans.go", lines...) }
	tests := []Test{
		{pkg, "TestDefaultsTrim", true, in(10, 11), 0},
		{pkg, "TestDefaultsStrict", false, in(10, 11), 0},
	}
	res, err := Analyze(context.Background(), mod, fileLines(t, mod, "booleans.go"), tests, Options{MaxMutants: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BuildErrors) > 0 {
		t.Fatalf("schemata did not build: %v", res.BuildErrors)
	}
	fixes := map[int][]string{}
	flips := 0
	for _, k := range res.Kills {
		if k.Mutant.FixOnly {
			flips++
			if k.Mutant.Operator != OpConstant {
				t.Errorf("fix-only mutant of operator %s: %+v", k.Mutant.Operator, k.Mutant)
			}
		}
		if k.Fix {
			fixes[k.Mutant.Line] = append(fixes[k.Mutant.Line], k.Mutant.Edited)
		}
	}
	if flips != 2 || res.Cut {
		t.Errorf("%d boolean flips ran (cut: %v), want 2 (trim's and strict's)", flips, res.Cut)
	}
	if want := "trim := false"; !slices.Contains(fixes[10], want) {
		t.Errorf("line 10: no verified fix %q; fixes: %v", want, fixes)
	}
	if len(fixes[11]) > 0 {
		t.Errorf("strict: false breaks TestDefaultsStrict, yet is a fix: %v", fixes[11])
	}
	// Line 10's only mutant is its flip: a fix, and no score.
	if s := res.Lines[Loc{"booleans.go", 10}]; s.Fixes != 1 || s.Mutants != 0 || s.Metallaxis != 0 || s.MUSE != 0 {
		t.Errorf("line 10: %+v, want one fix and no scored mutant", s)
	}
	// Line 11's flip broke a passing test: its scores do not say so.
	if s := res.Lines[Loc{"booleans.go", 11}]; s.Mutants != 0 || s.Fixes != 0 {
		t.Errorf("line 11: %+v, want no scored mutant and no fix", s)
	}
}

// TestTrickySitesCompile builds the schemata of every line of a file full
// of sites a careless rewrite breaks, and the unmutated binary passes.
func TestTrickySitesCompile(t *testing.T) {
	mod := openModule(t, "tricky.txtar")
	s, err := Generate(mod, fileLines(t, mod, "tricky.go"), 1000)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, m := range s.Mutants {
		ops[m.Operator]++
	}
	for _, op := range []string{OpArithmetic, OpBoundary, OpNegation, OpLogical, OpConstant, OpAssignment, OpRemoval} {
		if ops[op] == 0 {
			t.Errorf("no %s mutant; mutants: %v", op, ops)
		}
	}
	var flips []string
	for _, m := range s.Mutants {
		if m.FixOnly {
			flips = append(flips, fmt.Sprintf("%d: %s", m.Line, m.Edited))
		}
	}
	// booleans' flippable constants: more's two settings, and none in a
	// constant expression (an untyped one), the constant declaration, the
	// named flag or the shadowed true.
	if want := []string{"82: more := true", "84: more = false"}; !slices.Equal(flips, want) {
		t.Errorf("boolean flips %q, want %q", flips, want)
	}
	ctx := context.Background()
	bin, err := s.Build(ctx, "example.com/tricky")
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{mod: mod, bin: bin, opts: Options{Timeout: 20e9}}
	out, err := r.run(ctx, -1, []Test{{Name: "TestAll"}})
	if err != nil {
		t.Fatal(err)
	}
	if !out["TestAll"].passed {
		t.Errorf("the unmutated schemata fails: %s", out["TestAll"].output)
	}
}

// TestScore checks both formulas on kills worked out by hand: one failing
// and two passing tests; mutant 0 on line 1 makes the failing test pass,
// mutant 1 on line 2 changes its failure and fails both passing tests.
func TestScore(t *testing.T) {
	kills := []Kill{
		{Mutant: Mutant{ID: 0, File: "f.go", Line: 1}, FailToPass: 1, FailChanged: 1},
		{Mutant: Mutant{ID: 1, File: "f.go", Line: 2}, FailChanged: 1, PassToFail: 2},
	}
	// Fix-only mutants count in no score, only in their line's fixes.
	kills = append(kills,
		Kill{Mutant: Mutant{ID: 2, File: "f.go", Line: 2, FixOnly: true}, FailToPass: 1, FailChanged: 1, PassToFail: 2},
		Kill{Mutant: Mutant{ID: 3, File: "f.go", Line: 3, FixOnly: true}, FailToPass: 1, FailChanged: 1, Fix: true})
	got := Score(kills, 1, 2)
	if g := got[Loc{"f.go", 3}]; g != (Scores{Fixes: 1}) {
		t.Errorf("line 3 (a fix-only fix): %+v, want only the fix", g)
	}
	// f2p 1, p2f 2, α = 1·2/(1·2) = 1.
	want := map[Loc]Scores{
		{"f.go", 1}: {Metallaxis: 1, MUSE: (1.0 / 2) / 2, Mutants: 1},
		{"f.go", 2}: {Metallaxis: 1 / math.Sqrt(3), MUSE: -(2.0 / 3) / 2, Mutants: 1},
	}
	for l, w := range want {
		g := got[l]
		if math.Abs(g.Metallaxis-w.Metallaxis) > 1e-9 || math.Abs(g.MUSE-w.MUSE) > 1e-9 || g.Mutants != w.Mutants {
			t.Errorf("%v: %+v, want %+v", l, g, w)
		}
	}
}

// TestRunBudgetCountsFromTheFirstRun: generating and building the
// schemata do not use up the run budget, so even the smallest budget runs
// one mutant, and then stops.
func TestRunBudgetCountsFromTheFirstRun(t *testing.T) {
	mod := openModule(t, "operators.txtar")
	const pkg = "example.com/ops"
	tests := []Test{
		{pkg, "TestRatio", true, covering(5), 0},
		{pkg, "TestRatioOne", false, covering(5), 0},
	}
	res, err := Analyze(context.Background(), mod, fileLines(t, mod, "ops.go"), tests, Options{MaxMutants: 100, RunBudget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Generated < 2 || res.Run != 1 {
		t.Errorf("run budget of 1ns: %d of %d mutants ran, want 1", res.Run, res.Generated)
	}
}

// TestDeadlineBoundsTheRuns: a deadline passed before the first run lets
// no mutant run, whatever the run budget, and one far off leaves the run
// budget in charge: every mutant with a covering test runs without one.
func TestDeadlineBoundsTheRuns(t *testing.T) {
	mod := openModule(t, "operators.txtar")
	const pkg = "example.com/ops"
	tests := []Test{
		{pkg, "TestRatio", true, covering(5), 0},
		{pkg, "TestRatioOne", false, covering(5), 0},
	}
	lines := fileLines(t, mod, "ops.go")
	for _, c := range []struct {
		name     string
		deadline time.Time
		budget   time.Duration
		want     func(run, generated int) bool
	}{
		{"passed", time.Now().Add(-time.Second), time.Hour, func(run, _ int) bool { return run == 0 }},
		{"far off", time.Now().Add(time.Hour), time.Nanosecond, func(run, _ int) bool { return run == 1 }},
		{"far off, no budget", time.Now().Add(time.Hour), 0, func(run, _ int) bool { return run == 2 }},
	} {
		res, err := Analyze(context.Background(), mod, lines, tests, Options{MaxMutants: 100, RunBudget: c.budget, Deadline: c.deadline})
		if err != nil {
			t.Fatal(err)
		}
		if res.Generated < 2 || !c.want(res.Run, res.Generated) {
			t.Errorf("deadline %s, run budget %v: %d of %d mutants ran", c.name, c.budget, res.Run, res.Generated)
		}
		if cut := c.budget != 0 || c.deadline.Before(time.Now()); res.Cut != cut {
			t.Errorf("deadline %s, run budget %v: cut %v, want %v", c.name, c.budget, res.Cut, cut)
		}
	}
}

func TestRunPattern(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"TestA"}, "^(TestA)$"},
		{[]string{"TestA", "TestB"}, "^(TestA|TestB)$"},
		{[]string{"TestCli/double_dash", "TestCli/x.y", "TestOther/case"}, `^(TestCli|TestOther)$/^(double_dash|x\.y|case)$`},
		// Mixed depths run the top-level tests whole.
		{[]string{"TestA", "TestB/case/deeper"}, "^(TestA|TestB)$"},
		{[]string{"TestB/a/b", "TestB/a/c"}, "^(TestB)$/^(a)$/^(b|c)$"},
	} {
		if got := runPattern(c.names); got != c.want {
			t.Errorf("runPattern(%q) = %s, want %s", c.names, got, c.want)
		}
	}
}

// TestRunOrder: round by round, each round the lines in the order given.
func TestRunOrder(t *testing.T) {
	mu := func(line int) Mutant { return Mutant{File: "f.go", Line: line} }
	mutants := []Mutant{mu(1), mu(1), mu(2), mu(3), mu(3), mu(3)}
	lines := []Loc{{"f.go", 3}, {"f.go", 1}, {"f.go", 2}}
	got := runOrder(mutants, lines)
	want := []int{3, 0, 2, 4, 1, 5}
	if !slices.Equal(got, want) {
		t.Errorf("runOrder = %v, want %v", got, want)
	}
}

// TestBudgetReachesEveryLine: the failing case is fast and every passing
// run slow (two tests of 0.4 s). Within a run budget that fits a few slow
// runs, every mutant's failing side runs, the table's slow case does not
// run beside the failing one, and the fix on the line given first is
// verified before the budget ends.
func TestBudgetReachesEveryLine(t *testing.T) {
	mod := openModule(t, "slowpass.txtar")
	const pkg = "example.com/slow"
	lines := []Loc{{"slow.go", 9}, {"slow.go", 5}, {"slow.go", 6}, {"slow.go", 7}, {"slow.go", 8}}
	all := map[Loc]bool{}
	for _, l := range lines {
		all[l] = true
	}
	tests := []Test{
		{pkg, "TestScore/small", true, all, time.Millisecond},
		{pkg, "TestScore/slow_case", false, all, 400 * time.Millisecond},
		{pkg, "TestScoreSlow", false, all, 400 * time.Millisecond},
	}
	res, err := Analyze(context.Background(), mod, lines, tests, Options{MaxMutants: 100, Timeout: 5 * time.Second, RunBudget: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Generated < 8 || res.Run != res.Generated {
		t.Errorf("%d of %d mutants ran within the budget", res.Run, res.Generated)
	}
	fixed := false
	for _, k := range res.Kills {
		if k.Covering == 0 {
			t.Errorf("mutant %q ran no test", k.Mutant.Edited)
		}
		fixed = fixed || (k.Fix && k.Mutant.Edited == "return s / 2")
	}
	if !fixed {
		t.Errorf("no verified fix \"return s / 2\"; kills: %+v", res.Kills)
	}
}

// TestHangingMutantIsKilled: the mutant that turns the loop's increment
// into a decrement never ends for n ≥ 1: its failing tests' runs stop at
// the timeout, which changes both failures, and the other mutants still
// run.
func TestHangingMutantIsKilled(t *testing.T) {
	mod := openModule(t, "hang.txtar")
	const pkg = "example.com/hang"
	loop := coveringIn("sum.go", 5, 6, 7, 9)
	tests := []Test{
		{pkg, "TestSumThree", true, loop, 0},
		{pkg, "TestSumOne", true, loop, 0},
		{pkg, "TestSumZero", false, loop, 0},
	}
	res, err := Analyze(context.Background(), mod, fileLines(t, mod, "sum.go"), tests, Options{MaxMutants: 100, Timeout: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run != res.Generated {
		t.Errorf("%d of %d mutants ran", res.Run, res.Generated)
	}
	var hang *Kill
	for i, k := range res.Kills {
		if k.Mutant.Edited == "for i := 1; i <= n; i-- {" {
			hang = &res.Kills[i]
		}
	}
	if hang == nil {
		t.Fatalf("no decrement mutant on the loop; kills: %+v", res.Kills)
	}
	if hang.FailChanged != 2 || hang.FailToPass != 0 || hang.Fix {
		t.Errorf("the hanging mutant: %+v, want both failures changed and none fixed", *hang)
	}
}
