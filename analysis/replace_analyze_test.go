//go:build cgo

package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// A fault in a function over complex numbers, which the formula does not
// model: the analysis falls back to value replacement, which finds the
// faulty constant (3 for 4) and a replacement of the looked-up value by
// one a passing run produced; both verify again through Verify, the second
// (forced as text) after a round trip through the result cache's form.
func TestReplacementInTheAnalysis(t *testing.T) {
	dir := extract(t, "turn.txtar")
	mod := open(t, dir)
	target := testbuild.Target{Package: "example.com/turn", Test: "TestTurnNegative"}
	res, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &res[0]
	constant, ok := replacedAt(r, "turn.go", 9, "3")
	if !ok || constant.Locations[0].Angelic != "4" {
		t.Fatalf("no replacement of 3 by 4: candidates %+v, notes %v", r.Candidates, r.Notes)
	}
	looked, ok := replacedAt(r, "turn.go", 11, "quarter[k]")
	if !ok || looked.Locations[0].Original != "(-1+0i)" || looked.Locations[0].Angelic != "(0-1i)" {
		t.Fatalf("no replacement of quarter[k] by -1i: candidates %+v", r.Candidates)
	}
	data, err := MarshalResult(*r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalResult(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range back.Candidates {
		if c.Found != FoundByReplacement {
			continue
		}
		v, err := Verify(context.Background(), mod, target, c, Options{})
		if err != nil || !v.Passed {
			t.Errorf("verifying %+v: %+v, %v", c.Locations, v, err)
		}
	}
}

// With hundreds of value sites (complex numbers, which the formula does
// not model) and a forced run that takes 20ms, value replacement stops at
// its bound on replacements (more than the budget's work) and says so, or,
// on a machine too loaded for that work, at the wall-clock cap.
func TestReplacementHoldsTheBudget(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package many\n\nimport \"time\"\n\n")
	const n = 300
	for i := range n {
		fmt.Fprintf(&src, "func f%d(c complex128) complex128 { return c + %di }\n\n", i, i%7+1)
	}
	src.WriteString("// All passes c through every function.\nfunc All(c complex128) complex128 {\n\ttime.Sleep(20 * time.Millisecond)\n")
	for i := range n {
		fmt.Fprintf(&src, "\tc = f%d(c)\n", i)
	}
	src.WriteString("\treturn c\n}\n")
	files := map[string]string{
		"go.mod":  "module example.com/many\n\ngo 1.22\n",
		"many.go": src.String(),
		"many_test.go": `package many

import (
	"fmt"
	"testing"
)

func TestAll(t *testing.T) {
	if got := fmt.Sprint(All(1)); got != "(0+0i)" {
		t.Errorf("All(1) = %s", got)
	}
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mod := open(t, dir)
	target := testbuild.Target{Package: "example.com/many", Test: "TestAll"}
	// Build first, so that only the analysis is timed.
	if _, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{Budget: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	const budget = 4 * time.Second
	res, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	t.Logf("%s, %d runs: %v", r.Total, r.Runs, r.Notes)
	if cap := 3 * budget; r.Total > cap+time.Second {
		t.Errorf("analysis took %s, wall-clock cap %s; notes %v", r.Total, cap, r.Notes)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "value replacement cut by") && !strings.Contains(notes, "time budget exhausted") {
		t.Errorf("value replacement did not run, or was not cut: notes %v", r.Notes)
	}
}

// Off-by-one faults in index literals and a slice bound: each faulty line
// hosts a verified replacement that moves the faulty integer by one, at
// every instance (in a loop, or in the calls after the one whose panic
// ended the recorded run). The loop bound's line
// hosts a verified fix too, by the formula or by replacement after it.
func TestReplacementMovesIntegersByOne(t *testing.T) {
	dir := extract(t, "offbyone.txtar")
	mod := open(t, dir)
	for _, c := range []struct {
		test, expr, angelic string
		line                int
	}{
		{"TestInitials", "1", "0", 10},
		{"TestLast", "len(s)-n-1", "3", 18},
		{"TestSumButLast", "", "", 24},
		{"TestFraction", "2", "1", 53},
		{"TestHead", "1", "0", 61},
	} {
		target := testbuild.Target{Package: "example.com/offbyone", Test: c.test}
		res, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := &res[0]
		if c.expr == "" {
			if !slices.ContainsFunc(r.Candidates, func(x Candidate) bool { return x.Verified && x.Locations[0].Line == c.line }) {
				t.Errorf("%s: no verified candidate on line %d: %+v, notes %v", c.test, c.line, r.Candidates, r.Notes)
			}
			continue
		}
		got, ok := replacedAt(r, "text.go", c.line, c.expr)
		if !ok || got.Locations[0].Angelic != c.angelic {
			t.Errorf("%s: no replacement of %s by %s on line %d: candidates %+v, notes %v", c.test, c.expr, c.angelic, c.line, r.Candidates, r.Notes)
			continue
		}
		v, err := Verify(context.Background(), mod, target, got, Options{})
		if err != nil || !v.Passed {
			t.Errorf("%s: verifying %+v: %+v, %v", c.test, got.Locations, v, err)
		}
	}
}
