package snapshot

import (
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
)

// An operator fix rewrites its line's text after the indentation; a
// removed statement takes its whole line.
func TestOperatorFixesOf(t *testing.T) {
	src := func(string) []string {
		return []string{"func f(a, b int) int {", "\ttotal += a", "\treturn a * b", "}"}
	}
	m := &localize.Mutation{Fixes: []localize.OperatorFix{
		{File: "f.go", Line: 3, Change: "* → /", Edited: "return a / b", Fixed: 2},
		{File: "f.go", Line: 2, Change: "removed", Edited: "", Fixed: 1},
		{File: "f.go", Line: 9, Change: "+ → -", Edited: "x"}, // beyond the collected file: left out
	}}
	got := operatorFixesOf(m, src)
	if len(got) != 2 {
		t.Fatalf("%d fixes shown, want 2: %+v", len(got), got)
	}
	swap, removal := got[0], got[1]
	if want := (Edit{File: "f.go", StartLine: 3, StartCol: 2, EndLine: 3, EndCol: 14, NewText: "return a / b"}); swap.Edit != want {
		t.Errorf("swap's edit %+v, want %+v", swap.Edit, want)
	}
	if swap.Title() != "`* → /`: return a / b" || swap.Shown() != "`return a * b` → `return a / b` (`* → /`)" {
		t.Errorf("swap shown as %q, %q", swap.Title(), swap.Shown())
	}
	if want := (Edit{File: "f.go", StartLine: 2, StartCol: 1, EndLine: 3, EndCol: 1}); removal.Edit != want {
		t.Errorf("removal's edit %+v, want %+v", removal.Edit, want)
	}
	if removal.Title() != "remove `total += a`" || removal.Shown() != "`total += a` removed" {
		t.Errorf("removal shown as %q, %q", removal.Title(), removal.Shown())
	}
	if e := swap.Effect(); e != "makes the 2 failing tests that run the line pass and keeps the passing ones passing (verified by the mutant's test runs)" {
		t.Errorf("effect %q", e)
	}
}
