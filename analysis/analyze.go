package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Options bound the analysis of each failing test.
type Options struct {
	MaxSize        int           // largest fix candidate, in locations (default 2)
	Budget         time.Duration // wall-clock time per failing test (default 30s)
	MaxRuns        int           // test processes per failing test: refinement, verification, replacement batches (default 150)
	RunTimeout     time.Duration // one run of the test (default 10s)
	KeepUnverified bool          // also report candidates whose forced run failed
	// Strings models strings and byte slices in the formula for a test
	// whose failing run checks one. Off by default: sequences need Z3's
	// general solver, and on the seeded faults of bench/effectiveness the
	// analysis then ran out of its budget more often than it found fixes.
	Strings bool
	// SolverMemory bounds, in bytes, the memory Z3 holds during the
	// formula search (0: no bound). Past it the search stops with a note
	// and value replacement and predicate switching still run, where a
	// worker stopped for its size would lose the whole test.
	SolverMemory int64 `json:",omitempty"`
	// Passing names, by failing test (PassingKey), passing leaf tests of
	// its package, the most similar first (the localization service
	// chooses them from the spectra): value replacement tries the values
	// they produce. Without them it takes top-level tests of similar
	// names. It is no part of a result's cache key.
	Passing map[string][]string `json:",omitempty"`

	// panicIn names a test whose analysis panics, as a bug of faultline's
	// would: the tests' way to check that a panic costs only its test.
	panicIn string
}

// PassingKey is a failing test's key in Options.Passing.
func PassingKey(t Target) string { return t.Package + " " + t.Test }

func (o *Options) defaults() {
	if o.MaxSize <= 0 {
		o.MaxSize = 2
	}
	if o.Budget <= 0 {
		o.Budget = 30 * time.Second
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = 150
	}
	if o.RunTimeout <= 0 {
		o.RunTimeout = 10 * time.Second
	}
}

// Target is one failing leaf test.
type Target struct {
	Package string // import path
	Test    string // full leaf name, e.g. TestX/case_3
}

// Location is one fix location of a candidate and its angelic value.
type Location struct {
	File     string `json:"file"` // relative to the module root, slash-separated
	Line     int    `json:"line"`
	Col      int    `json:"col"` // 1-based byte column
	EndLine  int    `json:"endLine"`
	EndCol   int    `json:"endCol"` // exclusive
	Expr     string `json:"expr"`
	Original string `json:"original"`
	Angelic  string `json:"angelic"`
	// Extreme says only a value at the far end of the type's range makes
	// the test pass (the nearest one was sought).
	Extreme bool `json:"extreme,omitempty"`
}

// Candidate is a minimal set of locations whose angelic values make the
// test pass under the formula; Verified when a run with them forced passed.
type Candidate struct {
	Verified  bool       `json:"verified"`
	Locations []Location `json:"locations"`
	// Found says which search found it: FoundBySolver (the formula's
	// correction sets), FoundByReplacement (a value replaced) or
	// FoundBySwitching (a flipped Boolean).
	Found string `json:"found,omitempty"`
	// Avoids says the candidate steers the run around the check the
	// failing run failed at rather than making what it checks right: it
	// changes only branch conditions (a guard, the condition of an early
	// return or of a loop), and its verified run passed without reaching
	// the check. False also when that could not be told.
	Avoids bool `json:"avoidsCheck,omitempty"`

	// What Verify needs to force the candidate again: the value of every
	// dynamic instance, and the hashes of the sources (slash path relative
	// to the root) whose instrumentation numbered the sites.
	force   []forcedValue
	sources map[string]string
}

// How a candidate was found.
const (
	FoundBySolver      = "solver"
	FoundBySwitching   = "switch"
	FoundByReplacement = "replacement"
)

// FoundWords says in words how a candidate the formula did not find was
// found: "value replacement", "predicate switching"; "" for the formula's.
func FoundWords(found string) string {
	switch found {
	case FoundByReplacement:
		return "value replacement"
	case FoundBySwitching:
		return "predicate switching"
	}
	return ""
}

// Report is the JSON form of faultline fix -json.
type Report struct {
	Tests []TestResult `json:"tests"`
}

// NewReport wraps results for JSON output, with empty lists rather than
// nulls.
func NewReport(results []TestResult) Report {
	r := Report{Tests: append([]TestResult{}, results...)}
	for i := range r.Tests {
		if r.Tests[i].Candidates == nil {
			r.Tests[i].Candidates = []Candidate{}
		}
	}
	return r
}

// TestResult is the analysis of one failing test.
type TestResult struct {
	Test       string      `json:"test"`
	Package    string      `json:"package,omitempty"`
	Candidates []Candidate `json:"candidates"`
	// Notes say when the analysis could not start or a bound cut it; a
	// reader of the JSON needs them to tell "no fix exists" from "not
	// searched to the end".
	Notes []string `json:"notes,omitempty"`
	// StringsConcrete says the failing check compares strings or byte
	// slices that the formula kept concrete (Options.Strings was off), so
	// modelling them may find fixes this analysis could not.
	StringsConcrete bool `json:"stringsConcrete,omitempty"`
	// Ended says why the analysis ended, which decides whether the
	// result may be cached.
	Ended Ending `json:"ended,omitempty"`
	// Switched counts the candidates found by predicate switching rather
	// than by the formula.
	Switched int           `json:"-"`
	Runs     int           `json:"-"`
	Solve    time.Duration `json:"-"` // time in the solver
	Total    time.Duration `json:"-"`
}

