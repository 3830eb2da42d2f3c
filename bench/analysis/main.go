//go:build cgo

// Command analysis measures the angelic fix localization on seeded faults:
// for each program (a txtar module in programs/ or an examples/ module with
// fault.json) it collects spectra, analyses every failing test, and reports
// whether the faulty line is in a verified candidate, the faulty line's
// rank under Ochiai and under the combined ranking, and the time per
// failing test split into solving and the rest.
//
//	go run ./bench/analysis [-programs bench/analysis/programs] [-examples examples]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/bench/internal/archive"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/rank"
)

type fault struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

type outcome struct {
	name             string
	failing          int
	fixedTests       int                 // failing tests with the faulty line in a verified candidate
	ochiai, combined localize.RankedLine // the faulty line's place; Rank 0 when never executed
	lines            int
	perTest          []analysis.TestResult
	notes            []string
}

func main() {
	programs := flag.String("programs", "bench/analysis/programs", "directory of seeded-fault txtar modules")
	examples := flag.String("examples", "examples", "directory of example modules with fault.json")
	budget := flag.Duration("budget", 10*time.Second, "analysis time per failing test (faultline rank's default)")
	flag.Parse()
	if err := run(*programs, *examples, *budget); err != nil {
		fmt.Fprintln(os.Stderr, "bench/analysis:", err)
		os.Exit(1)
	}
}

func run(programs, examples string, budget time.Duration) error {
	ctx := context.Background()
	scratch, err := os.MkdirTemp("", "faultline-bench-analysis-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	type source struct{ name, dir string }
	var sources []source
	archives, _ := filepath.Glob(filepath.Join(programs, "*.txtar"))
	for _, a := range archives {
		dir := filepath.Join(scratch, strings.TrimSuffix(filepath.Base(a), ".txtar"))
		if err := archive.Extract(a, dir); err != nil {
			return err
		}
		sources = append(sources, source{filepath.Base(a), dir})
	}
	faults, _ := filepath.Glob(filepath.Join(examples, "*", "fault.json"))
	for _, f := range faults {
		dir, _ := filepath.Abs(filepath.Dir(f))
		sources = append(sources, source{"examples/" + filepath.Base(dir), dir})
	}
	var outs []outcome
	for _, s := range sources {
		o, err := measure(ctx, s.name, s.dir, filepath.Join(scratch, "cache"), budget)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		outs = append(outs, o)
	}
	report(outs)
	return nil
}

func measure(ctx context.Context, name, dir, cache string, budget time.Duration) (outcome, error) {
	o := outcome{name: name}
	data, err := os.ReadFile(filepath.Join(dir, "fault.json"))
	if err != nil {
		return o, fmt.Errorf("reading fault.json: %w", err)
	}
	var f fault
	if err := json.Unmarshal(data, &f); err != nil {
		return o, fmt.Errorf("parsing fault.json: %w", err)
	}
	ws, err := spectra.Open(dir, spectra.Options{CacheDir: cache})
	if err != nil {
		return o, err
	}
	m, err := ws.Collect(ctx, spectra.CollectOptions{})
	if err != nil {
		return o, err
	}
	formula, err := rank.Lookup("ochiai")
	if err != nil {
		return o, err
	}
	ranking, err := localize.RankFormula(m, formula)
	if err != nil {
		return o, err
	}
	var targets []testbuild.Target
	for _, t := range m.Tests {
		if t.Verdict.Failing() {
			targets = append(targets, testbuild.Target{Package: t.Package, Test: t.Name})
		}
	}
	o.failing = len(targets)
	results, err := analysis.Analyze(ctx, ws.Module(), targets, analysis.Options{Budget: budget})
	if err != nil {
		return o, err
	}
	o.perTest = results
	for _, r := range results {
		for _, n := range r.Notes {
			o.notes = append(o.notes, r.Test+": "+n)
		}
		if hosts(r, f) {
			o.fixedTests++
		}
	}
	o.lines = len(ranking.Lines)
	o.ochiai = position(ranking, f)
	o.combined = position(localize.Combine(ranking, results), f)
	return o, nil
}

func hosts(r analysis.TestResult, f fault) bool {
	for _, c := range r.Candidates {
		for _, l := range c.Locations {
			if c.Verified && l.File == f.File && l.Line <= f.Line && f.Line <= l.EndLine {
				return true
			}
		}
	}
	return false
}

// position is the faulty line's place in r, with its tie group; Rank 0
// when the line was never executed.
func position(r *localize.Ranking, f fault) localize.RankedLine {
	for _, l := range r.Lines {
		if l.File == f.File && l.Line == f.Line {
			return l
		}
	}
	return localize.RankedLine{}
}

// place prints a rank with its tie group.
func place(l localize.RankedLine) string {
	if l.Rank == 0 {
		return "-"
	}
	if l.Tie[0] == l.Tie[1] {
		return fmt.Sprint(l.Rank)
	}
	return fmt.Sprintf("%d–%d", l.Tie[0], l.Tie[1])
}

// tops counts the faults within the top 1, 3 and 5 in the best and worst
// case over ties, and the expected number ranked first when ties are
// examined in random order.
type tops struct {
	best, worst [3]int
	expected1   float64
}

func (t *tops) add(l localize.RankedLine) {
	if l.Rank == 0 {
		return
	}
	for i, n := range []int{1, 3, 5} {
		if l.Tie[0] <= n {
			t.best[i]++
		}
		if l.Tie[1] <= n {
			t.worst[i]++
		}
	}
	if l.Tie[0] == 1 {
		t.expected1 += 1 / float64(l.Tie[1]-l.Tie[0]+1)
	}
}

func (t tops) String() string {
	return fmt.Sprintf("best %d/%d/%d, worst %d/%d/%d, expected Top-1 %.1f",
		t.best[0], t.best[1], t.best[2], t.worst[0], t.worst[1], t.worst[2], t.expected1)
}

func report(outs []outcome) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "program\tfailing tests\twith fault in a verified candidate\tOchiai rank\tcombined rank\tlines")
	faultsFound := 0
	var ochiai, combined tops
	var totals, solves []time.Duration
	for _, o := range outs {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%d\n", o.name, o.failing, o.fixedTests, place(o.ochiai), place(o.combined), o.lines)
		if o.fixedTests > 0 {
			faultsFound++
		}
		ochiai.add(o.ochiai)
		combined.add(o.combined)
		for _, r := range o.perTest {
			totals = append(totals, r.Total)
			solves = append(solves, r.Solve)
		}
	}
	w.Flush()
	fmt.Printf("\nfaults with the faulty line in a verified candidate: %d of %d\n", faultsFound, len(outs))
	fmt.Printf("Top-1/3/5 of %d faults\n  Ochiai:   %v\n  combined: %v\n", len(outs), ochiai, combined)
	if len(totals) > 0 {
		rest := make([]time.Duration, len(totals))
		for i := range totals {
			rest[i] = totals[i] - solves[i]
		}
		fmt.Printf("time per failing test (%d tests): total median %v worst %v; solving median %v worst %v; rest median %v worst %v\n",
			len(totals), median(totals), worst(totals), median(solves), worst(solves), median(rest), worst(rest))
	}
	for _, o := range outs {
		for _, n := range o.notes {
			fmt.Printf("note %s: %s\n", o.name, n)
		}
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Millisecond)
}

func worst(ds []time.Duration) time.Duration {
	var w time.Duration
	for _, d := range ds {
		w = max(w, d)
	}
	return w.Round(time.Millisecond)
}
