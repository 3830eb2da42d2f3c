package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
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
	// verdictsOnly says the command shows verdicts only: the matrix is
	// assembled without its spectra.
	verdictsOnly bool
	// passingOutput keeps passing tests' output (faultline test -v).
	passingOutput bool
}

func (c *collectFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.run, "run", "", "run only the tests matching the regular expression, as go test -run")
	fs.DurationVar(&c.timeout, "timeout", localize.DefaultTimeout, "kill a leaf test that runs longer than this")
	fs.IntVar(&c.parallel, "parallel", 0, "test processes at once (0: one per CPU)")
	fs.BoolVar(&c.edges, "edges", false, "record each test's edge profile too (BlockRank; implied by -formula blockrank)")
	fs.Int64Var(&c.testMemory, "test-memory", 0, fmt.Sprintf("memory in MB the processes of one test may hold before the test is stopped with the verdict memory, in collection and analysis (0: the smaller of %d and half the machine's memory; enforced on Linux)", localize.MaxDefaultTestMemory>>20))
}

// resultFlags are the flags shared by the commands that collect spectra
// and print a result (rank, fix, explain, suggest): the collection's and
// -json, whose help says what the JSON holds.
type resultFlags struct {
	cf     collectFlags
	asJSON bool
}

func (r *resultFlags) register(fs *flag.FlagSet, jsonHelp string) {
	r.cf.register(fs)
	fs.BoolVar(&r.asJSON, "json", false, jsonHelp)
}

// collect opens the module around the working directory and collects the
// packages' spectra, showing progress on a terminal.
func (c *collectFlags) collect(ctx context.Context, packages []string) (*localize.Workspace, *localize.Matrix, error) {
	ws, err := c.openWorkspace()
	if err != nil {
		return nil, nil, err
	}
	m, err := c.collectIn(ctx, ws, packages)
	return ws, m, err
}

// openWorkspace opens the module around the working directory, its tests
// bounded by -test-memory.
func (c *collectFlags) openWorkspace() (*localize.Workspace, error) {
	if c.testMemory < 0 {
		return nil, fmt.Errorf("-test-memory: %d MB is negative", c.testMemory)
	}
	return localize.Open(".", localize.WorkspaceOptions{Warn: func(msg string) { fmt.Fprintln(os.Stderr, msg) }, TestMemory: c.testMemory << 20})
}

