package mutation

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis/mutation/faultlinemut"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Test is one leaf test of the spectra and the lines it executed.
type Test struct {
	Package string
	Name    string
	Failing bool
	Lines   map[Loc]bool
	Elapsed time.Duration // its run in the collection, which bounds its runs here
}

// Options bound a mutation analysis.
type Options struct {
	MaxMutants int // mutants generated at most
	// Timeout is the least time one run of a mutant's covering tests may
	// take: a run may take ten times its tests' time in the collection,
	// and ten times what the package's test process costs beyond its
	// tests (measured on the unmutated run), when those are longer. A run
	// past its time counts as a hang, which fails its tests: a mutant that
	// makes a test ten times slower is killed by it. Hangs are common
	// (a flipped loop condition), so this is what most bounds how many
	// mutants a budget runs.
	Timeout time.Duration
	// RunBudget bounds the mutants' runs: none starts once this long has
	// passed since the first started; 0 for no bound. It counts from the
	// first run, not from the start, so that generating and building the
	// schemata (seconds on a real module) do not use up a small budget
	// before any mutant runs.
	RunBudget time.Duration
	// Deadline, when set, is when the analysis's runs end whatever the
	// run budget: no package is built and no mutant starts after it, and
	// a run under way stops there. It is how a caller shares one window
	// between this analysis and others.
	Deadline time.Time
}

// passed says whether the deadline t, when set, has passed.
func passed(t time.Time) bool { return !t.IsZero() && time.Now().After(t) }

// earliest is the earlier of two deadlines, a zero one being none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// Kill is what one mutant did to the tests that cover its line.
type Kill struct {
	Mutant Mutant `json:"mutant"`
	// FailToPass and PassToFail count the covering failing tests it made
	// pass and the covering passing tests it made fail (or crash, or hang);
	// FailChanged the failing tests whose failure it changed (passing
	// included).
	FailToPass  int `json:"failToPass"`
	PassToFail  int `json:"passToFail"`
	FailChanged int `json:"failChanged"`
	Covering    int `json:"covering"` // covering tests run
	// Fix says every covering failing test passed and every covering
	// passing test still passed: a verified operator fix.
	Fix bool `json:"fix,omitempty"`
	// Partial says some of its covering tests did not run under it (the
	// budget ended first, a package's schemata did not build, or a test's
	// verdict unmutated differed from the collection's): its passing
	// side, when it did not run, counts as unbroken.
	Partial bool `json:"partial,omitempty"`
}

// Result is a mutation analysis: each mutant run, and the lines' scores.
type Result struct {
	Kills     []Kill         `json:"kills"`
	Generated int            `json:"generated"`
	Run       int            `json:"run"`
	Elapsed   time.Duration  `json:"elapsed"`
	Lines     map[Loc]Scores `json:"-"`
	// BuildErrors are the packages whose schemata binary did not build.
	BuildErrors map[string]string `json:"buildErrors,omitempty"`
	// Cut says the run budget or the deadline stopped the runs before
	// every scored mutant with a covering test ran: another run, given
	// more time, may score the lines otherwise. Fix-only mutants the
	// budget left unrun do not count.
	Cut bool `json:"cut,omitempty"`
}

// Scores are a line's mutation-based suspiciousness.
type Scores struct {
	Metallaxis float64 // the best Ochiai score of its mutants' kills
	MUSE       float64
	Mutants    int // mutants run on the line, fix-only ones left out
	Fixes      int // verified operator fixes on the line, fix-only ones' included
}

