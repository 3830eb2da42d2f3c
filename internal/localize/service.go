package localize

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/parsed"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/blockrank"
	"github.com/faultline-go/faultline/spectra/rank"
)

// Options are the user's choices for one localization: the same flags in
// faultline rank and settings in the language server.
type Options struct {
	Formula rank.Formula // nil: the default formula
	// BlockRank, when set, orders the lines by BlockRank instead of the
	// formula (spectra.RankBlockRank); the matrix must carry edge profiles.
	BlockRank *blockrank.Options
	// SatTar orders the lines by SAT-TAR instead (specs.Rank): Tarantula
	// plus a bonus for the lines in the unsat cores of the failing tests'
	// violated checks, which come from workers like the analyses.
	SatTar  bool
	Angelic bool // analyse failing tests
	// Order is how the lines are ordered: OrderFormula,
	// OrderCombined (verified angelic fixes first) or OrderLearned (the
	// shipped model over every technique's evidence); "" is the shipped
	// model's default.
	Order string
	// Evidence attaches every line's evidence to the ranking whatever the
	// order (the learned order always does).
	Evidence bool
	// Budget is the analysis work of one failing test, as time on an
	// unloaded machine (default 10s; a loaded one may take up to
	// analysis.Options.WallCap, three times as long);
	// MaxAnalyzed how many failing tests are analysed (default 10).
	Budget      time.Duration
	MaxAnalyzed int
	// Memory is how much memory one analysis may hold before it is
	// stopped (default 1 GiB).
	Memory int64
	// TestMemory bounds the resident memory of each test process tree the
	// analyses run, in bytes (0: the workspace's, spectra.Options.TestMemory).
	TestMemory int64
	// Bounds of the search for one test, as analysis.Options has them
	// (zero: the analysis's defaults); KeepUnverified also reports
	// candidates whose forced run failed.
	MaxSize, MaxRuns int
	KeepUnverified   bool
	// Strings models strings and byte slices in the angelic analysis's
	// formula (analysis.Options.Strings).
	Strings bool
	// Mutants, when positive and the angelic analysis runs (Angelic, and
	// Z3 at hand), runs the mutation analysis on at most this many mutants
	// of the lines the failing tests execute (DefaultMutants is the
	// callers' default): the analyses beyond the spectra are on or off
	// together.
	Mutants int
}

// Defaults of Options.
const (
	DefaultBudget      = 10 * time.Second
	DefaultMaxAnalyzed = 10
	DefaultMemory      = 1 << 30
	// DefaultMutants is how many mutants faultline rank and the server try
	// unless told otherwise: the shipped model weighs their evidence.
	DefaultMutants = 200
)

// DefaultOrder is the order of a localization under o when none is asked
// for: the shipped model's default, except that the learned order, which
// the model learned over Ochiai's ranking, gives way to the combined one
// under another formula, BlockRank or SAT-TAR, and to the formula alone
// without the analysis (not asked for, or no solver here), whose evidence
// it weighs.
func DefaultOrder(o Options) string {
	order := ShippedModel().Default
	if order != OrderLearned {
		return order
	}
	if o.BlockRank != nil || o.SatTar || o.Formula != nil && o.Formula.Name() != rank.Default().Name() {
		return OrderCombined
	}
	if !o.analysesRun() {
		return OrderFormula
	}
	return order
}

// analysesRun says whether the analyses beyond the spectra (angelic fixes
// and mutants) run: asked for, and Z3 at hand.
func (o Options) analysesRun() bool { return o.Angelic && analysis.Available() == nil }

