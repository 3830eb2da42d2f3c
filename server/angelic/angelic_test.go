package angelic

import (
	"testing"

	"faultline/analysis"
	"faultline/server"
)

func TestFindings(t *testing.T) {
	loc := analysis.Location{File: "abs/abs.go", Line: 6, Col: 10, EndLine: 6, EndCol: 11, Expr: "x", Original: "-2", Angelic: "2"}
	f := findings([]analysis.TestResult{
		{Test: "TestAbsNegative", Candidates: []analysis.Candidate{{Verified: true, Locations: []analysis.Location{loc}}}},
		{Test: "TestAbsOther", Candidates: []analysis.Candidate{{Locations: []analysis.Location{loc}}, {}}},
	})
	if len(f.Values) != 1 || f.Values[0] != (server.AngelicValue{File: "abs/abs.go", Line: 6, Col: 11, Label: "⇒ 2"}) {
		t.Errorf("values %+v, want one value after x", f.Values)
	}
	if len(f.Fixes) != 2 {
		t.Fatalf("fixes %+v, want one per non-empty candidate", f.Fixes)
	}
	fix := f.Fixes[0]
	want := server.Edit{File: "abs/abs.go", StartLine: 6, StartCol: 10, EndLine: 6, EndCol: 11, NewText: "2"}
	if fix.File != "abs/abs.go" || fix.Line != 6 || !fix.Verified || len(fix.Edits) != 1 || fix.Edits[0] != want ||
		fix.Title != "x ⇒ 2 (TestAbsNegative passes when forced)" {
		t.Errorf("fix %+v", fix)
	}
	if f.Fixes[1].Verified || f.Fixes[1].Title != "x ⇒ 2 (TestAbsOther passes under the analysis)" {
		t.Errorf("unverified fix %+v", f.Fixes[1])
	}
}
