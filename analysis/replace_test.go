package analysis

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/analysis/instrument"
	"github.com/faultline-go/faultline/analysis/replace"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// replaceOnly runs value replacement alone, over every site, on a failing
// test of a txtar module of testdata, whatever the formula could do.
func replaceOnly(t *testing.T, archive string, target testbuild.Target, oneByOne bool) *TestResult {
	t.Helper()
	ctx := context.Background()
	prog, bin := instrumentedBinary(t, txtartest.Extract(t, filepath.Join("testdata", archive)), target.Package)
	bin.Timeout, bin.Deadline, bin.OneByOne = 10*time.Second, time.Now().Add(time.Minute), oneByOne
	res := &TestResult{Test: target.Test}
	if err := replace.ReplaceValues(ctx, prog, bin, target, Options{MaxRuns: 60}, replace.ScopeEvery, res); err != nil {
		t.Fatal(err)
	}
	res.Runs = bin.Runs
	return res
}

// instrumentedBinary builds the instrumented test binary of package pkgPath
// of the module in dir.
func instrumentedBinary(t *testing.T, dir, pkgPath string) (*instrument.Program, *instrument.TestBinary) {
	t.Helper()
	ctx := context.Background()
	mod, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	listing, keys, err := mod.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pkg := listing.Package(pkgPath)
	prog, err := instrument.LoadProgram(mod, pkgPath, testbuild.SortedPaths(listing.Closure(pkg)))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := instrument.BuildTestBinary(ctx, mod, keys, prog, pkg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return prog, bin
}

// replacedAt returns the verified candidate found by value replacement at
// file:line whose expression is expr.
func replacedAt(r *TestResult, file string, line int, expr string) (Candidate, bool) {
	i := slices.IndexFunc(r.Candidates, func(c Candidate) bool {
		l := c.Locations[0]
		return len(c.Locations) == 1 && c.Verified && c.Found == FoundByReplacement && l.File == file && l.Line == line && l.Expr == expr
	})
	if i < 0 {
		return Candidate{}, false
	}
	return r.Candidates[i], true
}

// Seeded faults in code whose values the formula does not model: value
// replacement finds a verified candidate on the faulty line, with a value
// of a passing run (the key "error" of a lower-case lookup) or a
// neighbour (the count of decimals less one, an argument of a call outside
// the module beside a select and a type switch, an operand of && negated),
// whether the replacements
// run batched in one process or one per process.
func TestReplacementFindsTheFaultyLine(t *testing.T) {
	cases := []struct {
		archive     string
		target      testbuild.Target
		file        string
		line        int
		expr        string
		was, became string
	}{
		{"style.txtar", testbuild.Target{Package: "example.com/style", Test: "TestStyleUpper"}, "style.go", 16, "strings.TrimSpace(level)", `"ERROR"`, `"error"`},
		{"digits.txtar", testbuild.Target{Package: "example.com/digits", Test: "TestTrim"}, "digits.go", 11, "len(s) - dot - 0", "6", "5"},
		{"relay.txtar", testbuild.Target{Package: "example.com/relay", Test: "TestDescribeInt"}, "relay.go", 11, "x+1", "5", "4"},
		{"operand.txtar", testbuild.Target{Package: "example.com/operand", Test: "TestSqueeze"}, "operand.go", 7, "c == '\\t'", "false", "c != '\\t'"},
	}
	for _, c := range cases {
		for _, oneByOne := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/oneByOne=%v", c.archive, oneByOne), func(t *testing.T) {
				r := replaceOnly(t, c.archive, c.target, oneByOne)
				cand, ok := replacedAt(r, c.file, c.line, c.expr)
				if !ok {
					t.Fatalf("no verified replacement at %s:%d %s; candidates %+v, notes %v", c.file, c.line, c.expr, r.Candidates, r.Notes)
				}
				if l := cand.Locations[0]; l.Original != c.was || l.Angelic != c.became {
					t.Errorf("replacement %s -> %s, want %s -> %s", l.Original, l.Angelic, c.was, c.became)
				}
				batched := !strings.Contains(strings.Join(r.Notes, "\n"), "one per run")
				if batched == oneByOne {
					t.Errorf("batched %v with oneByOne %v: notes %v", batched, oneByOne, r.Notes)
				}
			})
		}
	}
}

// A test that passes when run again in the same process cannot have its
// replacements batched: they run one per process, and still find the
// fault.
func TestReplacementUnbatchedWhenRepetitionsDiffer(t *testing.T) {
	r := replaceOnly(t, "counter.txtar", testbuild.Target{Package: "example.com/counter", Test: "TestLabel"}, false)
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, "one replacement per process") {
		t.Errorf("notes %v", r.Notes)
	}
	if _, ok := replacedAt(r, "counter.go", 11, "n+1"); !ok {
		t.Errorf("no verified replacement of n+1; candidates %+v, notes %v", r.Candidates, r.Notes)
	}
}