func (o *Options) defaults() {
	if o.Formula == nil {
		o.Formula = rank.Default()
	}
	if o.Order == "" {
		o.Order = DefaultOrder(*o)
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.MaxAnalyzed <= 0 {
		o.MaxAnalyzed = DefaultMaxAnalyzed
	}
	if o.Memory <= 0 {
		o.Memory = DefaultMemory
	}
}

// analysisOptions are the analysis's own options for a localization: part
// of every cache key, so the CLI and the server share entries.
func (o Options) analysisOptions() analysis.Options {
	return analysis.Options{Budget: o.Budget, MaxSize: o.MaxSize, MaxRuns: o.MaxRuns, KeepUnverified: o.KeepUnverified, Strings: o.Strings,
		SolverMemory: solverShare(o.Memory)}
}

// solverShare is the part of a worker's memory bound that Z3 may hold in
// one test's formula search (analysis.Options.SolverMemory): the search
// stops there, and value replacement and predicate switching, which need
// little, still run before the worker as a whole is stopped for its size.
func solverShare(memory int64) int64 { return memory / 2 }

// Service localizes the faults behind one module's failing tests.
type Service struct {
	ws    *spectra.Workspace
	cache *analysis.ResultCache
	// coreCache keeps the cores of SAT-TAR's order, suggestCache the
	// searches of suggest, explainCache the explanations of failing
	// tests, under content keys like the analyses.
	coreCache, suggestCache, explainCache *fileCache
	// mutationCache keeps whole mutation analyses under content keys.
	mutationCache *fileCache
	// worker is how analyses run; tests may replace it.
	worker workerFunc
	// files are the module's parsed source files, which every reader of
	// the source shares: a file is parsed once for each content it has.
	files *parsed.Cache
}

// New makes the service of a workspace.
func New(ws *spectra.Workspace) (*Service, error) {
	files := ws.Module().FileCache()
	cache := analysis.NewResultCache(files)
	cores := &fileCache{files: files, kind: "sattar"}
	suggestions := &fileCache{files: files, kind: "suggest"}
	explanations := &fileCache{files: files, kind: "explain"}
	mutations := &fileCache{files: files, kind: "mutation"}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating the faultline executable: %w", err)
	}
	return &Service{ws: ws, cache: cache, coreCache: cores, suggestCache: suggestions, explainCache: explanations, mutationCache: mutations, worker: processWorker(exe),
		files: parsed.New(0)}, nil
}

// Workspace is the module and its spectra.
func (s *Service) Workspace() *spectra.Workspace { return s.ws }

// Localization is one module's failing tests explained: every executed line
// in one order, and what the angelic analysis contributed to it.
type Localization struct {
	Matrix  *spectra.Matrix
	Formula *Ranking // the formula's order alone
	Ranking *Ranking // the order shown
	Angelic *Angelic // nil when the analysis was not asked for or there is no failing test
	// Evidence is every technique's evidence over the lines of Base, when
	// the order is learned or Options.Evidence asked for it.
	Evidence *Evidence
	Base     *Ranking // the formula ranking the evidence is gathered over
	SatTar   *SatTar  // what SAT-TAR's order was made of, when it was asked for
	// Mutation is what the mutation analysis found, when Options.Mutants
	// asked for it.
	Mutation *Mutation
	// Files are the parsed source files the localization read, for those
	// that read the same source after it (the function list, the report).
	Files *parsed.Cache
}

// Angelic is what the analysis contributed. Its JSON form is the
// "angelic" object of faultline rank -json.
type Angelic struct {
	Failing  int            `json:"failing"`  // failing tests in the ranking
	Analyzed int            `json:"analyzed"` // failing tests analysed so far
	Cached   int            `json:"cached"`   // of which taken from the cache
	Fixes    []Fix          `json:"fixes"`    // verified single-location fixes
	Tests    []AnalyzedTest `json:"tests"`    // what each analysed test cost
	Notes    []string       `json:"notes,omitempty"`
	// Unavailable says why this faultline cannot analyse at all (no Z3).
	Unavailable string `json:"unavailable,omitempty"`
	// Results are the analyses themselves, in the order the tests were
	// selected; Pending counts the selected tests still being analysed.
	Results []analysis.TestResult `json:"-"`
	Pending int                   `json:"-"`
}

// Fix is one verified single-location fix of one failing test: forcing the
// expression at Location to the angelic value makes the test pass.
type Fix struct {
	Test    string `json:"test"`    // full test name
	Package string `json:"package"` // import path of the test's package
	analysis.Location
	// Found is the candidate's: which search found it (analysis.FoundBy...).
	// find it ("value replacement", "predicate switching").
	Found string `json:"found,omitempty"`
	// Avoids is the candidate's: the fix steers the run around the failing
	// check rather than fixing what it checks.
	Avoids bool `json:"avoidsCheck,omitempty"`
}

