package snapshot

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
)

// WhySentence says in one sentence why ranked line i stands where it does:
// the order that produced the ranking and the evidence that put the line
// there, e.g. "Rank 2 of 41 under the combined order: it hosts a verified
// fix for 2 of 3 analysed failing tests (found by the solver), ochiai
// 0.71, executed by all 3 failing and 1 of 12 passing tests."
func (snap *Snapshot) WhySentence(i int) string {
	r := snap.Ranking
	l := r.Lines[i]
	var b strings.Builder
	if l.Tie[0] != l.Tie[1] {
		fmt.Fprintf(&b, "Rank %d (tied %d–%d) of %d", l.Rank, l.Tie[0], l.Tie[1], len(r.Lines))
	} else {
		fmt.Fprintf(&b, "Rank %d of %d", l.Rank, len(r.Lines))
	}
	b.WriteString(" " + snap.orderWords())
	if snap.Focus != "" {
		fmt.Fprintf(&b, ", localized to %s", snap.Focus)
	}
	b.WriteString(": ")
	fixes := snap.angelicAt(l.File, l.Line)
	switch r.Order {
	case localize.OrderLearned:
		var why []string
		for _, reason := range l.Because {
			why = append(why, snap.ReasonWords(reason))
		}
		if len(why) == 0 {
			// Outside the part of the ranking a model reorders, or with no
			// evidence it weighs for the line: the formula places it.
			b.WriteString("no evidence the model weighs lifts it, so the formula places it by " + scoreWords(r.Formula, l))
		} else {
			b.WriteString("weighed most by " + andList(why))
		}
		b.WriteString("; ")
	case localize.OrderCombined:
		switch {
		case l.Fixes > 0:
			fmt.Fprintf(&b, "it hosts a verified fix for %s", snap.ofAnalysed(l.Fixes))
			if len(fixes.foundBy) > 0 {
				fmt.Fprintf(&b, " (found by %s)", andList(fixes.foundBy))
			}
		case snap.hostsOfFixes() == 1:
			b.WriteString("it hosts no verified fix and comes after the line that does")
		case snap.hostsOfFixes() > 1:
			fmt.Fprintf(&b, "it hosts no verified fix and comes after the %d lines that do", snap.hostsOfFixes())
		default:
			b.WriteString("no line hosts a verified fix for an analysed failing test")
		}
		if s := fixes.uncounted(); s != "" {
			b.WriteString(" (" + s + ", which this order does not count)")
		}
		b.WriteString(", " + scoreWords(r.Formula, l) + ", ")
	default:
		b.WriteString(scoreWords(r.Formula, l) + ", ")
		if fixes.single > 0 {
			fmt.Fprintf(&b, "it hosts a verified fix for %s, which this order does not weigh, ", snap.ofAnalysed(fixes.single))
		}
	}
	for _, more := range snap.moreEvidence(l) {
		b.WriteString(more + ", ")
	}
	if l.Evidence[localize.EvidenceDeclarationRead] > 0 {
		// Its value runs before any test: coverage counts it for none.
		b.WriteString("its value runs before any test, so no test's coverage counts it.")
		return b.String()
	}
	if l.Evidence[localize.EvidenceUnexecutedNextTo] > 0 {
		b.WriteString("no test runs it, so no test's coverage counts it.")
		return b.String()
	}
	b.WriteString("executed by " + snap.RunWords(l) + ".")
	return b.String()
}

// moreEvidence says what else points at the line that the order's own
// words above did not name: the failing checks' slice, the mutants of the
// line and a verified operator fix on it.
func (snap *Snapshot) moreEvidence(l localize.RankedLine) []string {
	named := map[string]bool{}
	for _, r := range l.Because {
		named[r.Evidence] = true
	}
	var out []string
	if v := l.Evidence["slice.distance"]; v > 0 && !named["slice.distance"] && !named["slice.member"] {
		// The column is 1/(1+d) for a line d dependences from the check.
		switch d := int(math.Round(1/v)) - 1; d {
		case 0:
			out = append(out, "it is a failing check")
		case 1:
			out = append(out, "a failing check depends on it directly")
		default:
			out = append(out, fmt.Sprintf("a failing check depends on it through %d dependences", d))
		}
	}
	if s, ok := snap.Mutation.ScoresAt(l.File, l.Line); ok && (s.Metallaxis > 0 || s.MUSE > 0) {
		out = append(out, fmt.Sprintf("%s of it ran, scoring Metallaxis-FL %.2g and MUSE %.2g", plural(s.Mutants, "mutant"), s.Metallaxis, s.MUSE))
	}
	for _, f := range snap.Findings.OperatorFixesAt(l.File, l.Line) {
		out = append(out, fmt.Sprintf("it hosts a verified operator fix (%s)", f.Change))
	}
	return out
}

