package snapshot

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
)

// maxFixesShown bounds the angelic fixes a diagnostic lists.
const maxFixesShown = 3

// rankText says where a line stands, naming its tie group when it has one.
func rankText(l localize.RankedLine, total int) string {
	if l.Tie[0] != l.Tie[1] {
		return fmt.Sprintf("rank %d (tied %d–%d) of %d", l.Rank, l.Tie[0], l.Tie[1], total)
	}
	return fmt.Sprintf("rank %d of %d", l.Rank, total)
}

// DiagnosticMessage is the text of a suspicious line's diagnostic.
func (snap *Snapshot) DiagnosticMessage(i int) string {
	l := snap.Ranking.Lines[i]
	var b strings.Builder
	fmt.Fprintf(&b, "suspicious line: score %.3g (%s), %s", l.Score, snap.Ranking.Formula, rankText(l, len(snap.Ranking.Lines)))
	if order := snap.Ranking.Order; order != localize.OrderFormula {
		fmt.Fprintf(&b, " under the %s order", order)
	}
	if snap.Focus != "" {
		fmt.Fprintf(&b, ", localized to %s", snap.Focus)
	}
	runs := snap.Executing(i)
	fmt.Fprintf(&b, "\nrun by %d of %d failing tests", l.EF, snap.Ranking.Failed)
	if names := testNames(snap.Matrix, runs.Failing, 5); names != "" {
		fmt.Fprintf(&b, " (%s)", names)
	}
	fmt.Fprintf(&b, " and %d of %d passing tests", l.EP, snap.Ranking.Passed)
	if names := testNames(snap.Matrix, runs.Passing, 3); names != "" {
		fmt.Fprintf(&b, " (%s)", names)
	}
	if snap.Findings != nil {
		writeAngelicLines(&b, snap.Findings.FixesTouching(l.File, l.Line))
	}
	return b.String()
}

// writeAngelicLines adds one line per distinct fix candidate, verified ones
// first, e.g. "angelic fix: a.go:6  r := 7  →  r := 70  makes TestRent pass (verified by a forced run)".
func writeAngelicLines(b *strings.Builder, fixes []FixCandidate) {
	slices.SortStableFunc(fixes, func(x, y FixCandidate) int {
		switch {
		case x.Verified == y.Verified:
			return 0
		case x.Verified:
			return -1
		}
		return 1
	})
	seen := make(map[string]bool)
	for _, f := range fixes {
		if seen[f.Title] {
			continue
		}
		if len(seen) == maxFixesShown {
			fmt.Fprintf(b, "\n(more angelic fixes in the hover)")
			return
		}
		seen[f.Title] = true
		fmt.Fprintf(b, "\nangelic fix: %s", f.Title)
	}
}

// testNames lists up to max test names, saying how many more there are.
func testNames(m *localize.Matrix, idx []int, max int) string {
	var names []string
	for i, t := range idx {
		if i == max {
			names = append(names, fmt.Sprintf("%d more", len(idx)-max))
			break
		}
		names = append(names, m.Tests[t].Name)
	}
	return strings.Join(names, ", ")
}

// HoverText explains a ranked line: why it stands where it does (the
// order and the evidence, WhySentence), its four spectrum counts and its
// score under every formula.
func (snap *Snapshot) HoverText(i int) string {
	l := snap.Ranking.Lines[i]
	var b strings.Builder
	fmt.Fprintf(&b, "**faultline** · %s", snap.WhySentence(i))
	b.WriteString("\n\n| | executed | not executed |\n|---|---:|---:|\n")
	fmt.Fprintf(&b, "| failing tests | %d (ef) | %d (nf) |\n| passing tests | %d (ep) | %d (np) |\n\n", l.EF, l.NF, l.EP, l.NP)
	b.WriteString("| formula | score |\n|---|---:|\n")
	for _, f := range localize.FormulaScores(l.EF, l.EP, l.NF, l.NP) {
		mark := ""
		if f.Formula == snap.Ranking.Formula {
			mark = " ◀"
		}
		fmt.Fprintf(&b, "| %s%s | %.4g |\n", f.Formula, mark, f.Score)
	}
	if l.BlockRank != nil {
		b.WriteString(blockRankText(l.Score, l.BlockRank))
	}
	if l.SatTar != nil {
		b.WriteString(satTarText(l.Score, l.SatTar))
	}
	if names := testNames(snap.Matrix, snap.executingFailing(i), 10); names != "" {
		fmt.Fprintf(&b, "\nFailing tests that run this line: %s\n", names)
	}
	return b.String()
}

