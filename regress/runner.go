package regress

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// verdict is one build and run of the test.
type verdict string

const (
	pass     verdict = "pass"
	fail     verdict = "fail"
	noBuild  verdict = "no build"
	noTest   verdict = "no test" // the binary built but has no such test
	timedOut verdict = "timeout"
	// memoryStopped: the test memory bound stopped the run, which says
	// nothing of the code (a larger bound lets it go on).
	memoryStopped verdict = "memory"
)

// outcome is a run of the test with some files replaced.
type outcome struct {
	Verdict verdict
	Message string // the compiler's message, or the test's output
	Elapsed time.Duration
}

// replacement is what a build reads for a file instead of the working
// tree: its content, or nothing (the file is absent).
type replacement struct {
	data    string
	present bool
}

// runner builds the test's package through the instrumented-build layer
// with files replaced by an overlay (the working tree and the git state
// are never touched) and runs the one leaf test.
type runner struct {
	mod     *testbuild.Module
	pkg     *testbuild.Package
	test    string
	timeout time.Duration
	work    string // scratch directory for binaries
	// mu guards seq, builds and runs: the base's build may run beside the
	// working tree's.
	mu     sync.Mutex
	seq    int
	builds int
	runs   int
	// removeWork removes work.
	removeWork func() error
	// note, when set, says that runs at older commits read the working
	// tree's files.
	note string
	// workingTree is the test binary built from the working tree, kept
	// for running it again: the build is the same every time.
	workingTree *testbuild.Binary
	// phases times the builds and runs (nil: not timed).
	phases *phases
}

func newRunner(mod *testbuild.Module, pkg *testbuild.Package, test string, timeout time.Duration) (*runner, error) {
	work, remove, err := scratch.MkdirTemp("explain-")
	if err != nil {
		return nil, err
	}
	return &runner{mod: mod, pkg: pkg, test: test, timeout: timeout, work: work, removeWork: remove}, nil
}

func (r *runner) close() { r.removeWork() }

// build builds the test binary with the files replaced; a package that
// does not compile gives a nil binary and the compiler's message.
func (r *runner) build(ctx context.Context, files map[string]replacement) (*testbuild.Binary, string, error) {
	o, err := r.mod.NewOverlay()
	if err != nil {
		return nil, "", err
	}
	for path, rep := range files {
		if rep.present {
			if err := o.Put(path, []byte(rep.data)); err != nil {
				return nil, "", err
			}
		} else {
			o.Remove(path)
		}
	}
	defer r.phases.since("build", time.Now())
	dir := filepath.Join(r.work, fmt.Sprint(r.next(true)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("creating the build directory: %w", err)
	}
	built, failed, err := r.mod.BuildTests(ctx, o, []*testbuild.Package{r.pkg}, nil, dir)
	if err != nil {
		return nil, "", err
	}
	if b := built[r.pkg.ImportPath]; b != nil {
		return b, "", nil
	}
	msg := failed[r.pkg.ImportPath]
	if testbuild.MachineMessage(msg) {
		// A full disk is no verdict on the commit, and would be cached as one.
		return nil, "", fmt.Errorf("building the test of %s: %s", r.pkg.ImportPath, msg)
	}
	if msg == "" {
		msg = "the test binary did not build"
	}
	return nil, msg, nil
}

// next numbers a scratch directory, counting a build when it is one.
func (r *runner) next(build bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	if build {
		r.builds++
	}
	return r.seq
}

// exec runs the leaf test of a built binary.
func (r *runner) exec(ctx context.Context, bin *testbuild.Binary) (outcome, error) {
	r.mu.Lock()
	r.runs++
	r.mu.Unlock()
	defer r.phases.since("run", time.Now())
	out, err := r.mod.RunTest(ctx, bin, r.test, r.timeout, nil)
	if err != nil {
		return outcome{}, err
	}
	if out.KilledOutside {
		// No verdict on the code, and would be cached as one.
		return outcome{}, fmt.Errorf("running %s: the test process was killed from outside", r.test)
	}
	o := outcome{Elapsed: out.Elapsed, Message: out.Output}
	switch {
	case out.Passed:
		o.Verdict = pass
	case out.Verdict == testbuild.Timeout:
		o.Verdict = timedOut
	case out.Verdict == testbuild.Memory:
		o.Verdict = memoryStopped
		o.Message = out.Memory.String()
	case out.Verdict == testbuild.Panic && out.ExitCode == 0 && strings.Contains(out.Output, "no tests to run"):
		o.Verdict = noTest
	case out.Verdict == testbuild.Skip:
		o.Verdict = noTest
		o.Message = "the test is skipped: " + out.Output
	default:
		o.Verdict = fail
	}
	return o, nil
}

// runWorkingTree runs the test as in the working tree, building its
// binary only the first time: the rerun that tells a flaky failure from a
// real one needs no second build.
func (r *runner) runWorkingTree(ctx context.Context) (outcome, error) {
	if r.workingTree == nil {
		bin, msg, err := r.build(ctx, nil)
		if err != nil {
			return outcome{}, err
		}
		if bin == nil {
			return outcome{Verdict: noBuild, Message: msg}, nil
		}
		r.workingTree = bin
	}
	return r.exec(ctx, r.workingTree)
}

// run builds and runs the test with the files replaced. When they
// replace a file the test reads at run time, it runs in a copy of the
// module that holds them, in the copy's package directory: the overlay
// reaches only the build.
func (r *runner) run(ctx context.Context, files map[string]replacement) (outcome, error) {
	bin, msg, err := r.build(ctx, files)
	if err != nil {
		return outcome{}, err
	}
	if bin == nil {
		return outcome{Verdict: noBuild, Message: msg}, nil
	}
	defer os.Remove(bin.Path)
	if !readAtRunTime(files) {
		return r.exec(ctx, bin)
	}
	tree := filepath.Join(r.work, fmt.Sprintf("tree%d", r.next(false)))
	defer os.RemoveAll(tree)
	err = copyTree(r.mod.Root, tree, files)
	if errors.Is(err, errTreeTooLarge) {
		r.note = fmt.Sprintf("older commits ran with the working tree's files other than Go source (%v): the module is too large to copy", err)
		return r.exec(ctx, bin)
	}
	if err != nil {
		return outcome{}, err
	}
	rel, err := filepath.Rel(r.mod.Root, bin.Package.Dir)
	if err != nil {
		return outcome{}, fmt.Errorf("locating %s in the module: %w", bin.Package.ImportPath, err)
	}
	pkg := *bin.Package
	pkg.Dir = filepath.Join(tree, rel)
	return r.exec(ctx, &testbuild.Binary{Package: &pkg, Path: bin.Path})
}