// plural is n things: "1 mutant", "3 mutants".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// orderWords names the order that produced the ranking, and when the
// settings asked for an order beyond the formula's but it stands, why.
func (snap *Snapshot) orderWords() string {
	r := snap.Ranking
	switch r.Order {
	case localize.OrderCombined:
		return "under the combined order"
	case localize.OrderLearned:
		return fmt.Sprintf("under the learned order (model %s)", r.Model)
	}
	alone := fmt.Sprintf("by %s alone", formulaWords(r.Formula))
	if snap.Settings.Order == localize.OrderFormula {
		return alone
	}
	a := snap.Angelic
	switch {
	case !snap.Settings.Angelic:
		return alone + " (the angelic analysis is off)"
	case a == nil:
		return alone + " until the angelic analysis reports"
	case a.Unavailable != "":
		return alone + " (the angelic analysis is not available)"
	case a.Pending > 0:
		return alone + " until the angelic analysis reports"
	}
	return alone + " (no failing test here was analysed)"
}

// formulaWords is how a sentence names a ranking's formula.
func formulaWords(name string) string {
	if t, err := localize.ParseTechnique(name); err == nil && t.Formula == nil {
		return t.Title
	}
	return name
}

// scoreWords gives a line's score under the ranking's formula: "ochiai
// 0.71", or SAT-TAR's with what it is made of.
func scoreWords(formula string, l localize.RankedLine) string {
	s := fmt.Sprintf("%s %.3g", formulaWords(formula), l.Score)
	if st := l.SatTar; st != nil {
		switch {
		case len(st.Cores) > 0:
			s += fmt.Sprintf(" (Tarantula %.3g plus the bonus of the unsat core of %s)", st.Tarantula, andList(st.Cores))
		default:
			s += fmt.Sprintf(" (Tarantula %.3g, in no unsat core)", st.Tarantula)
		}
	}
	return s
}

// RunWords says how many failing and passing tests execute a line.
func (snap *Snapshot) RunWords(l localize.RankedLine) string {
	failing := countOf(l.EF, snap.Ranking.Failed) + " failing"
	if snap.Ranking.Passed == 0 {
		return failing + " tests (no test passes)"
	}
	return failing + " and " + countOf(l.EP, snap.Ranking.Passed) + " passing tests"
}

// countOf says k of n: "all 3", "none of the 12", "the one", "2 of 3".
func countOf(k, n int) string {
	switch {
	case k == n && n == 1:
		return "the one"
	case k == n:
		return fmt.Sprintf("all %d", n)
	case k == 0:
		return fmt.Sprintf("none of the %d", n)
	}
	return fmt.Sprintf("%d of %d", k, n)
}

// ofAnalysed says k of the analysed failing tests behind the ranking.
func (snap *Snapshot) ofAnalysed(k int) string {
	n := len(snap.Results)
	if k == 1 && n == 1 {
		return "the one analysed failing test"
	}
	return countOf(k, n) + " analysed failing tests"
}

// hostsOfFixes counts the lines of a combined ranking that host a verified
// fix, once per snapshot.
func (snap *Snapshot) hostsOfFixes() int {
	snap.fixHostsOnce.Do(func() {
		for _, l := range snap.Ranking.Lines {
			if l.Fixes > 0 {
				snap.fixHosts++
			}
		}
	})
	return snap.fixHosts
}

// lineFindings are the angelic findings of the analyses behind a ranking
// on one line.
type lineFindings struct {
	single     int      // tests for which it hosts a verified single-location fix
	foundBy    []string // the searches that found those, in words
	multi      int      // the fewest lines of a verified multi-location fix it is part of (0: none)
	unverified bool     // an unverified candidate touches it
}

// angelicAt gathers the findings on one line.
func (snap *Snapshot) angelicAt(file string, line int) lineFindings {
	var f lineFindings
	on := func(loc localize.Location) bool {
		return loc.File == file && loc.Line <= line && line <= max(loc.Line, loc.EndLine)
	}
	for _, r := range snap.Results {
		fixed := false
		for _, c := range r.Candidates {
			touches := false
			for _, loc := range c.Locations {
				touches = touches || on(loc)
			}
			switch {
			case !touches:
			case !c.Verified:
				f.unverified = true
			case len(c.Locations) == 1:
				fixed = true
				if w := foundWords(c.Found); !slices.Contains(f.foundBy, w) {
					f.foundBy = append(f.foundBy, w)
				}
			case f.multi == 0 || len(c.Locations) < f.multi:
				f.multi = len(c.Locations)
			}
		}
		if fixed {
			f.single++
		}
	}
	return f
}

