package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"faultline/internal/testbuild"
	"faultline/solver/mcs"
	"faultline/solver/z3"
)

// Options bound the analysis of each failing test.
type Options struct {
	MaxSize        int           // largest fix candidate, in locations (default 2)
	Budget         time.Duration // wall-clock time per failing test (default 30s)
	MaxRuns        int           // test runs per failing test, refinement and verification (default 60)
	RunTimeout     time.Duration // one run of the test (default 10s)
	KeepUnverified bool          // also report candidates whose forced run failed
}

func (o *Options) defaults() {
	if o.MaxSize <= 0 {
		o.MaxSize = 2
	}
	if o.Budget <= 0 {
		o.Budget = 30 * time.Second
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = 60
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

	// What Verify needs to force the candidate again: the value of every
	// dynamic instance, and the hashes of the sources (slash path relative
	// to the root) whose instrumentation numbered the sites.
	force   []forcedValue
	sources map[string]string
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
	Package    string      `json:"-"`
	Candidates []Candidate `json:"candidates"`
	// Notes say when the analysis could not start or a bound cut it
	// (printed by faultline fix, not part of its JSON).
	Notes []string `json:"-"`
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
	work, err := os.MkdirTemp("", "faultline-agx-")
	if err != nil {
		return fmt.Errorf("creating scratch directory: %w", err)
	}
	defer os.RemoveAll(work)
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
			prog, err = loadProgram(mod, path, testbuild.SortedPaths(listing.Closure(pkg)))
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
				var aerr error
				if r, aerr = analyzeTest(ctx, prog, bin, t, opts); aerr != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					r = &TestResult{Test: t.Test, Notes: []string{fmt.Sprintf("not analysed: %v", aerr)}}
				}
				r.setSources(sources)
			} else {
				r.Notes = []string{fmt.Sprintf("not analysed: %v", err)}
			}
			r.Package = path
			if err := done(*r); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxRefinements bounds the refinements made for one set of locations.
const maxRefinements = 4

// analyzeTest runs Algorithm 1 of AgxFaults for one failing test: encode
// the failing trace, enumerate minimal correction subsets smallest first,
// run the test with each candidate's angelic values forced, add what a
// failing forced run reaches that the formula lacks and enumerate again,
// and report the candidates whose forced run passed.
//
// The budget bounds the whole analysis, whatever phase the time goes to:
// no run, encoding or solver call goes past it, and a result cut short
// keeps the candidates verified so far, with a note.
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
	if errors.Is(err, errBudget) {
		res.Notes = append(res.Notes, "time budget exhausted")
		err = nil
	}
	if err != nil {
		return nil, err
	}
	sortCandidates(res.Candidates)
	return res, nil
}

// search fills res with the candidates of one failing test.
func search(ctx context.Context, prog *program, bin *testBinary, t Target, opts Options, res *TestResult) error {
	first, err := bin.run(ctx, t.Test, nil)
	if err != nil {
		return err
	}
	// A forced run may loop: bound it by the failing run's own duration.
	bin.timeout = min(opts.RunTimeout, max(2*time.Second, 20*first.elapsed))
	if first.passed {
		res.Notes = append(res.Notes, "the test passes: nothing to fix")
		return nil
	}
	if first.truncated {
		res.Notes = append(res.Notes, fmt.Sprintf("the failing run is longer than %d recorded events: not analysed", maxTraceEvents))
		return nil
	}
	if len(first.trace) == 0 {
		res.Notes = append(res.Notes, "the test recorded nothing (did it run?)")
		return nil
	}
	deadline := bin.deadline
	z, err := z3.NewContext(z3.Config{Timeout: min(10*time.Second, max(time.Until(deadline), time.Millisecond))})
	if err != nil {
		return err
	}
	defer z.Close()
	enum, err := mcs.New[int32](z, mcs.Options{})
	if err != nil {
		return err
	}
	enc := newEncoder(z, enum, prog)
	enc.deadline = deadline
	if err := enc.replay(first.trace, nil, true, panicAt(prog, first)); err != nil {
		return err
	}
	if enc.failing == 0 {
		res.Notes = append(res.Notes, "no recognised check failed (recognised: `if cond { t.Error/Fatal... }` and testify assertions on integers, floats and Booleans in test code, index, slice and division panics in non-test code)")
		return switchPredicates(ctx, prog, bin, t, first, deadline, opts, res)
	}
	enumerated := 0
	refined := map[string]int{} // refinements per candidate location set
	for {
		left := time.Until(deadline)
		if left <= 0 {
			res.Notes = append(res.Notes, "time budget exhausted")
			break
		}
		solveStart := time.Now()
		var pending []mcs.Correction[int32]
		var lastErr error
		for c, err := range enum.Enumerate(ctx, mcs.Bounds{MaxSize: opts.MaxSize, Budget: left}) {
			if err != nil {
				lastErr = err
				break
			}
			pending = append(pending, c)
			break // one at a time: a refinement changes the formula
		}
		res.Solve += time.Since(solveStart)
		if lastErr != nil {
			if errors.Is(lastErr, mcs.ErrBudgetExhausted) {
				res.Notes = append(res.Notes, "time budget exhausted")
				break
			}
			if ctx.Err() != nil {
				return lastErr
			}
			// One solver call out of its time (a hard float formula, say)
			// bounds this test's analysis like the budget, not the others'.
			res.Notes = append(res.Notes, fmt.Sprintf("enumeration stopped: %v", lastErr))
			break
		}
		if len(pending) == 0 {
			if enumerated == 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("no fix of at most %d locations: the failing check does not depend on modelled values, or needs more locations", opts.MaxSize))
			}
			break
		}
		enumerated++
		c := pending[0]
		if len(c.Soft) == 0 {
			res.Notes = append(res.Notes, "the formula is satisfiable without a fix: the failure is outside what is modelled")
			break
		}
		if bin.runs >= opts.MaxRuns {
			res.Notes = append(res.Notes, fmt.Sprintf("run bound (%d) reached", opts.MaxRuns))
			break
		}
		solveStart = time.Now()
		if m, err := enc.closestModel(c, min(5*time.Second, max(time.Until(deadline), time.Millisecond))); err != nil {
			return err
		} else if m != nil {
			c.Model = m
		}
		if m, err := enc.narrow(c, c.Model, time.Now().Add(min(time.Second, time.Until(deadline)/4))); err != nil {
			return err
		} else {
			c.Model = m
		}
		res.Solve += time.Since(solveStart)
		cand, force, err := enc.candidate(c)
		if err != nil {
			return err
		}
		cand.force = force
		run, err := bin.run(ctx, t.Test, force)
		if err != nil {
			return err
		}
		// Refining the same locations again and again means their angelic
		// path keeps unrolling a loop: bound it like the paper bounds loops.
		tags := fmt.Sprint(c.Tags)
		// A failing run that reaches what the formula lacks refines it; one
		// that does not, or fails on values the formula does not model,
		// excludes its values so that the next nearest are tried.
		if !run.passed && !run.truncated && refined[tags] < maxRefinements {
			refined[tags]++
			panicked := panicAt(prog, run)
			novel := enc.novel(run.trace, panicked)
			enc.concrete = false
			if novel {
				forced := map[instKey]bool{}
				for _, f := range force {
					forced[instKey{f.Site, instance{f.Act, f.Local}}] = true
				}
				if err := enc.replay(run.trace, forced, false, panicked); err != nil {
					return err
				}
			}
			if !novel || enc.concrete {
				if err := enc.excludeValues(c.Tags, force); err != nil {
					return err
				}
			}
		} else {
			if refined[tags] >= maxRefinements && !run.passed {
				res.Notes = append(res.Notes, fmt.Sprintf("refinement bound (%d) reached for %s", maxRefinements, describe(cand)))
			}
			cand.Verified = run.passed
			if cand.Verified || opts.KeepUnverified {
				res.Candidates = append(res.Candidates, cand)
			}
			if err := enum.Block(c); err != nil {
				return err
			}
		}
	}
	if enumerated == 0 {
		return switchPredicates(ctx, prog, bin, t, first, deadline, opts, res)
	}
	return nil
}