// Failing returns the failing tests of the matrix, in its order.
func (l *Localization) Failing() []spectra.TestRun {
	var out []spectra.TestRun
	for _, t := range l.Matrix.Tests {
		if t.Verdict.Failing() {
			out = append(out, t)
		}
	}
	return out
}

// FixesAt returns the fixes whose expression starts on the line.
func (l *Localization) FixesAt(file string, line int) []Fix {
	if l.Angelic == nil {
		return nil
	}
	var out []Fix
	for _, f := range l.Angelic.Fixes {
		if f.File == file && f.Line == line {
			out = append(out, f)
		}
	}
	return out
}

// AnalyzedTest is the cost of one failing test's analysis, as measured when
// it ran (a cached result keeps the figures of the run that made it).
type AnalyzedTest struct {
	Test         string  `json:"test"`
	Package      string  `json:"package"`
	Seconds      float64 `json:"seconds"`      // the whole analysis
	SolveSeconds float64 `json:"solveSeconds"` // of which in the solver
	Runs         int     `json:"runs"`         // test runs, refinement and verification
	Cached       bool    `json:"cached"`
	// Slice is the dynamic backward slice of the test's failed check:
	// the lines of non-test code it depends on, nearest first, and
	// SliceSeconds what computing it took (part of Seconds).
	Slice        []analysis.SliceLine `json:"slice,omitempty"`
	SliceSeconds float64              `json:"sliceSeconds,omitempty"`
}

// Select is the one policy for which failing tests are analysed: the first
// max failing leaf tests in the matrix's order (package, then name), so
// that every caller analyses, and caches, the same ones.
func Select(m *spectra.Matrix, max int) (selected []testbuild.Target, failing int) {
	selected, _, failing = selectMatching(m, max, nil)
	return selected, failing
}

// selectMatching is Select over the failing tests whose names match
// accepts (nil: every one); matched counts those.
func selectMatching(m *spectra.Matrix, max int, match func(name string) bool) (selected []testbuild.Target, matched, failing int) {
	for _, t := range m.Tests {
		if !t.Verdict.Failing() || t.Verdict == spectra.BuildError {
			continue
		}
		failing++
		if match != nil && !match(t.Name) {
			continue
		}
		matched++
		if len(selected) < max {
			selected = append(selected, testbuild.Target{Package: t.Package, Test: t.Name})
		}
	}
	return selected, matched, failing
}

// maxPassingNamed bounds the passing tests named for a target.
const maxPassingNamed = 5

// passingFor names, for each target, the passing tests whose values value
// replacement tries (analysis.Options.Passing).
func passingFor(m *spectra.Matrix, targets []testbuild.Target) map[string][]string {
	want := map[testbuild.Target]bool{}
	for _, t := range targets {
		want[t] = true
	}
	out := map[string][]string{}
	for i, t := range m.Tests {
		target := testbuild.Target{Package: t.Package, Test: t.Name}
		if want[target] && t.Verdict.Failing() {
			if like := passingLike(m, i); len(like) > 0 {
				out[analysis.PassingKey(target)] = like
			}
		}
	}
	return out
}

// passingLike names the passing tests of failing test i's package that
// execute the most of the blocks it executes (at least one), most first:
// where they run the code the failing test runs, the values they produce
// are the ones value replacement tries.
func passingLike(m *spectra.Matrix, i int) []string {
	failing := m.Tests[i]
	type scored struct {
		name    string
		overlap int
	}
	var like []scored
	var ran []bool // the failing test's blocks
	for b := range failing.Hits.All() {
		ran = append(ran, make([]bool, max(0, b+1-len(ran)))...)
		ran[b] = true
	}
	for _, t := range m.Tests {
		if t.Package != failing.Package || t.Verdict != spectra.Pass {
			continue
		}
		n := 0
		for b := range t.Hits.All() {
			if b < len(ran) && ran[b] {
				n++
			}
		}
		if n > 0 {
			like = append(like, scored{t.Name, n})
		}
	}
	slices.SortStableFunc(like, func(a, b scored) int { return b.overlap - a.overlap })
	var out []string
	for _, s := range like[:min(len(like), maxPassingNamed)] {
		out = append(out, s.name)
	}
	return out
}