// collectIn collects the packages' spectra in ws, showing progress on a
// terminal.
func (c *collectFlags) collectIn(ctx context.Context, ws *localize.Workspace, packages []string) (*localize.Matrix, error) {
	raiseStartingHeap(collectStartingHeap)
	progress := newProgressLine()
	m, err := ws.Collect(ctx, localize.CollectOptions{
		Packages: packages, Run: c.run, Timeout: c.timeout, Parallel: c.parallel, Progress: progress.update,
		BuildFlags: c.buildFlags, TestFlags: c.testFlags, Edges: c.edges, VerdictsOnly: c.verdictsOnly, PassingOutput: c.passingOutput,
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
	if c.run != "" && len(m.BuildErrors) == 0 && !slices.ContainsFunc(m.Tests, func(t localize.TestRun) bool { return t.Verdict != localize.VerdictBuildError }) {
		// go test's words, and like go test this is no failure.
		fmt.Fprintf(os.Stderr, "faultline: warning: no tests to run: -run %q matches no test\n", c.run)
	}
	return m, nil
}

// rankCommand collects spectra and prints the ranked suspicious lines:
// `faultline rank [flags] [packages]`.
type rankCommand struct {
	resultFlags
	af            angelicFlags
	formulaName   string
	blockRankMode string
	format        string
	outPath       string
	top           int
	functions     int
}

func (*rankCommand) Name() string  { return "rank" }
func (*rankCommand) Usage() string { return "[flags] [packages]" }
func (*rankCommand) ShortHelp() string {
	return "collect spectra and print the ranked suspicious lines"
}

func (c *rankCommand) SetFlags(fs *flag.FlagSet) {
	c.resultFlags.register(fs, "the same as -format json")
	fs.StringVar(&c.formulaName, "formula", "ochiai", "suspiciousness formula: "+localize.TechniqueHelp())
	fs.StringVar(&c.blockRankMode, "blockrank-mode", "full", "how BlockRank solves its equations: full (one system) or calibrated (the paper's worked example)")
	fs.StringVar(&c.format, "format", "", "output format: "+formatNames()+" (default text)")
	fs.StringVar(&c.outPath, "o", "", "write the output to this file (for gzoltar: this directory) instead of standard output")
	fs.IntVar(&c.top, "top", 0, "write only the N most suspicious lines (0: every executed line in json, 20 in text and sarif)")
	fs.IntVar(&c.functions, "functions", 0, "write only the N most suspicious functions, ordered as the learned model orders them or by their best lines (0: every function in json, 5 in text)")
	c.af.register(fs)
}

func (c *rankCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, `Collects per-test spectra (only tests whose inputs changed are run again) and
prints the lines most likely to cause the failing tests.`)
}

func (c *rankCommand) Run(ctx context.Context, args ...string) error {
	out, err := newRankDestination(c.format, c.asJSON, c.outPath, c.top, c.functions)
	if err != nil {
		return usageError{err}
	}
	order, err := lookupOrder(c.formulaName, c.blockRankMode)
	if err != nil {
		return usageError{err}
	}
	res, err := localizeModule(ctx, &c.cf, &c.af, order, args)
	if err != nil {
		return err
	}
	if err := out.write(res); err != nil {
		return err
	}
	return buildFailure(os.Stderr, res.loc.Matrix)
}

// localizeModule collects the packages' spectra and localizes their
// failing tests through the localization service.
func localizeModule(ctx context.Context, cf *collectFlags, af *angelicFlags, order lineOrder, packages []string) (rankResult, error) {
	cf.edges = cf.edges || order.technique.BlockRank()
	ws, m, err := cf.collect(ctx, packages)
	if err != nil {
		return rankResult{}, err
	}
	svc, err := localize.New(ws)
	if err != nil {
		return rankResult{}, err
	}
	opts := af.options()
	opts.Use(order.technique, order.mode)
	progress := newProgressLine()
	loc, err := svc.Localize(ctx, m, opts, progress.angelic)
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
		writeServiceNotes(os.Stderr, a.Notes)
	}
	return rankResult{loc: loc}, nil
}

func writeBuildErrors(w io.Writer, m *localize.Matrix) {
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
	localize.RankReport
	Angelic *localize.Angelic `json:"angelic,omitempty"`
	SatTar  *localize.SatTar  `json:"sattar,omitempty"`
	// Mutation is the mutation analysis, when -mutants asked for it.
	Mutation *localize.Mutation `json:"mutation,omitempty"`
	// Functions ranks the functions holding the ranked lines by their
	// best line, each with its own spectrum's place.
	Functions []localize.RankedFunction `json:"functions,omitempty"`
}

