package cmd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/txtartest"
)

// operatorModule is a module with three operator faults (a*b for a/b,
// += for -=, < for <=), which no replaced value expresses.
const operatorModule = "../../analysis/mutation/testdata/operators.txtar"

// wantOperatorFixes are the verified operator fixes of operatorModule.
var wantOperatorFixes = []string{"ops.go:5: return a / b", "ops.go:10: level -= n", "ops.go:16: return lo <= x && x <= hi"}

// TestRankShowsOperatorFixes: rank -mutants lists the verified operator
// fixes in text and json, and without -mutants nothing of mutation shows;
// fix -mutants -json lists them too.
func TestRankShowsOperatorFixes(t *testing.T) {
	dir, store := txtartest.Extract(t, operatorModule), t.TempDir()
	stdout, stderr, code := faultlineWithStore(t, dir, store, "rank", "-order", "formula", "-mutants", "50", ".")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "3 verified operator fixes") {
		t.Errorf("no count of operator fixes:\n%s", stdout)
	}
	for _, want := range wantOperatorFixes {
		if !strings.Contains(stdout, want) {
			t.Errorf("no operator fix %q in:\n%s", want, stdout)
		}
	}
	stdout, stderr, _ = faultlineWithStore(t, dir, store, "rank", "-order", "formula", "-mutants", "50", "-json", "-evidence", ".")
	var out struct {
		Lines []struct {
			File     string
			Line     int
			Evidence map[string]float64
		}
		Mutation *struct {
			Cached bool
			Fixes  []struct {
				File   string
				Line   int
				Edited string
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if out.Mutation == nil || len(out.Mutation.Fixes) != len(wantOperatorFixes) {
		t.Fatalf("mutation in json: %+v", out.Mutation)
	}
	// The first rank ran every mutant: the second, on the same source,
	// tests and options, takes the analysis from the cache.
	if !out.Mutation.Cached {
		t.Errorf("the second rank -mutants ran the mutants again")
	}
	for _, l := range out.Lines {
		if l.Line == 5 && l.Evidence["mutation.fix"] != 1 {
			t.Errorf("line 5's evidence has no mutation.fix: %v", l.Evidence)
		}
	}
	stdout, _, _ = faultline(t, dir, "rank", "-angelic=false", "-json", ".")
	if strings.Contains(stdout, `"mutation"`) {
		t.Errorf("mutation with -angelic=false:\n%s", stdout)
	}
	stdout, stderr, _ = faultline(t, dir, "fix", "-mutants", "50", "-json", ".")
	var fix struct{ OperatorFixes []struct{ Edited string } }
	if err := json.Unmarshal([]byte(stdout), &fix); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if len(fix.OperatorFixes) != len(wantOperatorFixes) {
		t.Errorf("fix -json operatorFixes: %+v", fix.OperatorFixes)
	}
}

// TestMutantsKeepTheDefaultOrder: the mutation columns have no weight in
// the shipped model, so -mutants leaves the default ranking as it is.
func TestMutantsKeepTheDefaultOrder(t *testing.T) {
	dir := txtartest.Extract(t, operatorModule)
	order := func(args ...string) []string {
		stdout, stderr, _ := faultline(t, dir, append([]string{"rank", "-json"}, args...)...)
		var out struct {
			Order string
			Lines []struct {
				File string
				Line int
			}
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		lines := []string{out.Order}
		for _, l := range out.Lines {
			lines = append(lines, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		return lines
	}
	without, with := order("."), order("-mutants", "50", ".")
	if !slices.Equal(without, with) {
		t.Errorf("-mutants changed the order:\n%v\nwithout it:\n%v", with, without)
	}
}
