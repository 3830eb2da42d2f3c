//go:build cgo

package analysis

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// instrumentedTestsPass builds pkg's test binary of the module in dir as
// the analysis instruments it and runs each of tests in it: each must
// build and pass as it does uninstrumented.
func instrumentedTestsPass(t *testing.T, dir, pkg string, tests ...string) {
	t.Helper()
	ctx := context.Background()
	bin, err := buildInstrumented(ctx, open(t, dir), pkg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range tests {
		res, err := bin.Run(ctx, test, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Passed {
			t.Errorf("%s failed instrumented:\n%s", test, res.Output)
		}
		if len(res.Trace) == 0 {
			t.Errorf("%s recorded nothing", test)
		}
	}
}

// A module whose go.mod has no go directive is compiled at go1.16, older
// than the recorder needs.
func TestBuildWithoutGoDirective(t *testing.T) {
	dir := extract(t, "shadow.txtar")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/shadow\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	instrumentedTestsPass(t, dir, "example.com/shadow", "TestShadowed")
}

// Runtime calls on expressions that take their type from their context
// keep that type, or are left out, wherever the type cannot be written.
func TestBuildUnspellableTypes(t *testing.T) {
	instrumentedTestsPass(t, extract(t, "unspellable.txtar"), "example.com/unspellable", "TestBackoff", "TestLocal")
}

// A call's results returned or passed on whole keep a site only where the
// result's type is recorded as the type it is returned or passed as.
func TestBuildTupleResultsOfOtherTypes(t *testing.T) {
	instrumentedTestsPass(t, extract(t, "tuplekinds.txtar"), "example.com/tuplekinds", "TestTuple")
}
