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

	"faultline/internal/localize"
	"faultline/internal/testbuild"
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
	edges      bool  // collect edge profiles too (BlockRank)
	testMemory int64 // MB; 0: testbuild.DefaultTestMemory
	// namesStopped says that the command lists the tests the memory bound
	// stopped itself, so collecting does not note them.
	namesStopped bool
}

func (c *collectFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.run, "run", "", "run only the tests matching the regular expression, as go test -run")
	fs.DurationVar(&c.timeout, "timeout", spectra.DefaultTimeout, "kill a leaf test that runs longer than this")
	fs.IntVar(&c.parallel, "parallel", 0, "test processes at once (0: one per CPU)")
	fs.BoolVar(&c.edges, "edges", false, "record each test's edge profile too (BlockRank; implied by -formula blockrank)")
	fs.Int64Var(&c.testMemory, "test-memory", 0, fmt.Sprintf("memory in MB the processes of one test may hold before the test is stopped with the verdict memory, in collection and analysis (0: the smaller of %d and half the machine's memory; enforced on Linux)", testbuild.MaxDefaultTestMemory>>20))
}

// collect opens the module around the working directory and collects the
// packages' spectra, showing progress on a terminal.
func (c *collectFlags) collect(ctx context.Context, packages []string) (*spectra.Workspace, *spectra.Matrix, error) {
	ws, err := c.openWorkspace()
	if err != nil {
		return nil, nil, err
	}
	m, err := c.collectIn(ctx, ws, packages)
	return ws, m, err
}

// openWorkspace opens the module around the working directory, its tests
// bounded by -test-memory.
func (c *collectFlags) openWorkspace() (*spectra.Workspace, error) {
	if c.testMemory < 0 {
		return nil, fmt.Errorf("-test-memory: %d MB is negative", c.testMemory)
	}
	return spectra.Open(".", spectra.Options{Warn: func(msg string) { fmt.Fprintln(os.Stderr, msg) }, TestMemory: c.testMemory << 20})
}

