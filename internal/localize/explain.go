package localize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/regress"
	"github.com/faultline-go/faultline/spectra"
)

// ExplainOptions are the user's choices for explaining failing tests from
// the git history: the flags of faultline explain.
type ExplainOptions struct {
	// Base is the revision to compare with; "" finds it per test by
	// bisecting the first-parent history.
	Base string
	// MaxExplained is how many failing tests are explained (default 3),
	// chosen by Select like the analysed ones; Tests, when set, names
	// the failing tests to explain instead.
	MaxExplained int
	Tests        []testbuild.Target
	// Match, when set, keeps to the failing tests whose names it accepts
	// (faultline explain -run).
	Match func(name string) bool
	// Budget bounds the dynamic step of one test (default 10m), MaxReruns
	// its reruns (default 200), RunTimeout one run of the test (default
	// 60s); zero takes regress's defaults.
	Budget     time.Duration
	MaxReruns  int
	RunTimeout time.Duration
	// Strategy is "after" (the default) or "ddmin" (plain delta
	// debugging over every change, for comparison).
	Strategy string
	// Memory bounds the worker that explains (default 1 GiB); TestMemory
	// each test process tree it runs (0: the workspace's bound).
	Memory     int64
	TestMemory int64
	// Progress, when set, hears what the explanation is doing.
	Progress func(string)
	// Trace times each explanation's phases (regress.Options.Trace).
	Trace bool
}

// DefaultMaxExplained is how many failing tests one explanation request
// explains unless told otherwise: each costs a bisection and reruns.
const DefaultMaxExplained = 3

// explainSlack is the time an explanation may take beyond its dynamic
// step's budget: bisecting the history (a build and a run per commit
// tried) and recording the failing run.
const explainSlack = 15 * time.Minute

func (o *ExplainOptions) defaults() {
	if o.MaxExplained <= 0 {
		o.MaxExplained = DefaultMaxExplained
	}
	if o.Memory <= 0 {
		o.Memory = DefaultMemory
	}
	if o.Budget <= 0 {
		o.Budget = 10 * time.Minute
	}
}

// Explanations are a module's failing tests explained from its history.
// Its JSON form is the output of faultline explain -json.
type Explanations struct {
	Failing int                   `json:"failing"` // failing tests in the matrix
	Tests   []regress.Explanation `json:"tests"`   // the explained ones, in Select's order
	Notes   []string              `json:"notes,omitempty"`
}

// explainWork is one test to explain, as a worker receives it.
type explainWork struct {
	Target     testbuild.Target
	Base       string
	Budget     time.Duration
	MaxReruns  int
	RunTimeout time.Duration
	Strategy   string
	// Executed are the lines the failing test executed in the collected
	// spectra: where the explanation looks when no cause holds the change.
	Executed []regress.Line
	// Passing counts the passing tests that executed each line of
	// Executed.
	Passing []int
	// SkipCauses leaves the causes out, for this reason
	// (regress.Options.SkipCauses).
	SkipCauses regress.NoRootReason `json:",omitempty"`
	Trace      bool                 `json:",omitempty"`
}

// CheckHistory reports why the module cannot be explained from a git
// history (no git, no repository), before spectra are collected for it.
func (s *Service) CheckHistory(ctx context.Context) error {
	return regress.CheckRepository(ctx, s.ws.Module())
}

