//go:build cgo

package analysis

import (
	"encoding/json"
	"testing"
)

// TestReportJSON pins the documented shape of faultline fix -json.
func TestReportJSON(t *testing.T) {
	r := NewReport([]TestResult{
		{Test: "TestX/case_3", Package: "example.com/x", Candidates: []Candidate{{Verified: true, Locations: []Location{
			{File: "x.go", Line: 4, Col: 9, EndLine: 4, EndCol: 14, Expr: "a + b", Original: "7", Angelic: "8"}}}}},
		{Test: "TestY", Notes: []string{"time budget exhausted"}},
	})
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tests":[{"test":"TestX/case_3","package":"example.com/x","candidates":[{"verified":true,"locations":[{"file":"x.go","line":4,"col":9,"endLine":4,"endCol":14,"expr":"a + b","original":"7","angelic":"8"}]}]},{"test":"TestY","candidates":[],"notes":["time budget exhausted"]}]}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}
