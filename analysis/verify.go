package analysis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/internal/scratch"
	"github.com/faultline-go/faultline/internal/testbuild"
)

// Verification is the outcome of running a failing test with a candidate's
// angelic values forced.
type Verification struct {
	Test     string
	Passed   bool
	Duration time.Duration // of the forced run alone
	Output   string        // the end of the test's output, without === lines
}

// maxExcerptLines bounds Verification.Output.
const maxExcerptLines = 12

// Verify runs the test of t again with the angelic values of c forced and
// reports whether it passes. The package is loaded and instrumented anew
// (the binary built for the analysis is reused when nothing changed): site
// numbers depend only on the sources, so Verify refuses, with an error
// wrapping ErrSourceChanged, when any source file the test's binary is
// built from differs from what the analysis saw. Only candidates returned
// by Analyze, or restored from a ResultCache, carry the forced values.
func Verify(ctx context.Context, mod *testbuild.Module, t testbuild.Target, c Candidate, opts Options) (Verification, error) {
	opts.Defaults()
	if !c.Verifiable() {
		return Verification{}, errors.New("the candidate carries no forced values: only candidates made by Analyze can be verified")
	}
	if t.Package == "" || t.Test == "" {
		return Verification{}, errors.New("verifying a candidate needs the test's package and name")
	}
	// Checked before and after listing: before saves the work when a file
	// plainly changed, after catches new files.
	if err := changedSources(mod, c.Sources); err != nil {
		return Verification{}, err
	}
	listing, err := mod.List(ctx)
	if err != nil {
		return Verification{}, err
	}
	pkg := listing.Package(t.Package)
	if pkg == nil {
		return Verification{}, fmt.Errorf("%w: %s is no longer a package of the module", ErrSourceChanged, t.Package)
	}
	keys, err := mod.Keys(ctx, listing, "")
	if err != nil {
		return Verification{}, err
	}
	defer mod.Hasher().Save()
	now, err := keys.Sources(pkg)
	if err != nil {
		return Verification{}, err
	}
	if err := sameSources(c.Sources, now); err != nil {
		return Verification{}, err
	}
	prog, err := instrument.LoadProgram(mod, t.Package, testbuild.SortedPaths(listing.Closure(pkg)))
	if err != nil {
		return Verification{}, err
	}
	if err := c.SameSites(prog); err != nil {
		return Verification{}, err
	}
	work, remove, err := scratch.MkdirTemp("verify-")
	if err != nil {
		return Verification{}, err
	}
	defer remove()
	bin, err := instrument.BuildTestBinary(ctx, mod, keys, prog, pkg, work)
	if err != nil {
		return Verification{}, err
	}
	bin.Timeout = opts.RunTimeout
	run, err := bin.Run(ctx, t.Test, c.Force)
	if err != nil {
		return Verification{}, fmt.Errorf("verifying %s: %w", t.Test, err)
	}
	return Verification{Test: t.Test, Passed: run.Passed, Duration: run.Elapsed, Output: excerpt(run.Output)}, nil
}

// changedSources compares the files on disk with the recorded hashes.
func changedSources(mod *testbuild.Module, recorded map[string]string) error {
	for _, rel := range slices.Sorted(maps.Keys(recorded)) {
		h, err := mod.Hasher().File(filepath.Join(mod.Root, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Errorf("%w: %s is unreadable (%v); run the analysis again", ErrSourceChanged, rel, err)
		}
		if h != recorded[rel] {
			return fmt.Errorf("%w: %s was edited; run the analysis again", ErrSourceChanged, rel)
		}
	}
	return nil
}

// sameSources compares the files a new load hashed with the recorded ones.
func sameSources(recorded, now map[string]string) error {
	for _, rel := range slices.Sorted(maps.Keys(now)) {
		was, ok := recorded[rel]
		switch {
		case !ok:
			return fmt.Errorf("%w: %s is new; run the analysis again", ErrSourceChanged, rel)
		case was != now[rel]:
			return fmt.Errorf("%w: %s was edited; run the analysis again", ErrSourceChanged, rel)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(recorded)) {
		if _, ok := now[rel]; !ok {
			return fmt.Errorf("%w: %s is no longer part of the build; run the analysis again", ErrSourceChanged, rel)
		}
	}
	return nil
}

// excerpt keeps the end of a test's output: its messages and verdict lines,
// without the === RUN/PAUSE/CONT lines or the binary's closing PASS/FAIL.
func excerpt(output string) string {
	var keep []string
	for _, l := range strings.Split(output, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || t == "PASS" || t == "FAIL" {
			continue
		}
		keep = append(keep, strings.TrimRight(l, "\r "))
	}
	if len(keep) > maxExcerptLines {
		keep = append([]string{"…"}, keep[len(keep)-maxExcerptLines:]...)
	}
	return strings.Join(keep, "\n")
}
