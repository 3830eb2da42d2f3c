package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/faultline-go/faultline/bench/internal/realfault"
	"github.com/faultline-go/faultline/internal/localize"
)

// runCompare compares two eval directories fault by fault: the wall time of
// each rank, whether every line is listed in the same place, and where the
// first faulty line is listed. It is how a change that should not move a
// line (a faster build, a cheaper run) shows what it did move.
func runCompare(args []string) error {
	flags := flag.NewFlagSet("compare", flag.ContinueOnError)
	benchPath := flags.String("bench", defaultBenchmark, "the benchmark file")
	oldWork := flags.String("old", "", "eval directory of the baseline binary")
	newWork := flags.String("new", "", "eval directory of the changed binary")
	faults := flags.String("faults", "", "comma-separated fault ids (default: every fault ranked in both)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *oldWork == "" || *newWork == "" {
		return errors.New("compare: give -old and -new")
	}
	b, err := realfault.LoadBenchmark(*benchPath)
	if err != nil {
		return err
	}
	want := commaList(*faults)
	return compareEvals(os.Stdout, b, *oldWork, *newWork, want)
}

// evalResult is one fault's rank as eval kept it.
type evalResult struct {
	seconds, load float64
	report        *localize.RankReport
}

func readEvalResult(work, id string) (*evalResult, error) {
	dir := filepath.Join(work, "eval", id)
	meta, err := readRunMeta(dir)
	if err != nil {
		return nil, err
	}
	r := &evalResult{seconds: meta.Seconds["evidence"], load: meta.Load[0]}
	if err := readReport(filepath.Join(dir, "evidence.json"), &r.report); err != nil {
		return nil, err
	}
	return r, nil
}

// firstFaulty is the 1-based place of f's first faulty line in the list,
// or 0.
func firstFaulty(f *realfault.Fault, lines []localize.RankedLine) int {
	for i, l := range lines {
		if f.Holds(l.File, l.Line) {
			return i + 1
		}
	}
	return 0
}

func compareEvals(w io.Writer, b *realfault.Benchmark, oldWork, newWork string, want []string) error {
	var oldSecs, newSecs, ratios []float64
	moved, reordered := 0, 0
	for i := range b.Faults {
		f := &b.Faults[i]
		if len(want) > 0 && !slices.Contains(want, f.ID) {
			continue
		}
		o, errOld := readEvalResult(oldWork, f.ID)
		n, errNew := readEvalResult(newWork, f.ID)
		if errors.Is(errOld, fs.ErrNotExist) || errors.Is(errNew, fs.ErrNotExist) {
			continue // not ranked in both
		}
		if err := errors.Join(errOld, errNew); err != nil {
			fmt.Fprintf(w, "%-26s %v\n", f.ID, err)
			continue
		}
		same := 0
		for same < min(len(o.report.Lines), len(n.report.Lines)) &&
			o.report.Lines[same].File == n.report.Lines[same].File && o.report.Lines[same].Line == n.report.Lines[same].Line {
			same++
		}
		if same < max(len(o.report.Lines), len(n.report.Lines)) {
			reordered++
		}
		po, pn := firstFaulty(f, o.report.Lines), firstFaulty(f, n.report.Lines)
		if po != pn {
			moved++
		}
		oldSecs, newSecs = append(oldSecs, o.seconds), append(newSecs, n.seconds)
		ratios = append(ratios, n.seconds/o.seconds)
		fmt.Fprintf(w, "%-26s %6.1f s → %6.1f s (×%.2f)  same place: %5d of %5d lines  faulty line: %d → %d  load %.1f/%.1f\n",
			f.ID, o.seconds, n.seconds, n.seconds/o.seconds, same, len(n.report.Lines), po, pn, o.load, n.load)
	}
	if len(ratios) == 0 {
		return errors.New("compare: no fault is ranked in both directories")
	}
	fmt.Fprintf(w, "%d faults: median %.1f s → %.1f s, worst %.1f s → %.1f s, per-fault ratio median %.2f (%.2f–%.2f); %d list a line elsewhere, %d moved their faulty line\n",
		len(ratios), median(oldSecs), median(newSecs), slices.Max(oldSecs), slices.Max(newSecs),
		median(ratios), slices.Min(ratios), slices.Max(ratios), reordered, moved)
	return nil
}
