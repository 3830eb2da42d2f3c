package filecache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, bound int64) *Cache {
	t.Helper()
	c, err := Open(t.TempDir(), bound)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func size(c *Cache) int64 {
	var n int64
	for _, u := range c.Usage() {
		n += u.Bytes
	}
	return n
}

func TestGetSet(t *testing.T) {
	c := open(t, DefaultBound)
	if _, ok := c.Get("result", "k"); ok {
		t.Fatal("hit in an empty cache")
	}
	if err := c.Set("result", "k", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("other", "k", []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get("result", "k"); !ok || string(got) != "v1" {
		t.Errorf("Get(result, k) = %q, %v; want v1", got, ok)
	}
	if got, ok := c.Get("other", "k"); !ok || string(got) != "v2" {
		t.Errorf("Get(other, k) = %q, %v; want v2 (kinds are separate)", got, ok)
	}
	if _, ok := c.Within("/some/module").Get("result", "k"); ok {
		t.Error("an entry of no scope is seen within a scope")
	}
	if err := c.Set("../escape", "k", nil); err == nil {
		t.Error("a kind with a path in it was accepted")
	}
	u := c.Usage()
	if len(u) != 2 || u[0].Kind != "other" || u[1].Kind != "result" || u[1].Files != 1 || u[1].Bytes != 2 {
		t.Errorf("Usage = %+v", u)
	}
}

func TestFileEntries(t *testing.T) {
	c := open(t, DefaultBound)
	tmp, err := c.TempDir()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(tmp, "x.test")
	if err := os.WriteFile(src, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := c.MoveFile("bin", "key", "", src)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := c.File("bin", "key", "")
	if !ok || got != p {
		t.Fatalf("File = %s, %v; want %s", got, ok, p)
	}
	if info, err := os.Stat(p); err != nil || info.Mode()&0o100 == 0 {
		t.Errorf("the moved file lost its mode: %v %v", info.Mode(), err)
	}
	q, err := c.SetFile("overlay", "key", "eval.go", []byte("package x"))
	if err != nil || filepath.Base(q)[65:] != "eval.go" {
		t.Errorf("SetFile = %s, %v; want a name ending -eval.go", q, err)
	}
}

// A read makes an entry recently used: collection removes the entries
// used longest ago.
func TestCollectEvictsLeastRecentlyUsed(t *testing.T) {
	const bound = 64 << 10
	c := open(t, bound)
	value := bytes.Repeat([]byte("x"), 4<<10)
	old := time.Now().Add(-time.Hour)
	for i := range 10 {
		if err := c.Set("k", fmt.Sprint(i), value); err != nil {
			t.Fatal(err)
		}
		p, _ := c.File("k", fmt.Sprint(i), "")
		mt := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, mt, mt)
	}
	for i := 10; i < 40; i++ {
		c.Get("k", "0") // the oldest entry is in use
		if err := c.Set("k", fmt.Sprint(i), value); err != nil {
			t.Fatal(err)
		}
		if n := size(c); n > bound {
			t.Fatalf("after %d entries of 4 KiB the cache holds %d bytes, over its bound %d", i+1, n, bound)
		}
	}
	if _, ok := c.Get("k", "0"); !ok {
		t.Error("the entry read last was evicted")
	}
	if _, ok := c.Get("k", "1"); ok {
		t.Error("the entry unused longest was kept")
	}
	if _, ok := c.Get("k", "39"); !ok {
		t.Error("the newest entry was evicted")
	}
}

// Processes share the cache: several writers and readers of the same keys
// see whole entries or none, and the bound holds.
func TestConcurrentUse(t *testing.T) {
	root := t.TempDir()
	const bound = 256 << 10
	var wg sync.WaitGroup
	for w := range 4 {
		c, err := Open(root, bound) // one Cache per process
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				key := fmt.Sprint(i % 50)
				want := bytes.Repeat([]byte(key), 1000)
				if got, ok := c.Get("k", key); ok && !bytes.Equal(got, want) {
					t.Errorf("writer %d read a torn entry %s (%d bytes)", w, key, len(got))
					return
				}
				if err := c.Set("k", key, want); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	c, _ := Open(root, bound)
	c.Collect()
	if n := size(c); n > bound {
		t.Errorf("the cache holds %d bytes, over its bound %d", n, bound)
	}
}

func TestRemoveUnusedAndClean(t *testing.T) {
	root := t.TempDir()
	c, err := Open(root, DefaultBound)
	if err != nil {
		t.Fatal(err)
	}
	c.Set("k", "old", []byte("old"))
	c.Set("k", "new", []byte("new"))
	p, _ := c.File("k", "old", "")
	long := time.Now().Add(-48 * time.Hour)
	os.Chtimes(p, long, long)
	if freed := c.RemoveUnused(24 * time.Hour); freed != 3 {
		t.Errorf("RemoveUnused freed %d bytes, want 3", freed)
	}
	if _, ok := c.Get("k", "old"); ok {
		t.Error("an entry unused for two days survived RemoveUnused(24h)")
	}
	if _, ok := c.Get("k", "new"); !ok {
		t.Error("a new entry was removed")
	}
	oldLayout := filepath.Join(root, "calc-0123456789ab", "angelic")
	os.MkdirAll(oldLayout, 0o755)
	store := filepath.Join(root, "calc-0123456789ab", "spectra.db")
	os.WriteFile(store, nil, 0o644)
	os.WriteFile(filepath.Join(root, "calc-0123456789ab", "filehashes"), nil, 0o644)
	// Not a module's directory: a tool's, and one without the hash index.
	tool := filepath.Join(root, "node-linux-x64", "bin")
	os.MkdirAll(tool, 0o755)
	notModule := filepath.Join(root, "other-0123456789ab", "bin")
	os.MkdirAll(notModule, 0o755)
	if got := Legacy(root); len(got) != 1 || got[0] != oldLayout {
		t.Errorf("Legacy = %v, want [%s]", got, oldLayout)
	}
	if err := Clean(root); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{Dir(root), oldLayout} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s survived Clean", gone)
		}
	}
	for _, kept := range []string{store, tool, notModule} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("Clean removed %s: %v", kept, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "3MiB": 3 << 20, "3MB": 3 << 20, "2G": 2 << 30, "512KiB": 512 << 10, "7B": 7} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1MiB", "1.5GiB", "lots", "MiB", "99999999999G"} {
		if n, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, n)
		}
	}
	t.Setenv(BoundEnv, "nonsense")
	if _, err := Bound(); err == nil {
		t.Error("a bad FAULTLINE_CACHE_MAX was accepted")
	}
}