// Explain explains the failing tests of m that Select picks from the git
// history (regress.Explain), in a worker process bounded in memory and
// time like the analyses. each, when set, gets each explanation as it
// comes. A test whose worker reaches the memory bound is explained again
// without the causes, or else reported unexplained, saying why. A
// cancelled ctx stops the worker; the explanations made so far
// are returned with the error.
func (s *Service) Explain(ctx context.Context, m *spectra.Matrix, opts ExplainOptions, each func(regress.Explanation)) (*Explanations, error) {
	opts.defaults()
	targets, matched, failing := selectMatching(m, opts.MaxExplained, opts.Match)
	if opts.Tests != nil {
		targets = opts.Tests
	}
	out := &Explanations{Failing: failing, Tests: []regress.Explanation{}}
	if len(targets) == 0 {
		return out, nil
	}
	if opts.Tests == nil && len(targets) < matched {
		out.Notes = append(out.Notes, fmt.Sprintf("explained the first %d of %d failing tests", len(targets), matched))
	}
	passing := passingRuns(m)
	// An explanation made before for the same content is given again
	// (regress.CacheKey); the others are made in the worker and kept.
	keys := map[testbuild.Target]string{}
	order := map[testbuild.Target]int{}
	add := func(ex regress.Explanation) {
		out.Tests = append(out.Tests, ex)
		if each != nil {
			each(ex)
		}
	}
	var work []explainWork
	for i, t := range targets {
		w := explainWork{Target: t, Base: opts.Base, Budget: opts.Budget, MaxReruns: opts.MaxReruns,
			RunTimeout: opts.RunTimeout, Strategy: opts.Strategy, Trace: opts.Trace}
		w.Executed, w.Passing = executedLines(m, t, passing)
		order[t] = i
		key, err := s.explainKey(ctx, w, opts.TestMemory)
		if err != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("explaining %s without the cache: %v", t.Test, err))
		} else if ex, ok := s.cachedExplanation(key); ok {
			if opts.Progress != nil {
				opts.Progress(t.Test + ": explained before for the same content: taken from the cache")
			}
			add(ex)
			continue
		}
		keys[t] = key
		work = append(work, w)
	}
	// Cached explanations come first; the tests' order is restored on
	// return (out.Tests is read when the sort runs, not when deferred).
	defer func() {
		slices.SortStableFunc(out.Tests, func(a, b regress.Explanation) int {
			return order[testbuild.Target{Package: a.Package, Test: a.Test}] - order[testbuild.Target{Package: b.Package, Test: b.Test}]
		})
	}()
	deadline := time.Now().Add(time.Duration(len(work)) * (opts.Budget + explainSlack))
	fresh := func(ex regress.Explanation) {
		if key := keys[testbuild.Target{Package: ex.Package, Test: ex.Test}]; key != "" && ex.Cacheable() {
			if data, err := jsonMarshal(ex); err == nil {
				s.explainCache.put(key, data)
			}
		}
		add(ex)
	}
	// A worker stopped at its memory bound loses the test it was on: that
	// test is explained again, by a new worker, without the causes (the
	// recorded run and its formulas are what grows); if that worker is
	// stopped too, the test is reported unexplained, saying why.
	for left := work; len(left) > 0; {
		got := 0
		err := s.worker(ctx, workRequest{Root: s.ws.Root(), CacheRoot: s.ws.Module().CacheRoot(), Explain: left,
			Memory: opts.Memory, TestMemory: s.testMemory(opts.TestMemory), Env: s.ws.Module().Env(), Deadline: deadline},
			func(reply workReply) {
				switch {
				case reply.Progress != "":
					if opts.Progress != nil {
						opts.Progress(reply.Progress)
					}
				case reply.Explanation != nil:
					got++
					var ex regress.Explanation
					if err := json.Unmarshal(reply.Explanation, &ex); err != nil {
						out.Notes = append(out.Notes, fmt.Sprintf("reading an explanation: %v", err))
						return
					}
					if ex.NoRoot == regress.NoRootMemory {
						ex.Notes = append(ex.Notes, fmt.Sprintf("the causes were left out: computing them, the explanation reached its memory bound (%d MB; -memory raises it)", opts.Memory>>20))
					}
					fresh(ex)
				}
			})
		if err == nil {
			return out, nil
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		var bound *memoryBoundError
		if got >= len(left) || !errors.As(err, &bound) || !time.Now().Before(deadline) {
			if got < len(left) {
				return out, fmt.Errorf("explaining %s: %w", left[got].Target.Test, err)
			}
			return out, err
		}
		stopped := left[got]
		left = left[got+1:]
		if stopped.SkipCauses == "" {
			if opts.Progress != nil {
				opts.Progress(fmt.Sprintf("%s: %v; explaining it again without the causes", stopped.Target.Test, err))
			}
			stopped.SkipCauses = regress.NoRootMemory
			left = append([]explainWork{stopped}, left...)
			continue
		}
		add(regress.Explanation{Test: stopped.Target.Test, Package: stopped.Target.Package, Changes: []regress.Change{}, Cause: []regress.CauseStep{},
			Message: fmt.Sprintf("not explained: the explanation reached its memory bound (%d MB) even without the causes (-memory raises it)", opts.Memory>>20)})
	}
	return out, nil
}

