package server

import (
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/regress"
)

// An explanation whose causes gave no root change says so in its summary,
// with the reason.
func TestExplainSummarySaysWhyNoRoot(t *testing.T) {
	ex := localize.Explanation{Test: "TestScale", Base: "0123456789abcdef", NoRoot: regress.NoRootOutside, Found: "all",
		Changes: []localize.Change{{File: "a.go", Line: 3, EndLine: 3, Role: "root"}}}
	got := explainSummary(ex)
	if want := "reverting a.go:3 makes it pass again; found by delta debugging, as the causes lay outside the changed lines"; !strings.HasSuffix(got, want) {
		t.Errorf("summary %q, want it to end %q", got, want)
	}
}