func writeRankingJSON(w io.Writer, loc *localize.Localization, lines []localize.RankedLine, functions []localize.RankedFunction) error {
	r, m := loc.Ranking, loc.Matrix
	out := rankOutput{RankReport: localize.RankReport{Ranking: *r}, Angelic: loc.Angelic, SatTar: loc.SatTar, Mutation: loc.Mutation, Functions: functions}
	out.Lines = append([]localize.RankedLine{}, lines...)
	if len(m.BuildErrors) > 0 {
		out.BuildErrors = m.BuildErrors
	}
	if r.Failed == 0 {
		out.Message = noFailureMessage(m)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeRankingText(w io.Writer, loc *localize.Localization, lines []localize.RankedLine, functions []localize.RankedFunction) error {
	r, m, summary := loc.Ranking, loc.Matrix, loc.Angelic
	if r.Failed == 0 {
		_, err := fmt.Fprintln(w, noFailureMessage(m))
		return err
	}
	by := r.Formula
	switch r.Order {
	case localize.OrderCombined:
		by += " and verified angelic fixes"
	case localize.OrderLearned:
		by = fmt.Sprintf("the learned order (model %s) over every technique's evidence", r.Model)
	}
	fmt.Fprintf(w, "%d failing and %d passing tests; most suspicious lines by %s:\n\n", r.Failed, r.Passed, by)
	// Under an order other than the formula's, SCORE is that order's own
	// and the formula's score gets a column of its own.
	formulaColumn := ""
	if r.Order != localize.OrderFormula {
		formulaColumn = strings.ToUpper(r.Formula)
	}
	because := false
	for _, l := range lines {
		because = because || len(l.Because) > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "RANK\tSCORE\t"
	if formulaColumn != "" {
		header += formulaColumn + "\t"
	}
	header += "LINE\tEF\tEP\tNF\tNP\tFIXES\tTIED"
	if because {
		header += "\tBECAUSE"
	}
	fmt.Fprintln(tw, header)
	var terms []string // the evidence named under BECAUSE, in order of first use
	unscored := false
	for _, l := range lines {
		tied := "-"
		if l.Tie[0] != l.Tie[1] {
			tied = fmt.Sprintf("ranks %d-%d", l.Tie[0], l.Tie[1])
		}
		fixes := "-"
		if l.Fixes > 0 && summary != nil {
			fixes = fmt.Sprintf("%d/%d", l.Fixes, summary.Analyzed)
		}
		score := "-"
		switch {
		case l.OrderScore != nil:
			score = fmt.Sprintf("%.4f", *l.OrderScore)
		case r.Order == localize.OrderFormula:
			score = fmt.Sprintf("%.4f", l.Score)
		default:
			unscored = true
		}
		fmt.Fprintf(tw, "%d\t%s\t", l.Rank, score)
		if formulaColumn != "" {
			fmt.Fprintf(tw, "%.4f\t", l.Score)
		}
		fmt.Fprintf(tw, "%s:%d\t%d\t%d\t%d\t%d\t%s\t%s", l.File, l.Line, l.EF, l.EP, l.NF, l.NP, fixes, tied)
		if because {
			var why []string
			for _, b := range l.Because {
				why = append(why, localize.EvidenceWords(b.Evidence).Short)
				if !slices.Contains(terms, b.Evidence) {
					terms = append(terms, b.Evidence)
				}
			}
			fmt.Fprintf(tw, "\t%s", strings.Join(why, ", "))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeRankingLegend(w, r, formulaColumn, unscored, terms)
	if err := writeFunctionsText(w, r, functions); err != nil {
		return err
	}
	writeAngelicText(w, summary, localize.FileLines(m.Root))
	writeMutationText(w, loc.Mutation)
	writeBlockRankText(w, r)
	writeSatTarText(w, loc.SatTar)
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

// writeRankingLegend explains the text table's columns under it, in the
// words of the printed order, and each piece of evidence named under
// BECAUSE.
func writeRankingLegend(w io.Writer, r *localize.Ranking, formulaColumn string, unscored bool, terms []string) {
	fmt.Fprintln(w)
	switch r.Order {
	case localize.OrderLearned:
		fmt.Fprintf(w, "SCORE: the learned model's weighted sum of the line's evidence, which orders the lines")
		if unscored {
			fmt.Fprintf(w, ";\n  -: past the lines the model may reorder, which keep %s's order", r.Formula)
			if m := localize.ShippedModel(); m.Functions != nil && r.Model == m.Name {
				fmt.Fprintf(w, " (past the first %d, function by function)", m.Functions.Keep)
			}
			if m := localize.ShippedModel(); m.Declarations != nil && r.Model == m.Name {
				fmt.Fprintf(w, ";\n  a package-level declaration, which no test's coverage holds, follows the first line that reads it (past the first %d)", m.Declarations.After)
			}
		}
		fmt.Fprintln(w, ".")
	case localize.OrderCombined:
		fmt.Fprintf(w, "SCORE: the analysed failing tests that a verified fix on the line makes pass (FIXES),\n  plus a fraction below 1 for the line's place under %s.\n", r.Formula)
	default:
		fmt.Fprintf(w, "SCORE: the line's %s score.\n", r.Formula)
	}
	switch {
	case formulaColumn == "":
	case r.Order == localize.OrderCombined:
		fmt.Fprintf(w, "%s: the line's %s score, which orders the lines with as many fixes.\n", formulaColumn, r.Formula)
	default:
		fmt.Fprintf(w, "%s: the line's %s score, which breaks ties.\n", formulaColumn, r.Formula)
	}
	fmt.Fprintln(w, "EF/EP: failing/passing tests that execute the line; NF/NP: that do not.")
	fmt.Fprintln(w, "FIXES: analysed failing tests that a verified angelic value on the line makes pass.")
	fmt.Fprintln(w, "TIED: the ranks of the lines the order cannot tell apart (the same evidence under it).")
	if len(terms) > 0 {
		fmt.Fprintln(w, "BECAUSE: the evidence that weighed most for the line:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, column := range terms {
			t := localize.EvidenceWords(column)
			fmt.Fprintf(tw, "  %s\t%s\n", t.Short, t.Meaning)
		}
		tw.Flush()
	}
}

// writeFunctionsText writes the function table under the line table: the
// functions of ranking r in the order of its model's function model, or
// each placed by its best-ranked line.
func writeFunctionsText(w io.Writer, r *localize.Ranking, functions []localize.RankedFunction) error {
	if len(functions) == 0 {
		return nil
	}
	if localize.FunctionModelOf(r).FunctionModel != nil {
		fmt.Fprintf(w, "\nmost suspicious functions, ordered by the learned model over their lines' evidence (the best line breaking ties):\n\n")
	} else {
		fmt.Fprintf(w, "\nmost suspicious functions, each placed by its best line:\n\n")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tFUNCTION\tDECLARED\tBEST LINE\tLINES\tTIED\tOWN SPECTRUM")
	formula := ""
	for _, f := range functions {
		own := "-"
		if s := f.Spectrum; s != nil {
			own, formula = fmt.Sprintf("rank %s (%.4f)", rankRange(f.Spectrum.Rank, s.Tie), s.Score), s.Formula
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d (rank %d)\t%d\t%s\t%s\n", f.Rank, f.Label(), functionPlace(f.Function), f.BestLine, f.BestRank, f.Lines, tiedRanks(f.Tie), own)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nLINES: the function's ranked lines; a function literal's lines count in the function around it.")
	if formula != "" {
		fmt.Fprintf(w, "OWN SPECTRUM: the function's rank (or tie range) and %s score over its own spectrum,\n  in which a test runs the function if it runs any of its lines.\n", formula)
	}
	return nil
}

// tiedRanks shows a tie group as TIED columns do: "-" for none.
func tiedRanks(tie [2]int) string {
	if tie[0] == tie[1] {
		return "-"
	}
	return fmt.Sprintf("ranks %d-%d", tie[0], tie[1])
}

// rankRange is a rank, or its tie range when it ties.
func rankRange(rank int, tie [2]int) string {
	if tie[0] == tie[1] {
		return fmt.Sprint(rank)
	}
	return fmt.Sprintf("%d-%d", tie[0], tie[1])
}

// functionPlace is where a ranked function is declared: file:line, or the
// file alone for the package-level declarations.
func functionPlace(f localize.Function) string {
	if f.Line == 0 {
		return f.File
	}
	return fmt.Sprintf("%s:%d", f.File, f.Line)
}