// Analyze generates mutants for lines (most suspicious first), builds one
// schemata binary per package whose tests cover them, runs each mutant
// against its covering tests and scores the lines.
func Analyze(ctx context.Context, mod *testbuild.Module, lines []Loc, tests []Test, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	s, err := Generate(mod, lines, opts.MaxMutants)
	if err != nil {
		return nil, err
	}
	res := &Result{Generated: len(s.Mutants), BuildErrors: map[string]string{}}
	if len(s.Mutants) == 0 {
		res.Lines = map[Loc]Scores{}
		return res, nil
	}
	// Only the tests that cover a mutant run.
	mutated := map[Loc]bool{}
	for _, m := range s.Mutants {
		mutated[Loc{m.File, m.Line}] = true
	}
	byPkg := map[string][]Test{}
	for _, t := range tests {
		for l := range t.Lines {
			if mutated[l] {
				byPkg[t.Package] = append(byPkg[t.Package], t)
				break
			}
		}
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	kills := make([]Kill, len(s.Mutants))
	for i, m := range s.Mutants {
		kills[i].Mutant = m
	}
	// deadline is the first run's start plus the run budget, or
	// opts.Deadline when that is earlier; before the first run, only
	// opts.Deadline bounds.
	var deadline time.Time
	over := func() bool { return passed(deadline) || passed(opts.Deadline) }
	var runners []*pkgRunner
	for _, pkg := range pkgs {
		if over() {
			res.Cut = true
			break
		}
		bin, err := s.Build(ctx, pkg)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.BuildErrors[pkg] = err.Error()
			continue
		}
		r := &runner{mod: mod, bin: bin, opts: opts, deadline: opts.Deadline}
		began := time.Now()
		base, err := r.run(ctx, -1, byPkg[pkg])
		if err != nil {
			return nil, err
		}
		r.overhead = max(time.Since(began)-elapsed(byPkg[pkg]), 0)
		runners = append(runners, &pkgRunner{runner: r, pkg: pkg, tests: byPkg[pkg], base: base})
	}
	// A mutant's fix is verified only when every test covering its line
	// ran under it, in every package: needed counts the package runs of
	// each side (failing, passing) it has, done those that ran.
	needed, done := make([]int, len(s.Mutants)), make([]int, len(s.Mutants))
	partial := make([]bool, len(s.Mutants))
	for _, pr := range runners {
		pr.fail, pr.pass = make([][]Test, len(s.Mutants)), make([][]Test, len(s.Mutants))
		for i, m := range s.Mutants {
			var stale bool
			pr.fail[i], pr.pass[i], stale = pr.covering(m)
			partial[i] = partial[i] || stale
			needed[i] += min(len(pr.fail[i]), 1) + min(len(pr.pass[i]), 1)
		}
	}
	// A package whose schemata did not build, or was not built before the
	// deadline, runs none of its tests.
	for _, pkg := range pkgs {
		if slices.ContainsFunc(runners, func(pr *pkgRunner) bool { return pr.pkg == pkg }) {
			continue
		}
		for i, m := range s.Mutants {
			if slices.ContainsFunc(byPkg[pkg], func(t Test) bool { return t.Lines[Loc{m.File, m.Line}] }) {
				partial[i] = true
			}
		}
	}
	// The runs go in phases, each over the mutants in runOrder: the
	// covering failing tests first, fast as a rule and all that
	// Metallaxis-FL needs of a mutant that changes no failure; then the
	// covering passing tests of the mutants that changed a failure (their
	// Metallaxis-FL scores, and whether they are fixes); then the other
	// mutants' passing tests (MUSE's broken passing tests). A budget
	// that ends early so leaves each run mutant's failing side known; once
	// it ends, no later phase runs either. The fix-only mutants come last:
	// their failing tests, then the passing tests of those that made
	// every covering failing test pass.
	order := runOrder(s.Mutants, lines)
	wantFixed := make([]int, len(s.Mutants))
	for i, m := range s.Mutants {
		wantFixed[i] = coveringFailing(tests, m)
	}
	phases := []struct {
		failing, fixOnly bool
		want             func(i int, k *Kill) bool
	}{
		{true, false, func(_ int, k *Kill) bool { return !k.Mutant.FixOnly }},
		{false, false, func(_ int, k *Kill) bool { return !k.Mutant.FixOnly && k.FailChanged > 0 }},
		{false, false, func(_ int, k *Kill) bool { return !k.Mutant.FixOnly && k.FailChanged == 0 }},
		{true, true, func(_ int, k *Kill) bool { return k.Mutant.FixOnly }},
		{false, true, func(i int, k *Kill) bool { return k.Mutant.FixOnly && k.FailToPass > 0 && k.FailToPass == wantFixed[i] }},
	}
	// scored says every scored mutant's runs ended within the budget: one
	// that then cuts the fix-only mutants short leaves the scores whole,
	// and the analysis is not Cut (it is cached; the fix-only mutants
	// are tried again when the code changes).
	scored := false
runs:
	for _, ph := range phases {
		if ph.fixOnly && !scored {
			if over() {
				res.Cut = true
				break
			}
			scored = true
		}
		for _, i := range order {
			k := &kills[i]
			if !ph.want(i, k) {
				continue
			}
			for _, pr := range runners {
				if over() {
					res.Cut = !scored
					break runs
				}
				covering := pr.pass[i]
				if ph.failing {
					covering = pr.fail[i]
				}
				if len(covering) == 0 {
					continue
				}
				if deadline.IsZero() {
					deadline = opts.Deadline
					if opts.RunBudget > 0 {
						deadline = earliest(opts.Deadline, time.Now().Add(opts.RunBudget))
					}
				}
				pr.deadline = earliest(deadline, opts.Deadline)
				out, err := pr.run(ctx, k.Mutant.ID, covering)
				if err != nil {
					return nil, err
				}
				done[i]++
				for _, t := range covering {
					o := out[t.Name]
					k.Covering++
					switch {
					case t.Failing && o.passed:
						k.FailToPass++
						k.FailChanged++
					case t.Failing && o.output != pr.base[t.Name].output:
						k.FailChanged++
					case !t.Failing && !o.passed:
						k.PassToFail++
					}
				}
			}
		}
	}
	failing, passing := 0, 0
	for _, t := range tests {
		if t.Failing {
			failing++
		} else {
			passing++
		}
	}
	for i := range kills {
		if done[i] == 0 {
			continue
		}
		k := kills[i]
		// Each package's kills add up; a fix must hold in all of them.
		k.Partial = done[i] < needed[i] || partial[i]
		k.Fix = k.FailToPass > 0 && k.PassToFail == 0 && k.FailToPass == wantFixed[i] && !k.Partial
		res.Kills = append(res.Kills, k)
	}
	res.Run = len(res.Kills)
	res.Lines = Score(res.Kills, failing, passing)
	res.Elapsed = time.Since(start)
	// A run that ended past a deadline may have been cut short by it.
	res.Cut = res.Cut || !scored && (passed(deadline) || passed(opts.Deadline))
	return res, nil
}

