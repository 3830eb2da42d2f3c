package server

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// lineRange spans the text of current line i, leading indentation excluded.
func lineRange(ft *snapshot.FileText, i int, enc encoding) protocol.Range {
	line := ft.Lines[i]
	indent := len(line) - len(bytes.TrimLeft(line, " \t"))
	return protocol.Range{
		Start: protocol.Position{Line: uint32(i), Character: enc.width(line[:indent])},
		End:   protocol.Position{Line: uint32(i), Character: enc.width(line)},
	}
}

// severity grades a suspicious line by the best rank of its tie group.
func severity(l localize.RankedLine) protocol.DiagnosticSeverity {
	if l.Tie[0] <= 3 {
		return protocol.DiagnosticSeverityWarning
	}
	return protocol.DiagnosticSeverityInformation
}

// rankText says where a line stands, naming its tie group when it has one.
func rankText(l localize.RankedLine, total int) string {
	if l.Tie[0] != l.Tie[1] {
		return fmt.Sprintf("rank %d (tied %d–%d) of %d", l.Rank, l.Tie[0], l.Tie[1], total)
	}
	return fmt.Sprintf("rank %d of %d", l.Rank, total)
}

// diagnosticMessage is the text of a suspicious line's diagnostic.
func diagnosticMessage(snap *snapshot.Snapshot, i int) string {
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

// maxFixesShown bounds the angelic fixes a diagnostic lists.
const maxFixesShown = 3

// writeAngelicLines adds one line per distinct fix candidate, verified ones
// first, e.g. "angelic fix: a.go:6  r := 7  →  r := 70  makes TestRent pass (verified by a forced run)".
func writeAngelicLines(b *strings.Builder, fixes []snapshot.FixCandidate) {
	slices.SortStableFunc(fixes, func(x, y snapshot.FixCandidate) int {
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

// diagnostic builds the diagnostic of ranked line i shown at current line cur.
func (s *Server) diagnostic(snap *snapshot.Snapshot, i int, ft *snapshot.FileText, cur int, enc encoding) protocol.Diagnostic {
	l := snap.Ranking.Lines[i]
	d := protocol.Diagnostic{
		Range:    lineRange(ft, cur, enc),
		Severity: severity(l),
		Code:     protocol.String("suspicious"),
		Source:   protocol.NewOptional("faultline"),
		Message:  protocol.String(diagnosticMessage(snap, i)),
		Data:     fmt.Appendf(nil, `{"score":%s,"rank":%d}`, jsonNumber(l.Score), l.Rank),
	}
	for n, t := range snap.FailingTests(i) {
		if n == 5 {
			break
		}
		if loc, ok := s.testLocation(snap, t, enc); ok {
			d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: loc,
				Message:  fmt.Sprintf("%s fails (%s) and runs this line", t.Name, t.Verdict),
			})
		}
	}
	return d
}

// testLocation points at where a failing test reported its failure, or else
// at the test function.
func (s *Server) testLocation(snap *snapshot.Snapshot, t *localize.TestRun, enc encoding) (protocol.Location, bool) {
	file, line := "", 0
	if len(t.FailSites) > 0 {
		file, line = t.FailSites[0].File, t.FailSites[0].Line
	} else if fn, ok := snap.TestFunc(t); ok {
		file, line = fn.File, fn.Line
	}
	if file == "" {
		return protocol.Location{}, false
	}
	f, ft, ok := s.textOf(snap, file)
	if !ok {
		return protocol.Location{}, false
	}
	cur, ok := ft.Current(line)
	if !ok {
		return protocol.Location{}, false
	}
	return protocol.Location{URI: f.uri, Range: lineRange(ft, cur, enc)}, true
}

// hoverText explains a ranked line: why it stands where it does (the
// order and the evidence, whySentence), its four spectrum counts and its
// score under every formula.
func hoverText(snap *snapshot.Snapshot, i int) string {
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
	if names := testNames(snap.Matrix, snap.Executing(i).Failing, 10); names != "" {
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

// hintLabel is the inlay hint at the end of a suspicious line.
func hintLabel(l localize.RankedLine) string {
	return fmt.Sprintf("⚠ %.2f #%d", l.Score, l.Rank)
}

// fileURI is the URI of snapshot file rel.
func fileURI(snap *snapshot.Snapshot, rel string) uri.URI {
	return uri.File(filepath.Join(snap.Root, filepath.FromSlash(rel)))
}

// jsonNumber formats a score as a JSON number (scores are always finite).
func jsonNumber(x float64) string { return fmt.Sprintf("%.6g", x) }