// Analyze computes the angelic fix candidates of each failing test of mod.
// The targets of one package share one instrumented build.
func Analyze(ctx context.Context, mod *testbuild.Module, targets []Target, opts Options) ([]TestResult, error) {
	var out []TestResult
	err := AnalyzeEach(ctx, mod, targets, opts, func(r TestResult) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// AnalyzeEach analyses the targets package by package and hands each result
// to done as soon as it is complete. A package that cannot be analysed (its
// instrumented build fails, say) gives each of its targets a result whose
// note says why; only a cancelled context, an error of done or a failure of
// the module as a whole stops the loop.
func AnalyzeEach(ctx context.Context, mod *testbuild.Module, targets []Target, opts Options, done func(TestResult) error) error {
	opts.defaults()
	work, remove, err := scratch.MkdirTemp("agx-")
	if err != nil {
		return err
	}
	defer remove()
	listing, err := mod.List(ctx)
	if err != nil {
		return err
	}
	keys, err := mod.Keys(ctx, listing, "")
	if err != nil {
		return err
	}
	defer mod.Hasher().Save()
	byPkg := map[string][]Target{}
	var order []string
	for _, t := range targets {
		if _, ok := byPkg[t.Package]; !ok {
			order = append(order, t.Package)
		}
		byPkg[t.Package] = append(byPkg[t.Package], t)
	}
	for _, path := range order {
		pkg := listing.Package(path)
		var prog *program
		var bin *testBinary
		var sources map[string]string
		err := fmt.Errorf("%s is not a package of module %s", path, mod.Path)
		if pkg != nil {
			err = recovered("instrumenting "+path, func() (err error) {
				prog, err = loadProgram(mod, path, testbuild.SortedPaths(listing.Closure(pkg)))
				return err
			})
		}
		if err == nil {
			sources, err = keys.Sources(pkg)
		}
		if err == nil {
			bin, err = buildTestBinary(ctx, mod, keys, prog, pkg, work)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, t := range byPkg[path] {
			r := &TestResult{Test: t.Test}
			if err == nil {
				bin.timeout = opts.RunTimeout
				aerr := recovered("analysing "+t.Test, func() (err error) {
					r, err = analyzeTest(ctx, prog, bin, t, opts)
					return err
				})
				if aerr != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					r = &TestResult{Test: t.Test, Notes: []string{fmt.Sprintf("not analysed: %v", aerr)}, Ended: endingOf(aerr)}
				}
				r.setSources(sources)
			} else {
				r.Notes, r.Ended = []string{fmt.Sprintf("not analysed: %v", err)}, endingOf(err)
			}
			r.Package = path
			if err := done(*r); err != nil {
				return err
			}
		}
	}
	return nil
}

func analyzeTest(ctx context.Context, prog *program, bin *testBinary, t Target, opts Options) (*TestResult, error) {
	start := time.Now()
	res := &TestResult{Test: t.Test}
	bin.runs = 0
	bin.timeout = opts.RunTimeout
	bin.deadline = start.Add(opts.Budget)
	defer func() {
		bin.deadline = time.Time{}
		res.Runs = bin.runs
		res.Total = time.Since(start)
	}()
	err := search(ctx, prog, bin, t, opts, res)
	res.Ended = EndedNoCandidate
	if errors.Is(err, errBudget) {
		if !slices.Contains(res.Notes, noteBudget) {
			res.Notes = append(res.Notes, noteBudget)
		}
		res.Ended, err = EndedBudget, nil
	}
	if err != nil {
		return nil, err
	}
	if hasVerified(res) {
		res.Ended = EndedFinding
	}
	sortCandidates(res.Candidates)
	return res, nil
}

func describe(c Candidate) string {
	var parts []string
	for _, l := range c.Locations {
		parts = append(parts, fmt.Sprintf("%s:%d %s", l.File, l.Line, l.Expr))
	}
	return strings.Join(parts, ", ")
}

// render prints a recorded value as Go would.
func render(s *site, v int64) string {
	if isAggregate(s.typ) {
		return "(" + s.typ.String() + ")" // its contents are not an integer
	}
	switch valueKind(s.typ) {
	case 'b':
		return strconv.FormatBool(v != 0)
	case 'e':
		return renderValue(s.typ, value{n: v})
	case 'f':
		if isFloat32(s.typ) {
			return strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', -1, 32)
		}
		return strconv.FormatFloat(math.Float64frombits(uint64(v)), 'g', -1, 64)
	}
	n, signed := bits(s.typ)
	if signed {
		return strconv.FormatInt(v, 10)
	}
	u := uint64(v)
	if n < 64 {
		u &= 1<<n - 1
	}
	return strconv.FormatUint(u, 10)
}

func lessLocation(a, b Location) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

// sortCandidates orders candidates verified first, then smaller, then by
// position, so output is stable whatever order the solver found them in.
func sortCandidates(cs []Candidate) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Verified != b.Verified {
			return a.Verified
		}
		if len(a.Locations) != len(b.Locations) {
			return len(a.Locations) < len(b.Locations)
		}
		for k := range a.Locations {
			if a.Locations[k] != b.Locations[k] {
				return lessLocation(a.Locations[k], b.Locations[k])
			}
		}
		return false
	})
}
