//go:build cgo

package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
	"github.com/faultline-go/faultline/internal/txtartest"
)

func TestFindingsOf(t *testing.T) {
	loc := localize.Location{File: "abs/abs.go", Line: 6, Col: 10, EndLine: 6, EndCol: 11, Expr: "x", Original: "-2", Angelic: "2"}
	far := loc
	far.Angelic, far.Extreme = "9223372036854775807", true
	src := func(file string) []string {
		if file != "abs/abs.go" {
			return nil
		}
		return []string{"package abs", "", "func Abs(x int) int {", "\tif x < 0 {", "\t\tx = -x", "\t\treturn x", "\t}", "\treturn x", "}"}
	}
	f, byID := snapshot.FindingsOf([]localize.TestResult{
		{Test: "TestAbsNegative", Package: "example.com/abs", Candidates: []localize.Candidate{{Verified: true, Locations: []localize.Location{loc}}}},
		{Test: "TestAbsOther", Package: "example.com/abs", Candidates: []localize.Candidate{{Locations: []localize.Location{far}}, {}}},
	}, src)
	if len(f.Values) != 2 || f.Values[0] != (snapshot.AngelicValue{File: "abs/abs.go", Line: 6, Col: 11, Label: "⇒ 2"}) ||
		f.Values[1].Label != "⇒ 9223372036854775807 (only an extreme value works)" {
		t.Errorf("values %+v, want one value after x, and the extreme one said so", f.Values)
	}
	if len(f.Fixes) != 2 {
		t.Fatalf("fixes %+v, want one per non-empty candidate", f.Fixes)
	}
	fix := f.Fixes[0]
	want := snapshot.Edit{File: "abs/abs.go", StartLine: 6, StartCol: 10, EndLine: 6, EndCol: 11, NewText: "2", Expr: "x", Original: "-2"}
	if fix.File != "abs/abs.go" || fix.Line != 6 || !fix.Verified || len(fix.Edits) != 1 || fix.Edits[0] != want ||
		fix.Title != "abs/abs.go:6  return x  →  return 2  makes TestAbsNegative pass (verified by a forced run)" || fix.Test != "TestAbsNegative" {
		t.Errorf("fix %+v", fix)
	}
	// Candidates decoded from JSON carry no forced values: none to verify.
	if fix.ID != "" || len(byID) != 0 {
		t.Errorf("a candidate without forced values got the ID %q", fix.ID)
	}
	if f.Fixes[1].Verified || f.Fixes[1].Title != "abs/abs.go:6  return x  →  return 9223372036854775807  makes TestAbsOther pass (as the analysis predicts; no forced run confirmed it)" {
		t.Errorf("unverified fix %+v", f.Fixes[1])
	}
}

// A candidate found by value replacement says so in its title (diagnostic,
// code action) and in the hover; a value cut short for showing is not
// written by the preview.
func TestFindingsSayHowFound(t *testing.T) {
	loc := localize.Location{File: "style.go", Line: 16, Col: 9, EndLine: 16, EndCol: 33, Expr: "strings.TrimSpace(level)",
		Original: `"ERROR"`, Angelic: `"error"`}
	f, _ := snapshot.FindingsOf([]localize.TestResult{{Test: "TestStyleUpper", Package: "example.com/style", Candidates: []localize.Candidate{
		{Verified: true, Found: analysis.FoundByReplacement, Locations: []localize.Location{loc}}}}}, nil)
	if len(f.Fixes) != 1 || f.Fixes[0].Title != `style.go:16  strings.TrimSpace(level)  →  "error"  makes TestStyleUpper pass (verified by a forced run, found by value replacement)` {
		t.Fatalf("fixes %+v", f.Fixes)
	}
	hover := angelicHoverText(f.Fixes, "style.go", 16)
	if !strings.Contains(hover, "makes TestStyleUpper pass (verified by a forced run, found by value replacement)") {
		t.Errorf("hover %q", hover)
	}
	if writable(`Style{Color: "re…`) || writable("?") || writable("non-nil error") || writable("(2048 bytes)") || !writable(`"error"`) {
		t.Error("writable: a shortened or unknown value is written, or a literal is not")
	}
}

// fooModule writes the AgxFaults example (a module whose TestFoo fails)
// to a new directory.
func fooModule(t *testing.T) string {
	t.Helper()
	return txtartest.Extract(t, filepath.Join("..", "analysis", "testdata", "foo.txtar"))
}

// A verified candidate that steers the run around the failing check is
// titled and hovered as such, not as a fix.
func TestFindingsSaySteering(t *testing.T) {
	loc := localize.Location{File: "a.go", Line: 2, Col: 5, EndLine: 2, EndCol: 13, Expr: "end >= 0", Original: "true", Angelic: "false"}
	src := func(string) []string { return []string{"func f(end int) {", "\tif end >= 0 {"} }
	f, _ := snapshot.FindingsOf([]localize.TestResult{{Test: "TestSuffix", Package: "example.com/m", Candidates: []localize.Candidate{
		{Verified: true, Avoids: true, Found: analysis.FoundBySwitching, Locations: []localize.Location{loc}}}}}, src)
	want := "a.go:2  if end >= 0 {  →  if false {  steers the run of TestSuffix around its failing check, not a fix (verified by a forced run, found by predicate switching)"
	if len(f.Fixes) != 1 || f.Fixes[0].Title != want {
		t.Fatalf("fixes %+v, want the title %q", f.Fixes, want)
	}
	if hover := angelicHoverText(f.Fixes, "a.go", 2); !strings.Contains(hover, "`if end >= 0 {` → `if false {` steers the run of TestSuffix around its failing check, not a fix") {
		t.Errorf("hover %q", hover)
	}
}
