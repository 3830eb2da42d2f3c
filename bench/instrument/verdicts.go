package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
	"github.com/faultline-go/faultline/bench/internal/mutation"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/spectra"
)

// verdictTimeout bounds plain go test's run of one module, per binary as
// go test's -timeout; the collection's leaf tests keep their default bound.
const verdictTimeout = 10 * time.Minute

// verdictCheck is how a module's tests fared plainly and instrumented.
type verdictCheck struct {
	leaves int // leaf tests go test reported, in packages that build plainly
	// differ: tests both ran, with other verdicts; lost: tests go test ran
	// and the collection did not; extra: tests the collection ran and go
	// test did not (those after a test that crashed go test's process,
	// which the collection runs in a new one). "package test: ...", sorted.
	differ, lost, extra []string
	// addressed counts the tests left out for names holding a pointer's
	// address (fmt's %v of a pointer), which differ from run to run.
	addressed int
	timePl    time.Duration
	timeCol   time.Duration
}

// address matches a pointer printed in a test's name.
var address = regexp.MustCompile(`0x[0-9a-f]{6,}`)

// checkVerdicts runs the module's tests with plain go test -json -vet=off
// (the collection runs no vet) and as spectra collects them (every test,
// into an empty store), and lists the tests whose verdicts differ: an
// instrumented package that starts or runs other than the original would
// localize from wrong spectra.
func checkVerdicts(ctx context.Context, dir, cache string, r *report) error {
	_, err := compareVerdicts(ctx, dir, filepath.Join(cache, "verdicts"), []string{"./..."}, verdictTimeout, spectra.CollectOptions{}, "", r, &r.verdicts)
	return err
}

// compareVerdicts runs the tests of pkgs plainly and as spectra collects
// them into the store under cache, adds what it finds to v (each entry
// after label) and returns the collection.
func compareVerdicts(ctx context.Context, dir, cache string, pkgs []string, plainTimeout time.Duration, co spectra.CollectOptions, label string, r *report, v *verdictCheck) (*spectra.Matrix, error) {
	start := time.Now()
	plain, err := gocmd.RunGoTest(ctx, dir, pkgs, plainTimeout, nil, "-vet=off")
	if err != nil {
		return nil, plainError{err}
	}
	v.timePl += time.Since(start)
	start = time.Now()
	ws, err := spectra.Open(dir, spectra.Options{CacheDir: cache})
	if err != nil {
		return nil, err
	}
	co.Packages = pkgs
	m, err := ws.Collect(ctx, co)
	if err != nil {
		return nil, fmt.Errorf("collection: %w", err)
	}
	v.timeCol += time.Since(start)

	skip := func(id gocmd.TestID) bool {
		if _, failed := r.plain[id.Package]; failed {
			return true
		}
		return address.MatchString(id.Test)
	}
	ours := map[gocmd.TestID]string{}
	below := map[gocmd.TestID]bool{} // tests with a collected leaf below them
	for _, t := range m.Tests {
		id := gocmd.TestID{Package: t.Package, Test: t.Name}
		if t.Verdict == testbuild.BuildError {
			continue
		}
		if skip(id) {
			v.addressed++
			continue
		}
		ours[id] = plainVerdict(t.Verdict)
		for name := t.Name; ; {
			i := strings.LastIndexByte(name, '/')
			if i < 0 {
				break
			}
			name = name[:i]
			below[gocmd.TestID{Package: t.Package, Test: name}] = true
		}
	}
	for id, want := range plain.Leaves {
		if skip(id) {
			continue
		}
		v.leaves++
		if got, ok := ours[id]; ok && got != want {
			v.differ = append(v.differ, fmt.Sprintf("%s%s %s: go test %s, faultline %s", label, id.Package, id.Test, want, got))
		} else if !ok && !below[id] {
			v.lost = append(v.lost, fmt.Sprintf("%s%s %s: go test %s", label, id.Package, id.Test, want))
		}
	}
	for id, got := range ours {
		want, ok := plain.All[id]
		switch {
		case !ok:
			v.extra = append(v.extra, fmt.Sprintf("%s%s %s: faultline %s", label, id.Package, id.Test, got))
		case want != got && plain.Leaves[id] == "":
			// A leaf here that go test's names made a parent.
			v.differ = append(v.differ, fmt.Sprintf("%s%s %s: go test %s, faultline %s", label, id.Package, id.Test, want, got))
		}
	}
	slices.Sort(v.differ)
	slices.Sort(v.lost)
	slices.Sort(v.extra)
	return m, nil
}

// plainError is a plain go test that ran no test: a published module's
// is broken, while a faulty version's may fail in its package's
// initialization or TestMain.
type plainError struct{ err error }

func (e plainError) Error() string { return "plain go test: " + e.err.Error() }
func (e plainError) Unwrap() error { return e.err }

// mutantCheck is how the tests of faulty versions of a module fared
// plainly and instrumented: verdicts summed over the mutants.
type mutantCheck struct {
	verdictCheck
	tried, built    int // mutants applied; those whose package built
	failing, panics int // mutants with a failing test; with a test that panicked
	ranNothing      int // mutants whose plain go test ran no test (their package's setup failed)
}

