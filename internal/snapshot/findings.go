package snapshot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
)

// Findings are what the angelic analysis found, in the form the server
// shows them. Positions refer to the source as it was collected
// (Matrix.FileHashes); the server maps them onto edited buffers and
// withdraws those whose line changed.
type Findings struct {
	Values []AngelicValue
	Fixes  []FixCandidate
	// Operators are the mutation analysis's verified operator fixes.
	Operators []OperatorFix
}

// AngelicValue is a value an expression would need to take for the failing
// tests to pass.
type AngelicValue struct {
	File  string // relative to the module root, slash-separated
	Line  int    // 1-based
	Col   int    // 1-based byte column just after the expression
	Label string // e.g. "⇒ 3"
}

// FixCandidate is a source edit that makes a failing test pass under the
// analysis, shown as a demonstration: the user decides.
type FixCandidate struct {
	Title    string
	File     string // file holding the suspicious line it fixes
	Line     int    // 1-based suspicious line it fixes
	Edits    []Edit
	Verified bool   // the failing test was rerun with the edit's values and passed
	Test     string // the failing test it makes pass
	// FoundBy says how the analysis found it when the formula did not:
	// "value replacement" or "predicate switching".
	FoundBy string
	// ID names the candidate to faultline.verifyFix; "" when it cannot be
	// verified.
	ID string
	// Shown is the candidate as edits of its source lines as they were
	// collected, for the hover and Title.
	Shown []localize.LineEdit
	// Avoids says the fix steers the run around the failing check rather
	// than fixing what it checks.
	Avoids bool
}

// Edit replaces a byte range on one line span of a file.
type Edit struct {
	File                string
	StartLine, StartCol int // 1-based line and byte column
	EndLine, EndCol     int // exclusive end
	NewText             string
	// For explanations: the expression replaced and the value it had in
	// the failing run ("" when unknown).
	Expr, Original string
}

// ExprText is the replaced expression, quoted for a message.
func (e Edit) ExprText() string {
	if e.Expr == "" {
		return "the expression"
	}
	return "`" + e.Expr + "`"
}

// produced is a candidate with the test it makes pass, for verifying it.
type produced struct {
	Target    localize.Target
	Candidate localize.Candidate
}

// angelicLabel is the hint beside an expression: its angelic value, and a
// word when only an extreme value works.
func angelicLabel(l localize.Location) string {
	if l.Extreme {
		return "⇒ " + l.Angelic + " (only an extreme value works)"
	}
	return "⇒ " + l.Angelic
}

// FindingsOf turns analyses into what the server shows: each location's
// angelic value just after its expression, and each candidate as an edit
// that writes the angelic values in place of the expressions, titled by
// the source lines it edits (src reads them as collected), with an ID
// under which it can be verified.
func FindingsOf(results []localize.TestResult, src localize.SourceLines) (Findings, map[string]produced) {
	var f Findings
	byID := map[string]produced{}
	seen := make(map[AngelicValue]bool)
	for ri, r := range results {
		for ci, c := range r.Candidates {
			if len(c.Locations) == 0 {
				continue
			}
			fix := FixCandidate{File: c.Locations[0].File, Line: c.Locations[0].Line, Verified: c.Verified, Test: r.Test, FoundBy: localize.FoundWords(c.Found),
				Shown: localize.Edits(c.Locations, src), Avoids: c.Avoids}
			if c.Verifiable() {
				fix.ID = fmt.Sprintf("%s %s #%d.%d", r.Package, r.Test, ri, ci)
				byID[fix.ID] = produced{localize.Target{Package: r.Package, Test: r.Test}, c}
			}
			for _, l := range c.Locations {
				v := AngelicValue{File: l.File, Line: l.EndLine, Col: l.EndCol, Label: angelicLabel(l)}
				if !seen[v] {
					seen[v] = true
					f.Values = append(f.Values, v)
				}
				fix.Edits = append(fix.Edits, Edit{
					File: l.File, StartLine: l.Line, StartCol: l.Col, EndLine: l.EndLine, EndCol: l.EndCol, NewText: l.Angelic,
					Expr: l.Expr, Original: l.Original,
				})
			}
			fix.Title = fmt.Sprintf("%s  %s", shownEdits(fix.Shown), fix.Effect())
			f.Fixes = append(f.Fixes, fix)
		}
	}
	return f, byID
}

// shownEdits joins a candidate's edits of its source lines.
func shownEdits(edits []localize.LineEdit) string {
	var parts []string
	for _, e := range edits {
		parts = append(parts, e.String())
	}
	return strings.Join(parts, "; ")
}

// Effect says what the candidate does and how that is known: "makes TestX
// pass (verified by a forced run, found by value replacement)".
func (c FixCandidate) Effect() string {
	test := c.Test
	if test == "" {
		test = "the failing test"
	}
	how := "as the analysis predicts; no forced run confirmed it"
	if c.Verified {
		how = "verified by a forced run"
	}
	if c.FoundBy != "" {
		how += ", found by " + c.FoundBy
	}
	return fmt.Sprintf("%s (%s)", localize.Effect(test, c.Avoids), how)
}

// findingsSlot is a snapshot's findings, read by many requests.
type findingsSlot struct {
	Findings
	byID map[string]produced
}

// Fix returns the fix candidate with the given ID and what verifies it.
func (f *findingsSlot) Fix(id string) (FixCandidate, produced, bool) {
	for _, c := range f.Fixes {
		if c.ID != "" && c.ID == id {
			p, ok := f.byID[id]
			return c, p, ok
		}
	}
	return FixCandidate{}, produced{}, false
}

// FixesTouching returns the fix candidates with an edit on one file's
// collected line.
func (f *findingsSlot) FixesTouching(file string, line int) []FixCandidate {
	return f.fixesWhere(func(c FixCandidate) bool {
		return slices.ContainsFunc(c.Edits, func(e Edit) bool {
			return e.File == file && e.StartLine <= line && line <= e.EndLine
		})
	})
}

// fixesWhere returns the fix candidates that keep says to.
func (f *findingsSlot) fixesWhere(keep func(FixCandidate) bool) []FixCandidate {
	var out []FixCandidate
	for _, c := range f.Fixes {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// ValuesIn returns the angelic values in one file.
func (f *findingsSlot) ValuesIn(file string) []AngelicValue {
	var out []AngelicValue
	for _, v := range f.Values {
		if v.File == file {
			out = append(out, v)
		}
	}
	return out
}

// FixesAt returns the fix candidates for one file's collected line.
func (f *findingsSlot) FixesAt(file string, line int) []FixCandidate {
	return f.fixesWhere(func(c FixCandidate) bool { return c.File == file && c.Line == line })
}

// Count returns how many fix candidates concern the given lines.
func (f *findingsSlot) Count(lines map[FileLine]bool) int {
	n := 0
	for _, c := range f.Fixes {
		if lines[FileLine{c.File, c.Line}] {
			n++
		}
	}
	return n
}