// uncounted names the findings on a line that the combined order does not
// count: a verified fix over several lines, an unverified candidate.
func (f lineFindings) uncounted() string {
	switch {
	case f.multi > 0:
		return fmt.Sprintf("it is part of a verified fix over %d lines", f.multi)
	case f.unverified && f.single == 0:
		return "an unverified angelic candidate touches it"
	}
	return ""
}

// foundWords names the search that found a candidate.
func foundWords(found string) string {
	if w := localize.FoundWords(found); w != "" {
		return w
	}
	return "the solver"
}

// andList joins words as a sentence does: "a", "a and b", "a, b and c".
func andList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// ReasonWords says what one piece of a learned order's evidence is (the
// columns of internal/localize's evidence sources); a column it does not
// know is named as it is.
func (snap *Snapshot) ReasonWords(r localize.Reason) string {
	v := r.Value
	column := r.Evidence
	pct := func(x float64) int { return int(math.Round(100 * x)) }
	analysed := float64(len(snap.Results))
	switch column {
	case "spectrum.ochiai":
		return fmt.Sprintf("ochiai %.3g", v)
	case "spectrum.tarantula":
		return fmt.Sprintf("tarantula %.3g", v)
	case "spectrum.failShare":
		return fmt.Sprintf("run by %d %% of the failing tests", pct(v))
	case "spectrum.passShare":
		return fmt.Sprintf("run by %d %% of the passing tests", pct(v))
	case "spectrum.onlyFailing":
		return "run by failing tests only"
	case "blockrank.rank":
		return placeWords("BlockRank", v)
	case "angelic.fix":
		return "a verified fix for " + snap.ofAnalysed(int(math.Round(v*analysed)))
	case "angelic.solver":
		return "a verified fix found by the solver"
	case "angelic.switch":
		return "a verified fix found by predicate switching"
	case "angelic.replace":
		return "a verified fix found by value replacement"
	case "angelic.multi":
		return "part of a verified fix over several lines"
	case "angelic.unverified":
		return "an unverified angelic candidate"
	case "angelic.extreme":
		return "a fix by an extreme value only"
	case "angelic.fixAll":
		return "a fix for every analysed failing test"
	case "angelic.exclusive":
		return fmt.Sprintf("one of %d lines hosting a fix", int(math.Round(1/v)))
	case "angelic.mcs":
		if n := int(math.Round(1 / v)); n > 1 {
			return fmt.Sprintf("part of a verified fix over %d lines", n)
		}
		return "a verified fix needing no other line"
	case "slice.member":
		return "in a failing check's slice"
	case "slice.distance":
		switch d := int(math.Round(1/v)) - 1; d {
		case 0:
			return "being a failing check"
		case 1:
			return "1 dependence from a failing check"
		default:
			return fmt.Sprintf("%d dependences from a failing check", d)
		}
	case "sattar.suspect":
		return fmt.Sprintf("in the unsat cores of %d %% of the failing tests' checks", pct(v))
	case "sattar.core":
		return fmt.Sprintf("in an unsat core of %d lines", int(math.Round(1/v)))
	case "static.depth":
		return "its nesting depth"
	case "static.stack":
		return "its place on a failing test's panic stack"
	case "static.stackFunc":
		return "its function being on a failing test's panic stack"
	case localize.EvidenceDeclarationRead:
		return fmt.Sprintf("being a package-level declaration that the line ranked %d reads", int(v))
	case localize.EvidenceUnexecutedNextTo:
		return fmt.Sprintf("lying next to the line ranked %d, which a failing test runs", int(v))
	}
	if formula, ok := strings.CutPrefix(column, "spectrum."); ok {
		if name, ok := strings.CutSuffix(formula, ".rank"); ok {
			return placeWords(name, v)
		}
	}
	if kind, ok := strings.CutPrefix(column, "static.kind."); ok {
		return "being " + localize.StatementWords(kind)
	}
	return fmt.Sprintf("%s %.3g", column, v)
}

// placeWords says where a technique ranks a line, from its rank share (1
// for the first line).
func placeWords(technique string, share float64) string {
	if share >= 1 {
		return "first under " + technique
	}
	// Rounded up, but not past a whole percentage that the float misses
	// by its last bits (1 − 0.95 is a little over 0.05).
	return fmt.Sprintf("in the top %d %% under %s", max(1, int(math.Ceil(100*(1-share)-1e-9))), technique)
}
