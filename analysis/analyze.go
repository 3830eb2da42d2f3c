package analysis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/faultline-go/faultline/analysis/formula"
	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/result"
	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Analyze computes the angelic fix candidates of each failing test of mod.
// The targets of one package share one instrumented build.
func Analyze(ctx context.Context, mod *testbuild.Module, targets []testbuild.Target, opts Options) ([]TestResult, error) {
	var out []TestResult
	err := AnalyzeEach(ctx, mod, targets, opts, func(r TestResult) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// notStartedNote is the note of a test whose analysis Options.StartBy
// kept from starting.
const notStartedNote = "not analysed: the time for this ranking's analyses ran out before it started; it is analysed next time"

// AnalyzeEach analyses the targets package by package and hands each result
// to done as soon as it is complete. A package that cannot be analysed (its
// instrumented build fails, say) gives each of its targets a result whose
// note says why; only a cancelled context, an error of done or a failure of
// the module as a whole stops the loop. Past Options.StartBy no further
// analysis starts: the targets left get a note and EndedBudget.
func AnalyzeEach(ctx context.Context, mod *testbuild.Module, targets []testbuild.Target, opts Options, done func(TestResult) error) error {
	opts.Defaults()
	work, remove, err := scratch.MkdirTemp("agx-")
	if err != nil {
		return err
	}
	defer remove()
	listing, keys, err := mod.ListKeys(ctx)
	if err != nil {
		return err
	}
	defer mod.Hasher().Save()
	byPkg := map[string][]testbuild.Target{}
	var order []string
	for _, t := range targets {
		if _, ok := byPkg[t.Package]; !ok {
			order = append(order, t.Package)
		}
		byPkg[t.Package] = append(byPkg[t.Package], t)
	}
	startPassed := func() bool { return !opts.StartBy.IsZero() && time.Now().After(opts.StartBy) }
	for _, path := range order {
		pkg := listing.Package(path)
		var prog *instrument.Program
		var bin *instrument.TestBinary
		var sources map[string]string
		err := fmt.Errorf("%s is not a package of module %s", path, mod.Path)
		switch {
		case startPassed():
			err = nil // nothing to build: no test of the package starts
		case pkg != nil:
			err = result.Recovered("instrumenting "+path, func() (err error) {
				prog, err = instrument.LoadProgram(mod, path, testbuild.SortedPaths(listing.Closure(pkg)))
				return err
			})
			if err == nil {
				sources, err = keys.Sources(pkg)
			}
			if err == nil {
				bin, err = instrument.BuildTestBinary(ctx, mod, keys, prog, pkg, work)
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, t := range byPkg[path] {
			r := &TestResult{Test: t.Test}
			if startPassed() {
				r.Notes, r.Ended = []string{notStartedNote}, result.EndedBudget
			} else if err == nil {
				bin.Timeout = opts.RunTimeout
				aerr := result.Recovered("analysing "+t.Test, func() (err error) {
					r, err = analyzeTest(ctx, prog, bin, t, opts)
					return err
				})
				if aerr != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					r = &TestResult{Test: t.Test, Notes: []string{fmt.Sprintf("not analysed: %v", aerr)}, Ended: result.EndingOf(aerr)}
				}
				r.SetSources(sources)
			} else {
				r.Notes, r.Ended = []string{fmt.Sprintf("not analysed: %v", err)}, result.EndingOf(err)
			}
			r.Package = path
			if err := done(*r); err != nil {
				return err
			}
		}
	}
	return nil
}

func analyzeTest(ctx context.Context, prog *instrument.Program, bin *instrument.TestBinary, t testbuild.Target, opts Options) (*TestResult, error) {
	start := time.Now()
	res := &TestResult{Test: t.Test}
	bin.Runs = 0
	bin.Timeout = opts.RunTimeout
	bin.Deadline = start.Add(opts.WallCap())
	defer func() {
		bin.Deadline = time.Time{}
		res.Runs = bin.Runs
		res.Total = time.Since(start)
	}()
	err := formula.Search(ctx, prog, bin, t, opts, res)
	res.Ended = EndedNoCandidate
	if errors.Is(err, instrument.ErrBudget) {
		if !slices.Contains(res.Notes, instrument.NoteBudget) {
			res.Notes = append(res.Notes, instrument.NoteBudget)
		}
		res.Ended, err = EndedBudget, nil
	}
	if err != nil {
		return nil, err
	}
	if result.HasVerified(res) && res.Ended != EndedBudget {
		// A result the wall-clock cap cut keeps EndedBudget, findings or
		// not: how far it got depends on the load, so it is not cached.
		res.Ended = EndedFinding
	}
	result.SortCandidates(res.Candidates)
	return res, nil
}
