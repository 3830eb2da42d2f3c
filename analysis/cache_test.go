//go:build cgo

package analysis

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// TestResultCache analyses a failing test through the cache, then checks
// that a second analysis is served from it, that code the test never runs
// leaves the entry valid, and that an edit to the code it runs invalidates
// it.
func TestResultCache(t *testing.T) {
	if testing.Short() {
		t.Skip("collects spectra and builds an instrumented test binary")
	}
	dir := extractFrom(t, filepath.Join("..", "bench", "analysis", "programs", "distance.txtar"))
	ctx := context.Background()
	mod := open(t, dir)
	failing := []testbuild.Target{{Package: "example.com/distance", Test: "TestManhattan/backward_x"}}
	cacheDir := t.TempDir()
	cache, err := OpenResultCache(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{MaxSize: 1, Budget: 10 * time.Second}.WithWallCap(10 * time.Minute)
	analyse := func(wantHits int) Cached {
		t.Helper()
		out, err := AnalyzeCached(ctx, cache, mod, failing, opts)
		if err != nil {
			t.Fatal(err)
		}
		if out.Hits != wantHits {
			t.Fatalf("cache hits %d, want %d", out.Hits, wantHits)
		}
		if len(out.Results) != 1 || out.Results[0].Test != failing[0].Test || len(out.Results[0].Candidates) == 0 {
			t.Fatalf("unexpected results %+v", out.Results)
		}
		return out
	}
	first := analyse(0)
	second := analyse(1)
	if len(second.Results[0].Candidates) != len(first.Results[0].Candidates) ||
		second.Results[0].Candidates[0].Locations[0] != first.Results[0].Candidates[0].Locations[0] {
		t.Errorf("cached result differs:\n%+v\n%+v", second.Results[0], first.Results[0])
	}
	// A cached candidate carries what Verify needs.
	if c := second.Results[0].Candidates[0]; !c.Verifiable() {
		t.Error("a cached candidate cannot be verified")
	} else if v, err := Verify(ctx, mod, failing[0], c, opts); err != nil || v.Passed != c.Verified {
		t.Errorf("verifying a cached candidate: %+v, %v", v, err)
	}

	// A package the test does not run.
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "other.go"), []byte("package other\n\nfunc Unused() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	analyse(1)

	// The function the test runs.
	src := filepath.Join(dir, "dist.go")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(data, "\n// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	analyse(0)
	analyse(1)

	// A corrupt entry is a miss, not an error.
	entries, err := filepath.Glob(filepath.Join(cacheDir, "filecache", "*", resultKind, "*", "*"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no cache entries: %v", err)
	}
	for _, e := range entries {
		if err := os.WriteFile(e, []byte("{not json"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	analyse(0)
}
