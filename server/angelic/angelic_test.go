//go:build cgo

package angelic

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"faultline/analysis"
	"faultline/internal/txtartest"
	"faultline/server"
	"faultline/spectra"
)

func TestFindings(t *testing.T) {
	loc := analysis.Location{File: "abs/abs.go", Line: 6, Col: 10, EndLine: 6, EndCol: 11, Expr: "x", Original: "-2", Angelic: "2"}
	ids := 0
	f := findings([]analysis.TestResult{
		{Test: "TestAbsNegative", Candidates: []analysis.Candidate{{Verified: true, Locations: []analysis.Location{loc}}}},
		{Test: "TestAbsOther", Candidates: []analysis.Candidate{{Locations: []analysis.Location{loc}}, {}}},
	}, func(r analysis.TestResult, c analysis.Candidate) string {
		ids++
		if r.Test == "TestAbsOther" {
			return ""
		}
		return "id-1"
	})
	if len(f.Values) != 1 || f.Values[0] != (server.AngelicValue{File: "abs/abs.go", Line: 6, Col: 11, Label: "⇒ 2"}) {
		t.Errorf("values %+v, want one value after x", f.Values)
	}
	if len(f.Fixes) != 2 || ids != 2 {
		t.Fatalf("fixes %+v (%d registered), want one per non-empty candidate", f.Fixes, ids)
	}
	fix := f.Fixes[0]
	want := server.Edit{File: "abs/abs.go", StartLine: 6, StartCol: 10, EndLine: 6, EndCol: 11, NewText: "2", Expr: "x", Original: "-2"}
	if fix.File != "abs/abs.go" || fix.Line != 6 || !fix.Verified || len(fix.Edits) != 1 || fix.Edits[0] != want ||
		fix.Title != "x ⇒ 2 (TestAbsNegative passes when forced)" || fix.Test != "TestAbsNegative" || fix.ID != "id-1" {
		t.Errorf("fix %+v", fix)
	}
	if f.Fixes[1].Verified || f.Fixes[1].Title != "x ⇒ 2 (TestAbsOther passes under the analysis)" || f.Fixes[1].ID != "" {
		t.Errorf("unverified fix %+v", f.Fixes[1])
	}
}

// fooModule writes the AgxFaults example (a module whose TestFoo fails)
// to a new directory.
func fooModule(t *testing.T) string {
	return txtartest.Extract(t, filepath.Join("..", "..", "analysis", "testdata", "foo.txtar"))
}

// TestVerifyFix analyses the AgxFaults example through the provider and
// verifies one of its candidates, then refuses it once the source changed.
func TestVerifyFix(t *testing.T) {
	dir := fooModule(t)
	m := &spectra.Matrix{Root: dir, ModulePath: "example.com/foo", Tests: []spectra.TestRun{
		{Package: "example.com/foo", Name: "TestFoo", Verdict: spectra.Fail},
	}}
	p := New(analysis.Options{MaxSize: 1}, 1)
	var _ server.FixVerifier = p
	ctx := context.Background()
	f, err := p.Analyze(ctx, server.AnalysisInput{Root: dir, Matrix: m})
	if err != nil {
		t.Fatal(err)
	}
	var fix server.FixCandidate
	for _, c := range f.Fixes {
		if len(c.Edits) == 1 && c.Edits[0].Expr == "b" && c.Edits[0].StartLine == 14 {
			fix = c
		}
	}
	if fix.ID == "" || fix.Test != "TestFoo" || !fix.Verified {
		t.Fatalf("no verifiable candidate at return b among %+v", f.Fixes)
	}
	v, err := p.VerifyFix(ctx, dir, fix.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed || v.Test != "TestFoo" {
		t.Errorf("verification %+v", v)
	}
	if _, err := p.VerifyFix(ctx, dir, "angelic-999"); err == nil || !strings.Contains(err.Error(), "not from the latest") {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := p.VerifyFix(ctx, filepath.Join(dir, "elsewhere"), fix.ID); err == nil {
		t.Errorf("an id of another module verified")
	}
	src := filepath.Join(dir, "foo.go")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(strings.Replace(string(text), "a = x", "a = 2 * x", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.VerifyFix(ctx, dir, fix.ID); !errors.Is(err, analysis.ErrSourceChanged) {
		t.Errorf("verification after an edit: %v, want ErrSourceChanged", err)
	}
}
