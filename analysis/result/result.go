package result

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Options bound the analysis of each failing test.
type Options struct {
	MaxSize        int           // largest fix candidate, in locations (default 2)
	Budget         time.Duration // the work per failing test, as time on an unloaded machine (default 30s; see SolverWork and WallCap)
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
	// StartBy, when set, is the time after which no further test's
	// analysis starts (AnalyzeEach): those left get EndedBudget, which is
	// not cached, so that one ranking's analyses together stay bounded.
	// It is no part of a result's cache key.
	StartBy time.Time `json:",omitzero"`

	// panicIn names a test whose analysis panics, as a bug of faultline's
	// would: the tests' way to check that a panic costs only its test.
	panicIn string
	// wallCap replaces WallCap's multiple of the budget (WithWallCap).
	wallCap time.Duration
}

// SolverWorkPerSecond converts Budget into solver work (Z3's resource
// units, see z3.Context.Work). Z3 did about 3 million a CPU second on
// bit-vector formulas here; the rate leaves most of the budget to the
// test runs, and keeps the examples' analyses about as long as when the
// budget was time. Work, unlike time, does not depend on the machine's
// load, so the same test gets the same answer run to run.
const SolverWorkPerSecond = 400_000

// wallCapFactor is WallCap's multiple of the budget.
const wallCapFactor = 3

// SolverWork is the solver work of one failing test's analysis.
func (o Options) SolverWork() uint64 { return uint64(o.Budget.Seconds() * SolverWorkPerSecond) }

// WorkOf converts a time bound of one solver call into work.
func WorkOf(d time.Duration) uint64 { return uint64(d.Seconds() * SolverWorkPerSecond) }

// WallCap bounds the wall-clock time of one failing test's analysis. The
// analysis is bounded by work (solver work, test runs), which ends it in
// about Budget on an unloaded machine; the cap is only a safety net for a
// machine so loaded that the same work takes three times as long. An
// analysis it stops ends with EndedBudget and a note, and is not cached.
func (o Options) WallCap() time.Duration {
	if o.wallCap > 0 {
		return o.wallCap
	}
	return wallCapFactor * o.Budget
}

// WithWallCap returns o with the wall-clock cap set to d: for tests that
// compare answers on a loaded machine, which the cap would cut short.
func (o Options) WithWallCap(d time.Duration) Options {
	o.wallCap = d
	return o
}

// PassingKey is a failing test's key in Options.Passing.
func PassingKey(t testbuild.Target) string { return t.Package + " " + t.Test }

func (o *Options) Defaults() {
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
	Force   []instrument.ForcedValue `json:"-"`
	Sources map[string]string        `json:"-"`
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
	// Slice is the dynamic backward slice of the failing check: the lines
	// of non-test code the failing run's check depends on, through data
	// and control, each with its distance from the check.
	Slice []SliceLine `json:"slice,omitempty"`
	// SliceTime is what computing Slice took.
	SliceTime time.Duration `json:"-"`
	// Switched counts the candidates found by predicate switching rather
	// than by the formula.
	Switched int           `json:"-"`
	Runs     int           `json:"-"`
	Solve    time.Duration `json:"-"` // time in the solver
	Total    time.Duration `json:"-"`
}

// SliceLine is one line of non-test code in a failing check's dynamic
// backward slice.
type SliceLine struct {
	File string `json:"file"` // slash path relative to the module root
	Line int    `json:"line"`
	// Distance counts the dependences, data or control, on the shortest
	// chain from the check to an instance of the line (1: the check reads
	// what the line computed, or the line decided that the check ran).
	Distance int `json:"distance"`
}

func Describe(c Candidate) string {
	var parts []string
	for _, l := range c.Locations {
		parts = append(parts, fmt.Sprintf("%s:%d %s", l.File, l.Line, l.Expr))
	}
	return strings.Join(parts, ", ")
}

func LessLocation(a, b Location) bool {
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
func SortCandidates(cs []Candidate) {
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
				return LessLocation(a.Locations[k], b.Locations[k])
			}
		}
		return false
	})
}

func HasVerified(res *TestResult) bool {
	for _, c := range res.Candidates {
		if c.Verified {
			return true
		}
	}
	return false
}

// ErrSourceChanged is returned by Verify when a source file of the module
// differs from the one the candidate was computed on: its forced values
// address site instances of the old program and mean nothing on the new one.
var ErrSourceChanged = errors.New("the sources changed since the analysis")

// Verifiable reports whether c carries what Verify needs: candidates made
// by Analyze do, those decoded from JSON do not.
func (c Candidate) Verifiable() bool { return len(c.Force) > 0 && c.Sources != nil }

// sameSites checks that every forced site of the new instrumentation is one
// of the candidate's locations, so the values land on the same expressions
// even were the instrumenter itself to number sites differently.
func (c Candidate) SameSites(prog *instrument.Program) error {
	for _, f := range c.Force {
		if f.Site < 0 || int(f.Site) >= len(prog.Sites) {
			return fmt.Errorf("%w: site %d no longer exists", ErrSourceChanged, f.Site)
		}
		s := prog.Sites[f.Site]
		found := false
		for _, l := range c.Locations {
			if l.File == s.File && l.Line == s.Pos.Line && l.Col == s.Pos.Column && l.Expr == s.Text {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%w: site %d is now %s:%d %s, which the candidate does not change", ErrSourceChanged, f.Site, s.File, s.Pos.Line, s.Text)
		}
	}
	return nil
}

// setSources records on every candidate of r the sources it was computed on.
func (r *TestResult) SetSources(sources map[string]string) {
	for i := range r.Candidates {
		r.Candidates[i].Sources = sources
	}
}

// PanicIn names the test whose analysis panics on purpose (see WithPanicIn).
func (o Options) PanicIn() string { return o.panicIn }

// WithPanicIn returns o with the analysis of test made to panic, as a bug
// of faultline's would, so that a test can check that the panic is
// recovered and reported. The field stays unexported: the result cache's
// key prints Options with %+v.
func (o Options) WithPanicIn(test string) Options {
	o.panicIn = test
	return o
}
