package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/filecache"
)

// cacheBound is the file cache's bound in TestRankRunsStayUnderCacheBound:
// room for about two of the module's analysis binaries (3 MB each).
const cacheBound = 8 << 20

// TestRankRunsStayUnderCacheBound runs faultline rank on a module whose
// code changes before every run, under a small bound set through
// FAULTLINE_CACHE_MAX. Every run analyses the failing tests with a new test
// binary, so the entries written pass the bound by the third run; the
// cache stays under it after every run, the last run ranks as one with a
// fresh cache does, and faultline cache shows and cleans it.
func TestRankRunsStayUnderCacheBound(t *testing.T) {
	if testing.Short() {
		t.Skip("runs faultline rank eight times")
	}
	if err := analysis.Available(); err != nil {
		t.Skipf("no analysis, so no test binary is cached: %v", err)
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/grow\n\ngo 1.22\n",
		"grow.go": `package grow

// Max returns the larger of a and b.
func Max(a, b int) int {
	if a < b {
		return a
	}
	return b
}
`,
		"grow_test.go": `package grow

import "testing"

func TestMaxFirst(t *testing.T) {
	if Max(3, 1) != 3 {
		t.Error("Max(3, 1) is not 3")
	}
}

func TestMaxSecond(t *testing.T) {
	if Max(1, 3) != 3 {
		t.Error("Max(1, 3) is not 3")
	}
}
`,
	})
	root := t.TempDir()
	env := []string{"FAULTLINE_CACHE=" + root, fmt.Sprintf("%s=%d", filecache.BoundEnv, cacheBound)}
	// An old per-module cache, which faultline no longer reads.
	legacy := filepath.Join(root, "grow-0123456789ab", "angelic")
	if err := os.MkdirAll(legacy, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(legacy), "filehashes"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cache, err := filecache.Open(root, cacheBound)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for i := range 8 {
		f, err := os.OpenFile(filepath.Join(dir, "grow.go"), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = fmt.Fprintf(f, "\nfunc Edit%d() int { return %d }\n", i, i)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runBinary(t, faultlineBin, dir, env, "rank", "-json")
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, code, errOut)
		}
		after := cacheUsage(cache)
		if after["total"] > cacheBound {
			t.Fatalf("after run %d the cache holds %d bytes, over its bound %d", i, after["total"], cacheBound)
		}
		if after["testbin"] == 0 {
			t.Fatalf("run %d left no test binary in the cache", i)
		}
		last = out
	}
	if bins := cacheUsage(cache)["testbin files"]; bins >= 8 {
		t.Errorf("the cache kept all %d test binaries under a bound of %d bytes", bins, cacheBound)
	}
	fresh, errOut, code := faultline(t, dir, "rank", "-json")
	if code != 0 || rankedPart(t, fresh) != rankedPart(t, last) {
		t.Errorf("a fresh cache ranks differently (exit %d, %s):\n%s\nthe bounded one:\n%s", code, errOut, fresh, last)
	}

	out, _, code := runBinary(t, faultlineBin, dir, env, "cache")
	for _, want := range []string{filecache.Dir(root), "bound: 8.0 MiB", "testbin", "analysis", "overlay", "caches of an earlier faultline: 1 directories"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("faultline cache: exit %d, no %q in\n%s", code, want, out)
		}
	}
	if out, _, code := runBinary(t, faultlineBin, dir, env, "cache", "-clean", "-older", "1h"); code != 0 || !strings.Contains(out, "removed 0 B") {
		t.Errorf("cache -clean -older 1h removed entries used just now: exit %d, %q", code, out)
	}
	if _, _, code := runBinary(t, faultlineBin, dir, env, "cache", "-clean"); code != 0 {
		t.Errorf("cache -clean: exit %d", code)
	}
	for _, gone := range []string{filecache.Dir(root), legacy} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s survived faultline cache -clean", gone)
		}
	}
	if _, errOut, code := runBinary(t, faultlineBin, dir, env, "cache", "-older", "1h"); code != 2 || !strings.Contains(errOut, "-clean") {
		t.Errorf("-older without -clean: exit %d, %q", code, errOut)
	}
	bad := []string{"FAULTLINE_CACHE=" + root, filecache.BoundEnv + "=lots"}
	if _, errOut, code := runBinary(t, faultlineBin, dir, bad, "cache"); code != 1 || !strings.Contains(errOut, filecache.BoundEnv) {
		t.Errorf("a bad bound: exit %d, %q", code, errOut)
	}
}

// rankedPart is what rank -json ranked and fixed, without the times.
func rankedPart(t *testing.T, out string) string {
	t.Helper()
	var r struct {
		Lines   json.RawMessage
		Angelic struct{ Fixes json.RawMessage }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Lines) == 0 {
		t.Fatalf("rank -json: %v\n%s", err, out)
	}
	return string(r.Lines) + string(r.Angelic.Fixes)
}

// cacheUsage sums the cache's bytes by kind (and "total"), and counts its test
// binaries ("testbin files").
func cacheUsage(c *filecache.Cache) map[string]int64 {
	out := map[string]int64{}
	for _, u := range c.Usage() {
		out[u.Kind] = u.Bytes
		out["total"] += u.Bytes
		if u.Kind == "testbin" {
			out["testbin files"] = int64(u.Files)
		}
	}
	return out
}