// Localize ranks m's executed lines and, with opts.Angelic, analyses the
// selected failing tests. progress, when set, gets each new state as it
// comes: cached analyses at once, the others one failing test at a time
// (one call at a time). The last state is also returned. A cancelled ctx
// stops the analyses; the state reached so far is returned with the error.
func (s *Service) Localize(ctx context.Context, m *spectra.Matrix, opts Options, progress func(*Localization)) (*Localization, error) {
	opts.defaults()
	var formula *Ranking
	var satTar *SatTar
	var err error
	switch {
	case opts.BlockRank != nil:
		formula, err = RankBlockRank(m, *opts.BlockRank)
	case opts.SatTar:
		formula, satTar, err = s.rankSatTar(ctx, m, opts)
	default:
		formula, err = RankFormula(m, opts.Formula)
	}
	if err != nil {
		return nil, err
	}
	if err := CheckOrder(opts.Order); err != nil {
		return nil, err
	}
	formula = withFormulaScores(formula)
	loc := &Localization{Matrix: m, Formula: formula, Ranking: formula, Base: formula, SatTar: satTar, Files: s.files}
	if opts.BlockRank != nil || opts.SatTar {
		// The evidence is gathered over the formula's ranking, which
		// carries every line's counts; BlockRank's own is a column.
		if loc.Base, err = RankFormula(m, opts.Formula); err != nil {
			return nil, err
		}
	}
	// One window bounds the ranking's mutants and analyses together: the
	// mutants' runs end within its first half, and the analyses start
	// within the whole of it, after the mutants.
	window := time.Now()
	// The mutants go with the angelic analysis: off with it, and off where
	// it cannot run (no Z3), whose ranking is the formula's alone.
	if opts.analysesRun() && opts.Mutants > 0 && formula.Failed > 0 {
		loc.Mutation = s.mutate(ctx, loc, opts, window.Add(mutationTime(opts.Budget)))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	st := &state{loc: loc, opts: opts}
	if !opts.Angelic || formula.Failed == 0 {
		return st.publish(nil), nil
	}
	targets, failing := Select(m, opts.MaxAnalyzed)
	st.targets, st.results, st.cached = targets, make([]*analysis.TestResult, len(targets)), make([]bool, len(targets))
	st.angelic.Failing = failing
	if len(targets) < failing {
		st.angelic.Notes = append(st.angelic.Notes, fmt.Sprintf("analysed the first %d of %d failing tests", len(targets), failing))
	}
	if err := analysis.Available(); err != nil {
		st.angelic.Unavailable = err.Error()
		st.ended = true
		return st.publish(nil), nil
	}
	keys, missing, err := s.lookup(ctx, st, opts)
	if err != nil {
		st.angelic.Notes = append(st.angelic.Notes, fmt.Sprintf("angelic analysis failed, ranking by %s alone: %v", formula.Formula, err))
		return st.publish(nil), nil
	}
	cur := st.publish(progress)
	if len(missing) == 0 {
		return cur, nil
	}
	aopts := opts.analysisOptions()
	aopts.Passing = passingFor(m, targets)
	aopts.StartBy = window.Add(analysesTime(opts.Budget))
	werr := s.eachTarget(ctx, workRequest{Root: s.ws.Root(), CacheRoot: s.ws.Module().CacheRoot(), Targets: pick(targets, missing),
		Options: aopts, Memory: opts.Memory, TestMemory: s.testMemory(opts.TestMemory), Env: s.ws.Module().Env(),
		Deadline: time.Now().Add(time.Duration(len(missing))*aopts.WallCap() + workerSlack)},
		func(reply workReply) (testbuild.Target, bool) {
			r, err := analysis.UnmarshalResult(reply.Result)
			if err != nil {
				return testbuild.Target{}, false
			}
			i := st.index(r)
			if i < 0 {
				return testbuild.Target{}, false
			}
			if ctx.Err() == nil {
				if err := s.cache.Put(keys[i], r); err != nil {
					st.note(err.Error())
				}
			}
			st.set(i, r, false)
			cur = st.publish(progress)
			return st.targets[i], true
		},
		func(t testbuild.Target, why error) {
			r := analysis.TestResult{Test: t.Test, Package: t.Package, Notes: []string{lostNote(why)}}
			if i := st.index(r); i >= 0 {
				st.set(i, r, false)
				cur = st.publish(progress)
			}
		})
	st.mu.Lock()
	st.ended = true
	st.mu.Unlock()
	if werr != nil {
		if ctx.Err() != nil {
			return cur, ctx.Err()
		}
		st.note(werr.Error())
	}
	return st.publish(progress), nil
}

// analysesBudgets is how many budgets one ranking's analyses may start
// within, together: past that no further failing test's analysis starts
// (the ones left are analysed next time). With the default budget a
// ranking's analyses end within about 90 s however many tests reach the
// wall-clock cap (a test started last may run to its own cap, three
// budgets).
const analysesBudgets = 6

// analysesTime is the time within which one ranking's analyses start.
func analysesTime(budget time.Duration) time.Duration { return analysesBudgets * budget }

// mutationBudgets is how many budgets of that window one ranking's
// mutants may run in, from its start: half, so that asking for mutants
// leaves the analyses, which come after, time to start.
const mutationBudgets = analysesBudgets / 2

// mutationTime is the time within which one ranking's mutants end.
func mutationTime(budget time.Duration) time.Duration { return mutationBudgets * budget }

// workerSlack is the time a worker may take beyond the tests' budgets:
// loading, instrumenting and building the tests' packages.
const workerSlack = 2 * time.Minute

// lookup fills st with the cached analyses and returns every target's key
// and the indices of the targets to analyse.
func (s *Service) lookup(ctx context.Context, st *state, opts Options) ([]string, []int, error) {
	mod := s.ws.Module()
	listing, keys, err := mod.ListKeys(ctx)
	if err != nil {
		return nil, nil, err
	}
	out := make([]string, len(st.targets))
	var missing []int
	for i, t := range st.targets {
		pkg := listing.Package(t.Package)
		if pkg == nil {
			return nil, nil, fmt.Errorf("%s is not a package of module %s", t.Package, mod.Path)
		}
		out[i] = s.cache.Key(keys, pkg, t.Test, opts.analysisOptions())
		if r, ok := s.cache.Get(out[i]); ok {
			st.set(i, r, true)
		} else {
			missing = append(missing, i)
		}
	}
	return out, missing, nil
}

func pick(targets []testbuild.Target, idx []int) []testbuild.Target {
	out := make([]testbuild.Target, len(idx))
	for j, i := range idx {
		out[j] = targets[i]
	}
	return out
}

// state is a localization being filled in.
type state struct {
	mu      sync.Mutex
	loc     *Localization
	opts    Options
	prior   *Evidence // the evidence that does not depend on the analyses
	targets []testbuild.Target
	results []*analysis.TestResult
	cached  []bool
	angelic Angelic
	ended   bool // no more results will come: a missing one is not pending
}

func (st *state) index(r analysis.TestResult) int {
	return slices.IndexFunc(st.targets, func(t testbuild.Target) bool { return t.Package == r.Package && t.Test == r.Test })
}

func (st *state) set(i int, r analysis.TestResult, cached bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.results[i], st.cached[i] = &r, cached
}

func (st *state) note(msg string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.angelic.Notes = append(st.angelic.Notes, msg)
}

// publish makes an immutable localization of the state and hands it to
// progress.
func (st *state) publish(progress func(*Localization)) *Localization {
	st.mu.Lock()
	a := st.angelic
	a.Notes = slices.Clone(a.Notes)
	a.Fixes, a.Tests = []Fix{}, []AnalyzedTest{}
	for i, r := range st.results {
		if r == nil {
			if !st.ended {
				a.Pending++
			}
			continue
		}
		a.Analyzed++
		if st.cached[i] {
			a.Cached++
		}
		a.Results = append(a.Results, *r)
		a.Tests = append(a.Tests, AnalyzedTest{Test: r.Test, Package: r.Package, Seconds: r.Total.Seconds(),
			SolveSeconds: r.Solve.Seconds(), Runs: r.Runs, Cached: st.cached[i], Slice: r.Slice, SliceSeconds: r.SliceTime.Seconds()})
		for _, c := range r.Candidates {
			if c.Verified && len(c.Locations) == 1 {
				a.Fixes = append(a.Fixes, Fix{Test: r.Test, Package: r.Package, Location: c.Locations[0], Found: c.Found, Avoids: c.Avoids})
			}
		}
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "not analysed: ") {
				a.Notes = append(a.Notes, r.Test+": "+n)
			}
		}
	}
	st.mu.Unlock()
	loc := *st.loc
	if st.opts.Angelic && loc.Formula.Failed > 0 {
		loc.Angelic = &a
	}
	st.order(&loc, a.Results)
	if progress != nil {
		progress(&loc)
	}
	return &loc
}

