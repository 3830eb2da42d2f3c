package cmd

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// angelicFlags are the localization service's choices, the same for every
// command that localizes (rank, report, fix).
type angelicFlags struct {
	enabled  bool
	budget   time.Duration
	maxTests int
	memory   int64
	order    string
	evidence bool
	strings  bool
	mutants  int
}

func (a *angelicFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&a.enabled, "angelic", true, "analyse the failing tests: angelic fixes and, with -mutants, mutants (false: the spectra alone)")
	model := localize.ShippedModel()
	fs.StringVar(&a.order, "order", "", fmt.Sprintf("how lines are ordered: formula, combined (verified angelic fixes first, then the formula) or learned (model %s over every technique's evidence); default %s", model.Name, model.Default))
	fs.BoolVar(&a.evidence, "evidence", false, "give every line's evidence (json), whatever the order")
	fs.DurationVar(&a.budget, "budget", localize.DefaultBudget, "angelic analysis work per failing test, as time on an unloaded machine (the answer does not depend on load; a loaded machine may take up to 3x as long); one ranking's analyses start within 6 budgets, its mutants (-mutants) running first, within 3")
	fs.IntVar(&a.maxTests, "max-analyzed", localize.DefaultMaxAnalyzed, "analyse at most this many failing tests (results are cached per test)")
	fs.Int64Var(&a.memory, "memory", localize.DefaultMemory>>20, "memory in MB one analysis may hold before it is stopped")
	fs.BoolVar(&a.strings, "strings", false, "model strings and byte slices in the angelic analysis for tests that check them (slower)")
	fs.IntVar(&a.mutants, "mutants", localize.DefaultMutants, "run at most N mutants of the lines the failing tests execute, the most suspicious first, for mutation evidence and verified operator fixes (0: none)")
}

// options are the service's options for these flags.
func (a *angelicFlags) options() localize.Options {
	return localize.Options{Angelic: a.enabled, Budget: a.budget, MaxAnalyzed: a.maxTests, Memory: a.memory << 20,
		Order: a.order, Evidence: a.evidence, Strings: a.strings, Mutants: a.mutants}
}

// writeAngelicText prints the fixes behind a combined ranking, each as an
// edit of its source line (src reads the module's files).
func writeAngelicText(w io.Writer, s *localize.Angelic, src localize.SourceLines) {
	if s == nil || s.Unavailable != "" {
		return
	}
	fmt.Fprintf(w, "\nangelic analysis: %d of %d failing tests analysed (%d from the cache), %d verified single-location fixes\n",
		s.Analyzed, s.Failing, s.Cached, len(s.Fixes))
	for i, f := range s.Fixes {
		if i == 5 {
			fmt.Fprintf(w, "  ... and %d more (faultline fix lists them all)\n", len(s.Fixes)-5)
			break
		}
		how := ""
		if words := localize.FoundWords(f.Found); words != "" {
			how = " (found by " + words + ")"
		}
		edit := localize.Edits([]localize.Location{f.Location}, src)[0]
		fmt.Fprintf(w, "  %s  %s%s\n", edit, localize.Effect(f.Test, f.Avoids), how)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// writeMutationText prints what the mutation analysis ran and its verified
// operator fixes, each as its edited source line.
func writeMutationText(w io.Writer, m *localize.Mutation) {
	if m == nil {
		return
	}
	took := fmt.Sprintf("in %.1fs", m.Seconds)
	if m.Cached {
		took = "(from the cache)"
	}
	fixes := "verified operator fixes"
	if len(m.Fixes) == 1 {
		fixes = "verified operator fix"
	}
	fmt.Fprintf(w, "\nmutation analysis: %d of %d mutants run %s, %d %s\n",
		m.Run, m.Generated, took, len(m.Fixes), fixes)
	for _, f := range m.Fixes {
		tests := "test"
		if f.Fixed != 1 {
			tests += "s"
		}
		edited := f.Edited
		if f.Removes() {
			edited = "(the line's statement removed)"
		}
		fmt.Fprintf(w, "  %s:%d: %s  (%s; makes %d failing %s pass)\n", f.File, f.Line, edited, f.Change, f.Fixed, tests)
	}
	for _, n := range m.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}