// blockRankText explains a line's BlockRank score: its block and the two
// parts of the score, and when runs stop in the block, that they do.
func blockRankText(score float64, br *localize.BlockRankLine) string {
	var b strings.Builder
	lines := fmt.Sprintf("line %d", br.FirstLine)
	if br.LastLine != br.FirstLine {
		lines = fmt.Sprintf("lines %d–%d", br.FirstLine, br.LastLine)
	}
	fmt.Fprintf(&b, "\n**BlockRank** %.4g: block %d of `%s` (%s, %s) = %.4g passed back by its successors (T·ΣW·BR) + %.4g of its own ((1−T)·I)\n\n",
		score, br.Block, br.Function, br.Kind, lines, br.Successors, br.Local)
	more := "more"
	if br.I < 0 {
		more = "fewer"
	}
	fmt.Fprintf(&b, "A failing run enters it %.3g times %s than a passing run on average (I); T = %.3g of all entries leave it", math.Abs(br.I), more, br.T)
	if br.T < 1 {
		fmt.Fprintf(&b, ": %.3g %% of the entries end in it (a panic, an exit, or a test killed while in it)", 100*(1-br.T))
	}
	b.WriteString(".\n")
	return b.String()
}

// satTarText explains a line's SAT-TAR score: Tarantula, and the bonus of
// the cores that hold the line, or why the refinement cleared it.
func satTarText(score float64, st *localize.SatTarLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n**SAT-TAR** %.4g = Tarantula %.4g + bonus %g (confidence %.4g breaks ties)\n\n", score, st.Tarantula, st.Bonus, st.Confidence)
	switch {
	case len(st.Cores) > 0:
		fmt.Fprintf(&b, "The line is in the unsat core of the violated checks of %s.\n", strings.Join(st.Cores, ", "))
	case st.Cleared != "":
		fmt.Fprintf(&b, "The line was in a core and lost its bonus: %s.\n", st.Cleared)
	default:
		b.WriteString("The line is in no failing test's unsat core.\n")
	}
	return b.String()
}

// HintLabel is the inlay hint at the end of a suspicious line.
func HintLabel(l localize.RankedLine) string {
	return fmt.Sprintf("⚠ %.2f #%d", l.Score, l.Rank)
}

// FailingRuns returns the failing leaf tests of top-level test name in pkg.
func (snap *Snapshot) FailingRuns(pkg, name string) map[int]bool {
	out := make(map[int]bool)
	for i, t := range snap.Matrix.Tests {
		if t.Package == pkg && t.Verdict.Failing() && TopLevel(t.Name) == name {
			out[i] = true
		}
	}
	return out
}

// LinesRunBy returns the suspicious lines that any of the given tests runs.
func (snap *Snapshot) LinesRunBy(tests map[int]bool) map[FileLine]bool {
	out := make(map[FileLine]bool)
	for _, i := range snap.Flagged {
		l := snap.Ranking.Lines[i]
		for _, t := range snap.Runs[i].Failing {
			if tests[t] {
				out[FileLine{File: l.File, Line: l.Line}] = true
				break
			}
		}
	}
	return out
}

// HasFailing reports whether top-level test name (of pkg, when given) has a
// failing run.
func (snap *Snapshot) HasFailing(pkg, name string) bool {
	for _, t := range snap.Matrix.Tests {
		if t.Verdict.Failing() && TopLevel(t.Name) == name && (pkg == "" || t.Package == pkg) {
			return true
		}
	}
	return false
}

// FailingLeaf finds a failing leaf test by name (and package, when given).
func (snap *Snapshot) FailingLeaf(pkg, name string) (localize.Target, bool) {
	var found []localize.Target
	for _, t := range snap.Matrix.Tests {
		if t.Verdict.Failing() && t.Name == name && (pkg == "" || t.Package == pkg) {
			found = append(found, localize.Target{Package: t.Package, Test: t.Name})
		}
	}
	if len(found) != 1 {
		return localize.Target{}, false
	}
	return found[0], true
}
