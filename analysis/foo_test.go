//go:build cgo

package analysis

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// extract writes a txtar archive of testdata into a fresh directory.
func extract(t *testing.T, name string) string {
	t.Helper()
	return extractFrom(t, filepath.Join("testdata", name))
}

// open opens the module in dir with a cache of the test's own.
func open(t *testing.T, dir string) *testbuild.Module {
	t.Helper()
	m, err := testbuild.Open(dir, testbuild.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// extractFrom writes a txtar archive into a fresh directory.
func extractFrom(t *testing.T, path string) string {
	t.Helper()
	return txtartest.Extract(t, path)
}

// TestFooGolden checks the five minimal fix candidates of the AgxFaults
// example (shared notes, section 6): {b := x + y}, {a = x}, {a >= y},
// {return b} and {x > 0, a = 0}, the last one found only by refinement,
// since the failing run never executes a = 0. Angelic values are checked
// by their validity conditions, not by the solver's choice.
func TestFooGolden(t *testing.T) {
	dir := extract(t, "foo.txtar")
	res, err := Analyze(context.Background(), open(t, dir), []testbuild.Target{{Package: "example.com/foo", Test: "TestFoo"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		t.Fatalf("got %d results, want 1", len(res))
	}
	r := res[0]
	if r.Test != "TestFoo" {
		t.Errorf("test = %q", r.Test)
	}
	num := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("angelic value %q is not an int: %v", s, err)
		}
		return n
	}
	want := map[string]func(locs []Location) bool{
		"4:x + y": func(l []Location) bool { return l[0].Original == "8" && l[0].Angelic == "2" },
		"7:x":     func(l []Location) bool { return l[0].Original == "3" && num(l[0].Angelic) >= 5 },
		"11:a >= y": func(l []Location) bool {
			return l[0].Original == "false" && l[0].Angelic == "true" && l[0].Col == 5 && l[0].EndCol == 11
		},
		"14:b": func(l []Location) bool { return l[0].Original == "8" && l[0].Angelic == "2" },
		"6:x > 0 9:0": func(l []Location) bool {
			return l[0].Angelic == "false" && l[1].Original == "0" && num(l[1].Angelic) >= 5
		},
	}
	var got []string
	for _, c := range r.Candidates {
		var key []string
		for _, l := range c.Locations {
			if l.File != "foo.go" {
				t.Errorf("location in %s", l.File)
			}
			key = append(key, strconv.Itoa(l.Line)+":"+l.Expr)
		}
		k := strings.Join(key, " ")
		got = append(got, k)
		if !c.Verified {
			t.Errorf("candidate %s reported unverified", k)
		}
		check, ok := want[k]
		if !ok {
			t.Errorf("unexpected candidate %s %+v", k, c.Locations)
			continue
		}
		if !check(c.Locations) {
			t.Errorf("candidate %s has wrong values: %+v", k, c.Locations)
		}
	}
	sort.Strings(got)
	if len(got) != len(want) {
		t.Errorf("got candidates %q, want the five of the table", got)
	}
	if r.Runs > 10 {
		t.Errorf("%d runs of the test; one per candidate and refinement should do", r.Runs)
	}
}
