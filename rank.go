package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"faultline/spectra"
	"faultline/spectra/rank"
)

// collectFlags are the flags shared by commands that collect spectra.
type collectFlags struct {
	run        string
	timeout    time.Duration
	parallel   int
	buildFlags []string
	testFlags  []string
	edges      bool // collect edge profiles too (BlockRank)
}

func (c *collectFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.run, "run", "", "run only the tests matching the regular expression, as go test -run")
	fs.DurationVar(&c.timeout, "timeout", spectra.DefaultTimeout, "kill a leaf test that runs longer than this")
	fs.IntVar(&c.parallel, "parallel", 0, "test processes at once (0: one per CPU)")
}

// collect opens the module around the working directory and collects the
// packages' spectra, showing progress on a terminal.
func (c *collectFlags) collect(ctx context.Context, packages []string) (*spectra.Workspace, *spectra.Matrix, error) {
	ws, err := spectra.Open(".", spectra.Options{Warn: func(msg string) { fmt.Fprintln(os.Stderr, msg) }})
	if err != nil {
		return nil, nil, err
	}
	progress := newProgressLine()
	m, err := ws.Collect(ctx, spectra.CollectOptions{
		Packages: packages, Run: c.run, Timeout: c.timeout, Parallel: c.parallel, Progress: progress.update,
		BuildFlags: c.buildFlags, TestFlags: c.testFlags, Edges: c.edges,
	})
	progress.done()
	if err != nil {
		return nil, nil, err
	}
	return ws, m, nil
}

func runRank(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rank", flag.ContinueOnError)
	var cf collectFlags
	cf.register(fs)
	formulaName := fs.String("formula", "ochiai", "suspiciousness formula: "+strings.Join(rank.Names(), ", ")+", dstarN, opt-NAME, or "+spectra.BlockRankName+" (from edge profiles)")
	blockRankMode := fs.String("blockrank-mode", "full", "how BlockRank solves its equations: full (one system) or calibrated (the paper's worked example)")
	asJSON := fs.Bool("json", false, "print the ranking as one JSON object")
	top := fs.Int("top", 0, "print only the N most suspicious lines (0: every executed line in JSON, 20 in text)")
	var af angelicFlags
	af.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: faultline rank [flags] [packages]\n\nCollects per-test spectra (only tests whose inputs changed are run again) and\nprints the lines most likely to cause the failing tests.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	ranker, err := lookupRanker(*formulaName, *blockRankMode)
	if err != nil {
		return err
	}
	cf.edges = ranker.edges
	ws, m, err := cf.collect(ctx, fs.Args())
	if err != nil {
		return err
	}
	ranking, err := ranker.rank(m)
	if err != nil {
		return err
	}
	var summary *angelicSummary
	if af.enabled && ranking.Failed > 0 {
		ranking, summary = af.combine(ctx, ws, m, ranking)
	}
	lines := ranking.Lines
	limit := *top
	if limit == 0 && !*asJSON {
		limit = 20
	}
	if limit > 0 && len(lines) > limit {
		lines = lines[:limit]
	}
	if ranking.Failed == 0 {
		lines = nil
	}
	if *asJSON {
		err = writeRankingJSON(os.Stdout, ranking, lines, m, summary)
	} else {
		err = writeRankingText(os.Stdout, ranking, lines, m, summary)
	}
	if err != nil {
		return err
	}
	if len(m.BuildErrors) > 0 {
		writeBuildErrors(os.Stderr, m)
		return exitError(1)
	}
	return nil
}

func writeBuildErrors(w io.Writer, m *spectra.Matrix) {
	var pkgs []string
	for pkg := range m.BuildErrors {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		fmt.Fprintf(w, "# %s\n%s\nFAIL\t%s [build failed]\n", pkg, m.BuildErrors[pkg], pkg)
	}
}

// rankOutput is the JSON form of faultline rank -json.
type rankOutput struct {
	spectra.RankReport
	Angelic *angelicSummary `json:"angelic,omitempty"`
}

func writeRankingJSON(w io.Writer, r *spectra.Ranking, lines []spectra.RankedLine, m *spectra.Matrix, summary *angelicSummary) error {
	out := rankOutput{RankReport: spectra.RankReport{Ranking: *r}, Angelic: summary}
	out.Lines = append([]spectra.RankedLine{}, lines...)
	if len(m.BuildErrors) > 0 {
		out.BuildErrors = m.BuildErrors
	}
	if r.Failed == 0 {
		out.Message = noFailureMessage(r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func noFailureMessage(r *spectra.Ranking) string {
	if r.Passed == 0 {
		return "no tests ran: nothing to localize"
	}
	return fmt.Sprintf("no failing test: all %d tests pass, nothing to localize", r.Passed)
}

func writeRankingText(w io.Writer, r *spectra.Ranking, lines []spectra.RankedLine, m *spectra.Matrix, summary *angelicSummary) error {
	if r.Failed == 0 {
		_, err := fmt.Fprintln(w, noFailureMessage(r))
		return err
	}
	by := r.Formula
	if r.Order == spectra.OrderCombined {
		by += " and verified angelic fixes"
	}
	fmt.Fprintf(w, "%d failing and %d passing tests; most suspicious lines by %s:\n\n", r.Failed, r.Passed, by)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tSCORE\tLINE\tEF\tEP\tNF\tNP\tFIXES\tTIED")
	for _, l := range lines {
		tied := "-"
		if l.Tie[0] != l.Tie[1] {
			tied = fmt.Sprintf("ranks %d-%d", l.Tie[0], l.Tie[1])
		}
		fixes := "-"
		if l.Fixes > 0 && summary != nil {
			fixes = fmt.Sprintf("%d/%d", l.Fixes, summary.Analyzed)
		}
		fmt.Fprintf(tw, "%d\t%.4f\t%s:%d\t%d\t%d\t%d\t%d\t%s\t%s\n", l.Rank, l.Score, l.File, l.Line, l.EF, l.EP, l.NF, l.NP, fixes, tied)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	summary.writeText(w)
	writeBlockRankText(w, r)
	fmt.Fprintf(w, "\nEF/EP: failing/passing tests that execute the line; NF/NP: that do not;\nFIXES: analysed failing tests that a verified angelic value on the line makes pass.\n")
	failing := 0
	for _, t := range m.Tests {
		if t.Verdict.Failing() {
			failing++
			if failing <= 5 {
				fmt.Fprintf(w, "failing: %s %s (%s)\n", t.Package, t.Name, t.Verdict)
			}
		}
	}
	if failing > 5 {
		fmt.Fprintf(w, "... and %d more failing tests\n", failing-5)
	}
	return nil
}
