package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
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
	start := time.Now()
	plain, err := gocmd.RunGoTest(ctx, dir, []string{"./..."}, verdictTimeout, nil, "-vet=off")
	if err != nil {
		return fmt.Errorf("plain go test: %w", err)
	}
	r.verdicts.timePl = time.Since(start)
	start = time.Now()
	ws, err := spectra.Open(dir, spectra.Options{CacheDir: filepath.Join(cache, "verdicts")})
	if err != nil {
		return err
	}
	m, err := ws.Collect(ctx, spectra.CollectOptions{})
	if err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	r.verdicts.timeCol = time.Since(start)

	v := &r.verdicts
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
			v.differ = append(v.differ, fmt.Sprintf("%s %s: go test %s, faultline %s", id.Package, id.Test, want, got))
		} else if !ok && !below[id] {
			v.lost = append(v.lost, fmt.Sprintf("%s %s: go test %s", id.Package, id.Test, want))
		}
	}
	for id, got := range ours {
		want, ok := plain.All[id]
		switch {
		case !ok:
			v.extra = append(v.extra, fmt.Sprintf("%s %s: faultline %s", id.Package, id.Test, got))
		case want != got && plain.Leaves[id] == "":
			// A leaf here that go test's names made a parent.
			v.differ = append(v.differ, fmt.Sprintf("%s %s: go test %s, faultline %s", id.Package, id.Test, want, got))
		}
	}
	slices.Sort(v.differ)
	slices.Sort(v.lost)
	slices.Sort(v.extra)
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
	v := r.verdicts
	return fmt.Sprintf("%d differ, %d lost, %d extra of %d", len(v.differ), len(v.lost), len(v.extra), v.leaves)
}

// printVerdicts lists the tests that differ, the first ten of each kind
// unless full.
func (r *report) printVerdicts(w io.Writer, full bool) {
	v := r.verdicts
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
