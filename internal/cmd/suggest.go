package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// suggestCommand searches, for each failing fuzz target, the inputs that
// make its failing data single-fault optimal (sfo), passing inputs with new
// coverage (sfo_p) and SAT-TAR's inputs, and with -write adds them to the
// targets' seed corpora.
type suggestCommand struct {
	resultFlags
	write       bool
	targets     string
	formulaName string
	so          localize.SearchOptions
	memory      int64
}

func (*suggestCommand) Name() string  { return "suggest" }
func (*suggestCommand) Usage() string { return "[flags] [packages]" }
func (*suggestCommand) ShortHelp() string {
	return "suggest fuzz inputs that sharpen the ranking of failing fuzz targets (sfo, SAT-TAR)"
}

func (c *suggestCommand) SetFlags(fs *flag.FlagSet) {
	c.resultFlags.register(fs, "print the result as one JSON object")
	fs.BoolVar(&c.write, "write", false, "add the inputs to the seed corpora (testdata/fuzz/FuzzX/NAME), so that go test and every later rank run them")
	fs.StringVar(&c.targets, "target", "", "comma-separated fuzz targets to work on (default: every failing one)")
	fs.StringVar(&c.formulaName, "formula", "ochiai", "the formula whose ranking is compared before and after, beside op2's and SAT-TAR's")
	fs.DurationVar(&c.so.Budget, "budget", defaultSuggestBudget, "search time per fuzz target")
	fs.IntVar(&c.so.MaxRuns, "max-runs", 150, "runs of a target per search, recorded runs included")
	fs.IntVar(&c.so.Passing, "passing", 20, "sfo_p: passing inputs with new coverage to add (-1: none)")
	fs.IntVar(&c.so.Rounds, "rounds", 10, "SAT-TAR's rounds, each adding at most one input")
	fs.Int64Var(&c.memory, "memory", localize.DefaultMemory>>20, "memory in MB one search may hold before it is stopped")
}

func (c *suggestCommand) DetailedHelp(fs *flag.FlagSet) {
	printHelp(fs, c, `For each failing fuzz target (func FuzzX(f *testing.F) with a failing seed),
suggests inputs that sharpen the ranking: failing inputs that avoid a line
every failing run executes, until no such input is found (single-fault
optimal), passing inputs with new coverage, and SAT-TAR's inputs near the
failing run on the lines of its unsat core. Every input is run; its run
under the target's checks decides whether it fails.`)
}

func (c *suggestCommand) Run(ctx context.Context, args ...string) error {
	formula, err := localize.ParseFormula(c.formulaName)
	if err != nil {
		return usageError{err}
	}
	opts := localize.SuggestOptions{Search: c.so, Formula: formula, Write: c.write, Memory: c.memory << 20}
	if c.targets != "" {
		opts.Targets = strings.Split(c.targets, ",")
	}
	ws, m, err := c.cf.collect(ctx, args)
	if err != nil {
		return err
	}
	if err := buildFailure(os.Stderr, m); err != nil {
		return err
	}
	svc, err := localize.New(ws)
	if err != nil {
		return err
	}
	progress := newProgressLine()
	progress.message("searching inputs for the failing fuzz targets")
	out, err := svc.Suggest(ctx, m, opts, func(s localize.Suggestion) {
		progress.message(fmt.Sprintf("%s: %s, %d inputs", s.Target, s.Status, len(s.Inputs)))
	})
	progress.done()
	if err != nil {
		return err
	}
	if len(out) == 0 && len(opts.Targets) > 0 {
		return fmt.Errorf("no failing fuzz target named %s in the packages", strings.Join(opts.Targets, " or "))
	}
	if c.asJSON {
		if out == nil {
			out = []localize.Suggestion{}
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Targets []localize.Suggestion `json:"targets"`
		}{out})
	}
	return writeSuggestText(os.Stdout, out, c.write)
}

// defaultSuggestBudget is a search's time per target.
const defaultSuggestBudget = time.Minute

// writeSuggestText prints each target's inputs, why each was chosen, and
// the top of each order before and after them.
func writeSuggestText(w io.Writer, out []localize.Suggestion, written bool) error {
	if len(out) == 0 {
		_, err := fmt.Fprintln(w, "no failing fuzz target: suggest works on fuzz targets (func FuzzX(f *testing.F)) with a failing seed entry")
		return err
	}
	for i, s := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		cached := ""
		if s.Cached {
			cached = ", from the cache"
		}
		fmt.Fprintf(w, "%s %s: %s (%s); %d inputs, %d runs, %.1fs%s\n", s.Package, s.Target, s.Status, statusText(s.Result), len(s.Inputs), s.Runs, s.Seconds, cached)
		if s.SharedBefore > 0 {
			fmt.Fprintf(w, "lines every failing run executes: %d before, %d after\n", s.SharedBefore, s.SharedAfter)
		}
		if s.SeveralFaults {
			fmt.Fprintln(w, "no line is executed by every failing run: the failures likely come from several faults")
		}
		if len(s.Core) > 0 {
			fmt.Fprintf(w, "unsat core of the failing checks: %s\n", suspectLines(s.Core))
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, in := range s.Inputs {
			fmt.Fprintf(tw, "  %s\t%s(%s)\t%s\t%s: %s\n", in.Outcome, s.Target, strings.Join(in.Args, ", "), in.File, in.By, in.Reason)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, c := range s.Cleared {
			fmt.Fprintf(w, "  suspect %s:%d cleared: %s\n", c.File, c.Line, c.Reason)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		for _, c := range s.Rankings {
			if len(s.Inputs) == 0 {
				break // nothing changed
			}
			fmt.Fprintf(w, "ranking by %s, before -> after:\n", c.Order)
			for _, l := range c.Lines {
				fmt.Fprintf(tw, "  %s:%d\t%s -> %s\n", l.File, l.Line, placeText(l.Before), placeText(l.After))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		if len(s.Written) > 0 {
			fmt.Fprintf(w, "wrote %d files: %s\n", len(s.Written), strings.Join(s.Written, " "))
		} else if !written && len(s.Inputs) > 0 {
			fmt.Fprintln(w, "faultline suggest -write adds these inputs to the seed corpus")
		}
	}
	return nil
}

// statusText explains a status in a few words.
func statusText(r *localize.SearchResult) string {
	switch r.Status {
	case localize.SearchOptimal:
		return "single-fault optimal: no failing input avoids a line every failing run executes"
	case localize.SearchImproved:
		return "failing inputs added; the search was bounded before it could tell whether more exist"
	default:
		return "no failing input added within the bounds"
	}
}

// placeText spells a rank or a tie group of ranks.
func placeText(p [2]int) string {
	switch {
	case p[0] == 0:
		return "not ranked"
	case p[0] == p[1]:
		return fmt.Sprint(p[0])
	default:
		return fmt.Sprintf("%d-%d", p[0], p[1])
	}
}