// order puts the localization's lines in the asked order, gathering the
// evidence when the order or the options need it. An order that cannot be
// made falls back to the combined one with a note.
func (st *state) order(loc *Localization, results []analysis.TestResult) {
	if len(results) > 0 {
		loc.Ranking = Combine(loc.Formula, results)
	}
	if st.opts.Order != OrderLearned && !st.opts.Evidence || loc.Formula.Failed == 0 {
		if st.opts.Order == OrderFormula {
			loc.Ranking = loc.Formula
		}
		return
	}
	st.mu.Lock()
	prior := st.prior
	st.mu.Unlock()
	var cores []analysis.CoreResult
	if loc.SatTar != nil {
		cores = loc.SatTar.Cores
	}
	files := loc.SourceFiles()
	ev, notes := gatherEvidence(loc.Matrix, files, loc.Base.Lines, results, cores, loc.Mutation, prior)
	st.mu.Lock()
	st.prior = ev
	st.mu.Unlock()
	loc.Evidence = ev
	if loc.Angelic != nil {
		loc.Angelic.Notes = append(loc.Angelic.Notes, notes...)
	}
	switch st.opts.Order {
	case OrderLearned:
		learned, err := ShippedModel().Rank(loc.Base, ev, ModuleSourceIn(loc.Matrix.Root, files))
		if err != nil {
			bug.Reportf("learned order: %v", err)
			return
		}
		// Each line still says for how many failing tests it hosts a fix.
		fixes := fixCounts(results)
		for i := range learned.Lines {
			learned.Lines[i].Fixes = fixes[line{learned.Lines[i].File, learned.Lines[i].Line}]
		}
		loc.Ranking = learned
	case OrderFormula:
		loc.Ranking = withEvidence(loc.Formula, loc.Base, ev)
		ruleReasons(loc.Ranking)
	default:
		loc.Ranking = withEvidence(loc.Ranking, loc.Base, ev)
		ruleReasons(loc.Ranking)
	}
}