// candidate reads the angelic values of a correction from its model: every
// encoded instance of each location is forced to its model value.
func (e *encoder) candidate(c mcs.Correction[int32]) (Candidate, []forcedValue, error) {
	var cand Candidate
	var force []forcedValue
	for _, id := range c.Tags {
		s := e.prog.sites[id]
		var orig, angelic []string
		far := false
		for _, inst := range e.instOf[id] {
			k := instKey{id, inst}
			v, err := modelValue(c.Model, e.vars[k], s)
			if err != nil {
				return cand, nil, fmt.Errorf("reading the angelic value of %s: %w", s.text, err)
			}
			force = append(force, forcedValue{Site: id, Act: inst.act, Local: inst.local, Value: v})
			o, seen := e.original[k]
			if seen && o == v && len(e.instOf[id]) > 1 {
				continue
			}
			if seen {
				orig = append(orig, render(s, o))
			} else {
				orig = append(orig, "?")
			}
			angelic = append(angelic, render(s, v))
			far = far || extreme(s, v)
		}
		cand.Locations = append(cand.Locations, Location{File: s.file, Line: s.pos.Line, Col: s.pos.Column,
			EndLine: s.end.Line, EndCol: s.end.Column, Expr: s.text,
			Original: strings.Join(orig, ", "), Angelic: strings.Join(angelic, ", "), Extreme: far})
	}
	sort.Slice(cand.Locations, func(i, j int) bool { return lessLocation(cand.Locations[i], cand.Locations[j]) })
	return cand, force, nil
}

func describe(c Candidate) string {
	var parts []string
	for _, l := range c.Locations {
		parts = append(parts, fmt.Sprintf("%s:%d %s", l.File, l.Line, l.Expr))
	}
	return strings.Join(parts, ", ")
}

// modelValue reads a site's value from a model in the trace's encoding:
// Booleans as 0 or 1, floats as their IEEE bits.
func modelValue(m *z3.Model, v z3.Expr, s *site) (int64, error) {
	switch valueKind(s.typ) {
	case 'b':
		b, err := m.Bool(v.AsBool())
		if b {
			return 1, err
		}
		return 0, err
	case 'f':
		if isFloat32(s.typ) {
			f, err := m.Float32(v.AsFloat())
			return int64(math.Float32bits(f)), err
		}
		f, err := m.Float64(v.AsFloat())
		return int64(math.Float64bits(f)), err
	}
	if _, signed := bits(s.typ); signed {
		return m.Int64(v.AsBV())
	}
	u, err := m.Uint64(v.AsBV())
	return int64(u), err
}

// render prints a recorded value as Go would.
func render(s *site, v int64) string {
	switch valueKind(s.typ) {
	case 'b':
		return strconv.FormatBool(v != 0)
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
