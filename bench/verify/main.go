//go:build cgo

// Command verify measures "Verify angelic fix": for each seeded-fault
// program it collects spectra, analyses every failing test, then verifies
// every verified candidate again with analysis.Verify (fresh load,
// instrumentation and build, one forced run) and reports whether the
// outcome agrees with the analysis and how long a verification takes, in
// total and in the forced run alone.
//
//	go run ./bench/verify [-programs bench/analysis/programs] [-max-size 1]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/bench/internal/archive"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/spectra"
)

func main() {
	programs := flag.String("programs", "bench/analysis/programs", "directory of seeded-fault txtar modules")
	maxSize := flag.Int("max-size", 1, "largest candidate analysed, in locations")
	flag.Parse()
	if err := run(*programs, *maxSize); err != nil {
		fmt.Fprintln(os.Stderr, "bench/verify:", err)
		os.Exit(1)
	}
}

// row is one program's verifications.
type row struct {
	name             string
	candidates, same int
	total, forced    []time.Duration
}

func run(programs string, maxSize int) error {
	ctx := context.Background()
	scratch, err := os.MkdirTemp("", "faultline-bench-verify-")
	if err != nil {
		return fmt.Errorf("creating scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	archives, err := filepath.Glob(filepath.Join(programs, "*.txtar"))
	if err != nil || len(archives) == 0 {
		return fmt.Errorf("no txtar programs in %s", programs)
	}
	var rows []row
	var allTotal, allForced []time.Duration
	for _, a := range archives {
		name := strings.TrimSuffix(filepath.Base(a), ".txtar")
		dir := filepath.Join(scratch, name)
		if err := archive.Extract(a, dir); err != nil {
			return err
		}
		r, err := measure(ctx, name, dir, filepath.Join(scratch, "cache"), maxSize)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, r)
		allTotal = append(allTotal, r.total...)
		allForced = append(allForced, r.forced...)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "program\tverified candidates\tverify again passes\tmedian Verify\tmedian forced run")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\n", r.name, r.candidates, r.same, median(r.total), median(r.forced))
	}
	same, n := 0, 0
	for _, r := range rows {
		same += r.same
		n += r.candidates
	}
	fmt.Fprintf(w, "all\t%d\t%d\t%s\t%s\n", n, same, median(allTotal), median(allForced))
	return w.Flush()
}

// measure analyses a program's failing tests and verifies each verified
// candidate again.
func measure(ctx context.Context, name, dir, cache string, maxSize int) (row, error) {
	r := row{name: name}
	ws, err := spectra.Open(dir, spectra.Options{CacheDir: cache})
	if err != nil {
		return r, err
	}
	m, err := ws.Collect(ctx, spectra.CollectOptions{})
	if err != nil {
		return r, err
	}
	var targets []testbuild.Target
	for _, t := range m.Tests {
		if t.Verdict.Failing() {
			targets = append(targets, testbuild.Target{Package: t.Package, Test: t.Name})
		}
	}
	results, err := analysis.Analyze(ctx, ws.Module(), targets, analysis.Options{MaxSize: maxSize})
	if err != nil {
		return r, err
	}
	for _, res := range results {
		for _, c := range res.Candidates {
			if !c.Verified {
				continue
			}
			r.candidates++
			began := time.Now()
			v, err := analysis.Verify(ctx, ws.Module(), testbuild.Target{Package: res.Package, Test: res.Test}, c, analysis.Options{})
			if err != nil {
				return r, fmt.Errorf("verifying a candidate of %s: %w", res.Test, err)
			}
			r.total = append(r.total, time.Since(began))
			r.forced = append(r.forced, v.Duration)
			if v.Passed {
				r.same++
			}
		}
	}
	return r, nil
}

func median(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Millisecond).String()
}