// collectIn collects the packages' spectra in ws, showing progress on a
// terminal.
func (c *collectFlags) collectIn(ctx context.Context, ws *spectra.Workspace, packages []string) (*spectra.Matrix, error) {
	progress := newProgressLine()
	m, err := ws.Collect(ctx, spectra.CollectOptions{
		Packages: packages, Run: c.run, Timeout: c.timeout, Parallel: c.parallel, Progress: progress.update,
		BuildFlags: c.buildFlags, TestFlags: c.testFlags, Edges: c.edges,
	})
	progress.done()
	if err == nil && !c.namesStopped {
		notes := m.MemoryNotes()
		for _, n := range notes {
			fmt.Fprintf(os.Stderr, "faultline: %s\n", n)
		}
		if len(notes) > 0 {
			fmt.Fprintln(os.Stderr, "faultline: -test-memory raises the bound")
		}
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

func runRank(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rank", flag.ContinueOnError)
	var cf collectFlags
	cf.register(fs)
	formulaName := fs.String("formula", "ochiai", "suspiciousness formula: "+strings.Join(rank.Names(), ", ")+", dstarN, opt-NAME, "+spectra.BlockRankName+" (from edge profiles), or "+spectra.SatTarName+" (Tarantula with a bonus for the unsat cores of the failing checks; needs Z3)")
	blockRankMode := fs.String("blockrank-mode", "full", "how BlockRank solves its equations: full (one system) or calibrated (the paper's worked example)")
	asJSON := fs.Bool("json", false, "the same as -format json")
	format := fs.String("format", "", "output format: "+formatNames()+" (default text)")
	outPath := fs.String("o", "", "write the output to this file (for gzoltar: this directory) instead of standard output")
	top := fs.Int("top", 0, "write only the N most suspicious lines (0: every executed line in json, 20 in text and sarif)")
	var af angelicFlags
	af.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: faultline rank [flags] [packages]\n\nCollects per-test spectra (only tests whose inputs changed are run again) and\nprints the lines most likely to cause the failing tests.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	out, err := newRankDestination(*format, *asJSON, *outPath, *top)
	if err != nil {
		return err
	}
	order, err := lookupOrder(*formulaName, *blockRankMode)
	if err != nil {
		return err
	}
	res, err := localizeModule(ctx, &cf, &af, order, fs.Args())
	if err != nil {
		return err
	}
	if err := out.write(res); err != nil {
		return err
	}
	if len(res.loc.Matrix.BuildErrors) > 0 {
		writeBuildErrors(os.Stderr, res.loc.Matrix)
		return exitError(1)
	}
	return nil
}

// localizeModule collects the packages' spectra and localizes their
// failing tests through the localization service.
func localizeModule(ctx context.Context, cf *collectFlags, af *angelicFlags, order lineOrder, packages []string) (rankResult, error) {
	cf.edges = cf.edges || order.blockRank != nil
	ws, m, err := cf.collect(ctx, packages)
	if err != nil {
		return rankResult{}, err
	}
	svc, err := localize.New(ws)
	if err != nil {
		return rankResult{}, err
	}
	opts := af.options()
	opts.Formula, opts.BlockRank, opts.SatTar = order.formula, order.blockRank, order.satTar
	progress := newProgressLine()
	loc, err := svc.Localize(ctx, m, opts, func(l *localize.Localization) {
		if a := l.Angelic; a != nil && a.Pending > 0 {
			progress.message(fmt.Sprintf("angelic analysis: %d of %d failing tests analysed", a.Analyzed, a.Analyzed+a.Pending))
		}
	})
	progress.done()
	if err != nil {
		return rankResult{}, err
	}
	if st := loc.SatTar; st != nil {
		for _, n := range st.Notes {
			fmt.Fprintf(os.Stderr, "faultline: SAT-TAR: %s\n", n)
		}
	}
	if a := loc.Angelic; a != nil {
		if a.Unavailable != "" {
			fmt.Fprintf(os.Stderr, "faultline: ranking by %s alone: %s\n", loc.Formula.Formula, a.Unavailable)
		}
		for _, n := range a.Notes {
			fmt.Fprintf(os.Stderr, "faultline: %s\n", n)
		}
	}
	return rankResult{loc: loc}, nil
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
	Angelic *localize.Angelic `json:"angelic,omitempty"`
	SatTar  *localize.SatTar  `json:"sattar,omitempty"`
}

func writeRankingJSON(w io.Writer, loc *localize.Localization, lines []spectra.RankedLine) error {
	r, m := loc.Ranking, loc.Matrix
	out := rankOutput{RankReport: spectra.RankReport{Ranking: *r}, Angelic: loc.Angelic, SatTar: loc.SatTar}
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

func writeRankingText(w io.Writer, loc *localize.Localization, lines []spectra.RankedLine) error {
	r, m, summary := loc.Ranking, loc.Matrix, loc.Angelic
	if r.Failed == 0 {
		_, err := fmt.Fprintln(w, noFailureMessage(r))
		return err
	}
	by := r.Formula
	learned := r.Order == spectra.OrderLearned
	switch {
	case r.Order == spectra.OrderCombined:
		by += " and verified angelic fixes"
	case learned:
		by = fmt.Sprintf("the learned order (model %s) over every technique's evidence; SCORE is %s's", r.Model, r.Formula)
	}
	fmt.Fprintf(w, "%d failing and %d passing tests; most suspicious lines by %s:\n\n", r.Failed, r.Passed, by)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "RANK\tSCORE\tLINE\tEF\tEP\tNF\tNP\tFIXES\tTIED"
	if learned {
		header += "\tBECAUSE"
	}
	fmt.Fprintln(tw, header)
	for _, l := range lines {
		tied := "-"
		if l.Tie[0] != l.Tie[1] {
			tied = fmt.Sprintf("ranks %d-%d", l.Tie[0], l.Tie[1])
		}
		fixes := "-"
		if l.Fixes > 0 && summary != nil {
			fixes = fmt.Sprintf("%d/%d", l.Fixes, summary.Analyzed)
		}
		fmt.Fprintf(tw, "%d\t%.4f\t%s:%d\t%d\t%d\t%d\t%d\t%s\t%s", l.Rank, l.Score, l.File, l.Line, l.EF, l.EP, l.NF, l.NP, fixes, tied)
		if learned {
			var why []string
			for _, b := range l.Because {
				why = append(why, b.Evidence)
			}
			fmt.Fprintf(tw, "\t%s", strings.Join(why, ", "))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeAngelicText(w, summary)
	writeBlockRankText(w, r)
	writeSatTarText(w, loc.SatTar)
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