func coveringFailing(tests []Test, m Mutant) int {
	n := 0
	for _, t := range tests {
		if t.Failing && t.Lines[Loc{m.File, m.Line}] {
			n++
		}
	}
	return n
}

// Score computes each mutated line's Metallaxis-FL and MUSE scores from
// the kills, failing and passing being the numbers of failing and passing
// tests.
//
// Metallaxis-FL (Papadakis and Le Traon, STVR 2015) scores a mutant as
// Ochiai over its kills, a failing test killing it when its failure
// changes and a passing one when it fails, and a line by its best mutant.
// MUSE (Moon et al., ICST 2014) averages, over the line's mutants and one
// more, the failing tests each makes pass over all such changes (f2p),
// less α times the passing tests each makes fail over all such changes
// (p2f), where α = f2p·passing / (failing·p2f) weighs the two rates
// against each other. A fix-only mutant counts only in its line's Fixes.
func Score(kills []Kill, failing, passing int) map[Loc]Scores {
	f2p, p2f := 0, 0
	for _, k := range kills {
		if k.Mutant.FixOnly {
			continue
		}
		f2p += k.FailToPass
		p2f += k.PassToFail
	}
	alpha := 0.0
	if p2f > 0 && failing > 0 {
		alpha = float64(f2p) * float64(passing) / (float64(failing) * float64(p2f))
	}
	out := map[Loc]Scores{}
	muse := map[Loc]float64{}
	for _, k := range kills {
		l := Loc{k.Mutant.File, k.Mutant.Line}
		if k.Mutant.FixOnly {
			if k.Fix {
				s := out[l]
				s.Fixes++
				out[l] = s
			}
			continue
		}
		s := out[l]
		s.Mutants++
		if k.Fix {
			s.Fixes++
		}
		if killed := k.FailChanged + k.PassToFail; failing > 0 && killed > 0 {
			s.Metallaxis = max(s.Metallaxis, float64(k.FailChanged)/math.Sqrt(float64(failing*killed)))
		}
		muse[l] += float64(k.FailToPass)/float64(f2p+1) - alpha*float64(k.PassToFail)/float64(p2f+1)
		out[l] = s
	}
	for l, s := range out {
		if s.Mutants == 0 {
			continue // fix-only mutants' fixes alone
		}
		s.MUSE = muse[l] / float64(s.Mutants+1)
		out[l] = s
	}
	return out
}

// pkgRunner runs the mutants of package pkg's schemata against its
// tests; base are the tests' runs with no mutant active, fail and pass
// each mutant's covering tests of either side (covering).
type pkgRunner struct {
	*runner
	pkg        string
	tests      []Test
	base       map[string]outcome
	fail, pass [][]Test
}

// covering are the package's failing and passing tests that cover m's
// line and whose unmutated verdicts agree with the collection's; stale
// says some covering test's did not, so it says nothing of m.
func (pr *pkgRunner) covering(m Mutant) (fail, pass []Test, stale bool) {
	for _, t := range pr.tests {
		if !t.Lines[Loc{m.File, m.Line}] {
			continue
		}
		switch {
		case pr.base[t.Name].passed == t.Failing:
			stale = true
		case t.Failing:
			fail = append(fail, t)
		default:
			pass = append(pass, t)
		}
	}
	return fail, pass, stale
}