// explainKey is the cache key of one test's explanation: regress's
// content key with the test memory bound, which changes verdicts.
func (s *Service) explainKey(ctx context.Context, w explainWork, testMemory int64) (string, error) {
	key, err := regress.CacheKey(ctx, s.ws.Module(), w.Target, w.options())
	if err != nil {
		return "", err
	}
	return testbuild.Bytes([]byte(fmt.Sprintf("%s\x00test memory %d", key, s.testMemory(testMemory)))), nil
}

// cachedExplanation returns the explanation kept under key, marked as
// taken from the cache.
func (s *Service) cachedExplanation(key string) (regress.Explanation, bool) {
	var ex regress.Explanation
	if !s.explainCache.get(key, &ex) {
		return ex, false
	}
	ex.Cached = true
	return ex, true
}

// options are the options regress explains the work's test with.
func (w explainWork) options() regress.Options {
	return regress.Options{Base: w.Base, Budget: w.Budget, MaxReruns: w.MaxReruns, RunTimeout: w.RunTimeout,
		Strategy: w.Strategy, Executed: w.Executed, Passing: w.Passing, SkipCauses: w.SkipCauses, Trace: w.Trace}
}

// passingRuns counts, for each block of m, the passing tests that
// executed it.
func passingRuns(m *spectra.Matrix) []int {
	counts := make([]int, len(m.Blocks))
	for _, r := range m.Tests {
		if r.Verdict != spectra.Pass {
			continue
		}
		for h := range r.Hits.All() {
			if h < len(counts) {
				counts[h]++
			}
		}
	}
	return counts
}

// executedLines are the lines a test executed in the matrix, and for
// each the passing tests that executed it too (passing: passingRuns).
func executedLines(m *spectra.Matrix, t testbuild.Target, passing []int) ([]regress.Line, []int) {
	i := slices.IndexFunc(m.Tests, func(r spectra.TestRun) bool { return r.Package == t.Package && r.Name == t.Test })
	if i < 0 {
		return nil, nil
	}
	lines := []regress.Line{}
	counts := []int{}
	at := map[regress.Line]int{}
	for h := range m.Tests[i].Hits.All() {
		b := m.Blocks[h]
		for _, l := range b.Lines {
			line := regress.Line{File: b.File, Line: l}
			if k, ok := at[line]; ok {
				// A line of several blocks: the most specific of them.
				counts[k] = min(counts[k], passing[h])
				continue
			}
			at[line] = len(lines)
			lines = append(lines, line)
			counts = append(counts, passing[h])
		}
	}
	return lines, counts
}

// explainEach is the worker's side: it explains each test in turn and
// hands each explanation, and the progress before it, to reply.
func explainEach(ctx context.Context, mod *testbuild.Module, work []explainWork, send func(workReply) error) error {
	var mu sync.Mutex
	reply := func(r workReply) error {
		mu.Lock()
		defer mu.Unlock()
		return send(r)
	}
	for _, w := range work {
		opts := w.options()
		opts.Progress = func(msg string) { reply(workReply{Progress: w.Target.Test + ": " + msg}) }
		ex, err := regress.Explain(ctx, mod, w.Target, opts)
		if err != nil {
			return err // the caller names the test
		}
		data, err := json.Marshal(ex)
		if err != nil {
			return err
		}
		if err := reply(workReply{Explanation: data}); err != nil {
			return err
		}
	}
	return nil
}