// add sums another module's mutants into c.
func (c *mutantCheck) add(o mutantCheck) {
	c.tried += o.tried
	c.built += o.built
	c.ranNothing += o.ranNothing
	c.failing += o.failing
	c.panics += o.panics
	c.leaves += o.leaves
	c.differ = append(c.differ, o.differ...)
	c.lost = append(c.lost, o.lost...)
	c.extra = append(c.extra, o.extra...)
}

// Timeouts of a mutant's runs: a mutant may loop forever, and the plain
// run's bound ends the whole test binary where the collection's ends one
// test.
const (
	mutantPlainTimeout = 90 * time.Second
	mutantTestTimeout  = 20 * time.Second
)

// checkMutantVerdicts compares the verdicts of n faulty versions of the
// module, each one mutation (bench/internal/mutation's, drawn by seed as
// bench/effectiveness draws them) in a non-test file of a package with
// tests: failing, panicking and hanging tests, which a published module's
// do not have. Each runs its package's tests alone, plainly and collected
// into a store of its own. The file is restored after each.
func checkMutantVerdicts(ctx context.Context, dir, modulePath, cache string, pkgs []*testbuild.Package, n int, seed uint64, r *report) error {
	owner := map[string]string{} // module-relative file -> package
	var files []string
	for _, p := range pkgs {
		if _, failed := r.plain[p.ImportPath]; failed {
			continue
		}
		for _, f := range p.GoFiles {
			rel, err := filepath.Rel(dir, filepath.Join(p.Dir, f))
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			owner[rel] = p.ImportPath
			files = append(files, rel)
		}
	}
	sites, err := mutation.ModuleSites(dir, files)
	if err != nil {
		return err
	}
	sites = mutation.Shuffle(sites, seed, modulePath)
	c := &r.mutants
	for _, site := range sites[:min(n, len(sites))] {
		path := filepath.Join(dir, filepath.FromSlash(site.File))
		orig, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		mutated, err := site.Apply(orig)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, mutated, 0o644); err != nil {
			return err
		}
		c.tried++
		store := filepath.Join(cache, fmt.Sprintf("mutant%d", c.tried))
		m, err := compareVerdicts(ctx, dir, store, []string{owner[site.File]}, mutantPlainTimeout, spectra.CollectOptions{Timeout: mutantTestTimeout}, site.ID()+": ", r, &c.verdictCheck)
		if werr := os.WriteFile(path, orig, 0o644); err == nil {
			err = werr
		}
		os.RemoveAll(store)
		var pe plainError
		if errors.As(err, &pe) {
			c.ranNothing++
			continue
		}
		if err != nil {
			return fmt.Errorf("mutant %s: %w", site.ID(), err)
		}
		if len(m.BuildErrors) > 0 {
			continue
		}
		c.built++
		failing, panicked := false, false
		for _, t := range m.Tests {
			failing = failing || t.Verdict.Failing()
			panicked = panicked || t.Verdict == testbuild.Panic
		}
		if failing {
			c.failing++
		}
		if panicked {
			c.panics++
		}
	}
	return nil
}

// plainVerdict is how go test -json reports a test of the verdict: a test
// that panicked, hung or went over the memory bound fails there.
func plainVerdict(v testbuild.Verdict) string {
	switch v {
	case testbuild.Pass, testbuild.Skip:
		return string(v)
	default:
		return "fail"
	}
}

// differences is the verdict column of the tables: "–" when not checked.
func (r *report) differences() string {
	if !r.verdictsChecked {
		return "–"
	}
	return r.verdicts.String()
}

func (v verdictCheck) String() string {
	return fmt.Sprintf("%d differ, %d lost, %d extra of %d", len(v.differ), len(v.lost), len(v.extra), v.leaves)
}

// printMutants writes the mutants' line and the tests whose verdicts
// differ on them.
func (r *report) printMutants(w io.Writer, full bool) {
	if !r.mutantsChecked {
		return
	}
	c := r.mutants
	fmt.Fprintf(w, "\nMutants: %d tried, %d built, %d whose plain go test ran no test, %d with a failing test, %d with a test that panicked; tests against go test: %s.\n", c.tried, c.built, c.ranNothing, c.failing, c.panics, c.verdictCheck)
	printVerdicts(w, c.verdictCheck, full)
}

// printVerdicts lists the tests that differ, the first ten of each kind
// unless full.
func (r *report) printVerdicts(w io.Writer, full bool) {
	printVerdicts(w, r.verdicts, full)
}

func printVerdicts(w io.Writer, v verdictCheck, full bool) {
	if v.addressed > 0 {
		fmt.Fprintf(w, "\n%d tests left out of the verdict check: their names hold a pointer's address.\n", v.addressed)
	}
	for _, kind := range []struct {
		what  string
		tests []string
	}{{"verdicts that differ", v.differ}, {"run by go test, not by the collection", v.lost}, {"run by the collection, not by go test", v.extra}} {
		if len(kind.tests) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (plain go test %s, collection %s):\n\n", kind.what, seconds(v.timePl), seconds(v.timeCol))
		shown := kind.tests
		if !full && len(shown) > 10 {
			shown = shown[:10]
		}
		for _, d := range shown {
			if r := []rune(d); len(r) > 200 {
				d = string(r[:200]) + "…"
			}
			fmt.Fprintf(w, "- `%s`\n", strings.ReplaceAll(d, "`", "'"))
		}
		if len(shown) < len(kind.tests) {
			fmt.Fprintf(w, "- and %d more\n", len(kind.tests)-len(shown))
		}
	}
}