// runOrder gives the mutants' indices in the order they run: round by
// round, each round taking the next mutant of every line, the lines in
// the order given (most suspicious first), so that a budget that ends
// early has tried as many of the best lines as it could.
func runOrder(mutants []Mutant, lines []Loc) []int {
	rank := make(map[Loc]int, len(lines))
	for i, l := range lines {
		if _, ok := rank[l]; !ok {
			rank[l] = i
		}
	}
	round := make([]int, len(mutants))
	seen := map[Loc]int{}
	for i, m := range mutants {
		l := Loc{m.File, m.Line}
		round[i] = seen[l]
		seen[l]++
	}
	order := make([]int, len(mutants))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if round[a] != round[b] {
			return round[a] - round[b]
		}
		return rank[Loc{mutants[a].File, mutants[a].Line}] - rank[Loc{mutants[b].File, mutants[b].Line}]
	})
	return order
}

// runner runs one package's schemata binary.
type runner struct {
	mod      *testbuild.Module
	bin      *testbuild.Binary
	opts     Options
	deadline time.Time // bounds a run's time (the run budget's or Options.Deadline); zero for none
	// overhead is the unmutated run's time beyond its tests' time in the
	// collection: the process's start, the package's initialisation and
	// whatever the machine's load adds.
	overhead time.Duration
}

// DefaultTimeout is Options.Timeout when none is given. A fast test's
// process takes milliseconds; a longer floor only spends the budget on
// mutants that loop forever.
const DefaultTimeout = 250 * time.Millisecond

// unmutatedTimeout is the least time the unmutated run may take: a
// package's tests whose own time the collection rounded to nothing may
// still take a second to start and set up.
const unmutatedTimeout = 10 * time.Second

// elapsed is the tests' time in the collection.
func elapsed(tests []Test) time.Duration {
	var d time.Duration
	for _, t := range tests {
		d += t.Elapsed
	}
	return d
}

// outcome is one test's run under a mutant.
type outcome struct {
	passed bool
	output string // its output without timings
}

// run runs tests under mutant id (-1 for none) in one process: a mutant
// that hangs or crashes it fails every test that did not finish.
func (r *runner) run(ctx context.Context, id int, tests []Test) (map[string]outcome, error) {
	names := make([]string, len(tests))
	for i, t := range tests {
		names[i] = t.Name
	}
	args := []string{"-test.run=" + runPattern(names), "-test.count=1", "-test.timeout=0", "-test.paniconexit0"}
	p, err := r.mod.Start(ctx, testbuild.RunConfig{Binary: r.bin.Path, Package: r.bin.Package.ImportPath, Dir: r.bin.Package.Dir,
		Args: args, Env: []string{fmt.Sprintf("%s=%d", faultlinemut.Env, id)}})
	if err != nil {
		return nil, fmt.Errorf("running mutant %d: %w", id, err)
	}
	timeout := max(r.opts.Timeout, 10*(elapsed(tests)+r.overhead))
	if id < 0 {
		// The unmutated run measures the overhead: it may not hang.
		timeout = max(timeout, unmutatedTimeout)
	}
	if !r.deadline.IsZero() {
		// The deadline cuts a run short, but leaves it a second.
		timeout = min(timeout, max(time.Until(r.deadline), time.Second))
	}
	res, err := p.WaitWithin(ctx, timeout)
	if err != nil {
		return nil, fmt.Errorf("running mutant %d: %w", id, err)
	}
	out := map[string]outcome{}
	for _, t := range tests {
		out[t.Name] = outcome{passed: res.Verdict(t.Name) == testbuild.Pass, output: stripTimings(res.Output(t.Name))}
	}
	return out, nil
}

// runPattern is a -test.run pattern that runs the named leaf tests and
// as few others as it can: when the names are all at one depth, each
// level matches any of the names' elements at that level (a table test's
// other cases do not run), otherwise their top-level tests whole.
func runPattern(names []string) string {
	depth := -1
	for _, n := range names {
		d := strings.Count(n, "/")
		if depth >= 0 && d != depth {
			depth = 0
			break
		}
		depth = d
	}
	levels := make([][]string, max(depth, 0)+1)
	for _, n := range names {
		for i, elem := range strings.SplitN(n, "/", len(levels)) {
			if i == len(levels)-1 {
				elem, _, _ = strings.Cut(elem, "/")
			}
			if q := regexp.QuoteMeta(elem); !slices.Contains(levels[i], q) {
				levels[i] = append(levels[i], q)
			}
		}
	}
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = "^(" + strings.Join(l, "|") + ")$"
	}
	return strings.Join(parts, "/")
}

// timing matches the durations go test prints.
var timing = regexp.MustCompile(`\(\d+\.\d+s\)`)

func stripTimings(s string) string { return timing.ReplaceAllString(s, "") }
