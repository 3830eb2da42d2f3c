//go:build cgo

package analysis

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestVerify forces candidates of the foo example again: a verified one
// passes, the same one with a wrong value fails, and one whose source was
// edited since the analysis is refused without running anything.
func TestVerify(t *testing.T) {
	dir := extract(t, "foo.txtar")
	target := testbuild.Target{Package: "example.com/foo", Test: "TestFoo"}
	ctx := context.Background()
	mod := open(t, dir)
	res, err := Analyze(ctx, mod, []testbuild.Target{target}, Options{MaxSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	// return b ⇒ 2 is a single location with a single instance.
	i := slices.IndexFunc(res[0].Candidates, func(c Candidate) bool {
		return len(c.Locations) == 1 && c.Locations[0].Line == 14 && c.Locations[0].Expr == "b"
	})
	if i < 0 {
		t.Fatalf("no candidate at return b: %+v", res[0].Candidates)
	}
	good := res[0].Candidates[i]
	if !good.Verified || len(good.Force) != 1 || good.Force[0].Value != 2 {
		t.Fatalf("candidate %+v forces %+v", good, good.Force)
	}

	v, err := Verify(ctx, mod, target, good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed || v.Test != "TestFoo" || v.Duration < 0 {
		t.Errorf("verification of the verified candidate: %+v", v)
	}

	tampered := good
	tampered.Force = slices.Clone(good.Force)
	tampered.Force[0].Value = 8 // what b was: the test fails as before
	v, err = Verify(ctx, mod, target, tampered, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed || !strings.Contains(v.Output, "foo(3, 5) = 8, want 2") {
		t.Errorf("verification of a wrong value: %+v", v)
	}

	if _, err := Verify(ctx, mod, target, Candidate{Verified: true, Locations: good.Locations}, Options{}); err == nil || !strings.Contains(err.Error(), "no forced values") {
		t.Errorf("candidate without forced values: %v", err)
	}

	src := filepath.Join(dir, "foo.go")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(text, "\n// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Verify(ctx, mod, target, good, Options{})
	if !errors.Is(err, ErrSourceChanged) || !strings.Contains(err.Error(), "foo.go was edited") {
		t.Errorf("verification after an edit: %v, want ErrSourceChanged naming foo.go", err)
	}
	// A new file in the package renumbers nothing here, but is refused all
	// the same: the check is on the whole build.
	if err := os.WriteFile(src, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extra.go"), []byte("package foo\n\nfunc extra() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Verify(ctx, mod, target, good, Options{})
	if !errors.Is(err, ErrSourceChanged) || !strings.Contains(err.Error(), "extra.go is new") {
		t.Errorf("verification after adding a file: %v, want ErrSourceChanged naming extra.go", err)
	}
}

// TestVerifySwitched verifies a candidate found by predicate switching.
func TestVerifySwitched(t *testing.T) {
	dir := extract(t, "label.txtar")
	target := testbuild.Target{Package: "example.com/label", Test: "TestSize"}
	mod := open(t, dir)
	res, err := Analyze(context.Background(), mod, []testbuild.Target{target}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Switched != 1 {
		t.Fatalf("got %d switched candidates, want 1", res[0].Switched)
	}
	v, err := Verify(context.Background(), mod, target, res[0].Candidates[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed {
		t.Errorf("the switched condition does not verify: %+v", v)
	}
}

func TestExcerpt(t *testing.T) {
	out := "=== RUN   TestX\n    x_test.go:7: got 1\n--- FAIL: TestX (0.00s)\nFAIL\n"
	if got, want := excerpt(out), "    x_test.go:7: got 1\n--- FAIL: TestX (0.00s)"; got != want {
		t.Errorf("excerpt = %q, want %q", got, want)
	}
	long := strings.Repeat("line\n", 40) + "last\n"
	got := strings.Split(excerpt(long), "\n")
	if len(got) != maxExcerptLines+1 || got[0] != "…" || got[len(got)-1] != "last" {
		t.Errorf("long excerpt %q", got)
	}
}
