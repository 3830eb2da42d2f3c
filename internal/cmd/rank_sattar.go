package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
)

// writeSatTarText lists the suspects behind a SAT-TAR ranking: the lines of
// each failing test's unsat core, or why a test has none.
func writeSatTarText(w io.Writer, st *localize.SatTar) {
	if st == nil {
		return
	}
	fmt.Fprintf(w, "\nSAT-TAR: Tarantula plus 1 for a line in the unsat core of a failing test's violated checks (cores of %d failing tests):\n", len(st.Cores))
	for _, c := range st.Cores {
		if len(c.Suspects) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s %s: %s\n", c.Package, c.Test, suspectLines(c.Suspects))
	}
	for _, n := range st.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// suspectLines spells a core's lines once each: a core may hold several
// expressions of one line.
func suspectLines(sus []localize.Suspect) string {
	var out []string
	for _, s := range sus {
		l := fmt.Sprintf("%s:%d", s.File, s.Line)
		if s.EndLine > s.Line {
			l += fmt.Sprintf("-%d", s.EndLine)
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}
