package snapshot

import (
	"fmt"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"
)

// OperatorFix is a verified operator fix (a mutant that makes every
// failing test running its line pass and keeps every passing one passing)
// as shown: an edit of its line as collected.
type OperatorFix struct {
	localize.OperatorFix
	// Before is the line as collected, without its indentation; Edit
	// replaces that text with the fix's.
	Before string
	Edit   Edit
}

// Effect says what the fix does and how that is known.
func (f OperatorFix) Effect() string {
	return "makes " + f.FailingThatRun("the line") + " pass and keeps the passing ones passing (verified by the mutant's test runs)"
}

// Title names the fix in a list of actions: "`* → /`: return a / b", or
// "remove `total += x`" for a removed statement.
func (f OperatorFix) Title() string {
	if f.Removes() {
		return fmt.Sprintf("remove `%s`", f.Before)
	}
	return fmt.Sprintf("`%s`: %s", f.Change, f.Edited)
}

// Shown is the fix as an edit of its line, for the hover:
// "`return a * b` → `return a / b` (`* → /`)", or "`total += x` removed".
func (f OperatorFix) Shown() string {
	if f.Removes() {
		return fmt.Sprintf("`%s` removed", f.Before)
	}
	return fmt.Sprintf("`%s` → `%s` (`%s`)", f.Before, f.Edited, f.Change)
}

// operatorFixesOf shows the mutation analysis's verified operator fixes
// as edits of their lines as collected (src); a fix whose line the
// collected source does not hold is left out, as it cannot be shown where
// it belongs.
func operatorFixesOf(m *localize.Mutation, src localize.SourceLines) []OperatorFix {
	if m == nil {
		return nil
	}
	var out []OperatorFix
	for _, f := range m.Fixes {
		lines := src(f.File)
		if f.Line < 1 || f.Line > len(lines) {
			continue
		}
		text := lines[f.Line-1]
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		o := OperatorFix{OperatorFix: f, Before: text[indent:], Edit: Edit{
			File: f.File, StartLine: f.Line, StartCol: indent + 1, EndLine: f.Line, EndCol: len(text) + 1, NewText: f.Edited,
		}}
		if o.Removes() && f.Line < len(lines) {
			// The whole line goes, not only its text.
			o.Edit.StartCol, o.Edit.EndLine, o.Edit.EndCol = 1, f.Line+1, 1
		}
		out = append(out, o)
	}
	return out
}

// OperatorFixesAt returns the verified operator fixes of one file's
// collected line; none when f is nil (a snapshot built without findings).
func (f *findingsSlot) OperatorFixesAt(file string, line int) []OperatorFix {
	if f == nil {
		return nil
	}
	var out []OperatorFix
	for _, o := range f.Operators {
		if o.File == file && o.Line == line {
			out = append(out, o)
		}
	}
	return out
}