// withFormulaScores returns r with each line's OrderScore its formula
// score, the formula order's own.
func withFormulaScores(r *Ranking) *Ranking {
	out := *r
	out.Lines = slices.Clone(r.Lines)
	for i := range out.Lines {
		out.Lines[i].OrderScore = &out.Lines[i].Score
	}
	return &out
}

// withEvidence returns r with each line's evidence, ev being gathered over
// base's lines.
func withEvidence(r, base *Ranking, ev *Evidence) *Ranking {
	index := lineIndex(base.Lines)
	out := *r
	out.Lines = slices.Clone(r.Lines)
	for i := range out.Lines {
		if j, ok := index[line{out.Lines[i].File, out.Lines[i].Line}]; ok {
			out.Lines[i].Evidence = ev.Line(j)
		}
	}
	return &out
}

// Verify runs a candidate's failing test again with its angelic values
// forced, in a worker like the analyses; it refuses a candidate whose
// sources changed (analysis.ErrSourceChanged's message).
func (s *Service) Verify(ctx context.Context, t testbuild.Target, c analysis.Candidate, opts Options) (analysis.Verification, error) {
	opts.defaults()
	data, err := analysis.MarshalResult(analysis.TestResult{Test: t.Test, Package: t.Package, Candidates: []analysis.Candidate{c}})
	if err != nil {
		return analysis.Verification{}, err
	}
	var v *analysis.Verification
	err = s.worker(ctx, workRequest{Root: s.ws.Root(), CacheRoot: s.ws.Module().CacheRoot(), Options: opts.analysisOptions(),
		Verify: data, Memory: opts.Memory, TestMemory: s.testMemory(opts.TestMemory), Env: s.ws.Module().Env(), Deadline: time.Now().Add(opts.Budget + workerSlack)},
		func(reply workReply) { v = reply.Verification })
	if err != nil {
		return analysis.Verification{}, err
	}
	if v == nil {
		return analysis.Verification{}, errors.New("the verification gave no answer")
	}
	return *v, nil
}
