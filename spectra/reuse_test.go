package spectra

import (
	"bytes"
	"testing"

	"github.com/faultline-go/faultline/internal/filecache"
	"github.com/faultline-go/faultline/spectra/instrument"
)

// The reuse cache writes its entries in the background: once wait returns,
// another process's cache (a fresh one on the same directory) reuses them.
func TestReuseEntriesWrittenByWait(t *testing.T) {
	files, err := filecache.Open(t.TempDir(), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("package p\n\nfunc F(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n")
	opts := instrument.FileOptions{Coverage: true, Runtime: "example.com/m/internal/faultlinert"}
	c := newReuseCache(files)
	_, first, err := c.instrument("/m/p.go", src, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.wait()
	var r reused
	again := newReuseCache(files)
	defer again.wait()
	if !again.load(reuseKey("/m/p.go", src, opts), &r) {
		t.Fatal("the entry is not in the file cache after wait")
	}
	if !bytes.Equal(r.Source, src) || len(r.Result.Blocks) != len(first.Blocks) || len(r.Result.Edits) != len(first.Edits) {
		t.Errorf("the entry read back differs: %d blocks, %d edits; want %d, %d", len(r.Result.Blocks), len(r.Result.Edits), len(first.Blocks), len(first.Edits))
	}
}
