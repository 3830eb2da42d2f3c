package spectra

import (
	"context"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestLargePackageIsStoredInChunks: a package of 3,000 tests with 2 MB of
// records is written to the store in chunks, so that no value (and no
// buffer encoding one, or transaction writing one) holds all its tests;
// loading the store reads them back, the same tests in the same order.
func TestLargePackageIsStoredInChunks(t *testing.T) {
	ws, _ := workspace(t, "many.txtar")
	// The output of passing tests is what fills the chunks.
	m, err := ws.Collect(context.Background(), CollectOptions{Timeout: time.Minute, PassingOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tests) != 3000 {
		t.Fatalf("%d tests, want 3000", len(m.Tests))
	}
	largest, total := 0, 0
	db, err := bolt.Open(ws.StorePath(), 0o644, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			return b.ForEach(func(_, v []byte) error {
				largest, total = max(largest, len(v)), total+len(v)
				return nil
			})
		})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if total < 2*testChunkBytes {
		t.Fatalf("the store holds %d bytes, want over %d: the fixture is too small to need chunks", total, 2*testChunkBytes)
	}
	if largest > testChunkBytes+testChunkBytes/4 {
		t.Errorf("the store's largest value is %d bytes, want at most about one chunk (%d)", largest, testChunkBytes)
	}
	loaded, err := ws.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Tests) != len(m.Tests) {
		t.Fatalf("loaded %d tests, collected %d", len(loaded.Tests), len(m.Tests))
	}
	for i, got := range loaded.Tests {
		want := m.Tests[i]
		if got.Name != want.Name || got.Verdict != want.Verdict || got.Output != want.Output || !slices.Equal(got.Hits.Slice(), want.Hits.Slice()) {
			t.Fatalf("test %d: loaded %s %s, collected %s %s", i, got.Name, got.Verdict, want.Name, want.Verdict)
		}
	}
}

// TestRecollectedPackageKeepsStoredChunks collects a package again under
// the same key while its stored record still counts the old chunks: readers
// of that record keep reading its own tests until the new record replaces
// it, and the replaced record's chunks go with it.
func TestRecollectedPackageKeepsStoredChunks(t *testing.T) {
	var warnings []string
	s := storeIn(t.TempDir(), &warnings)
	names := func(r *storedPackage) []string {
		var got []string
		if err := s.eachTest(r, func(t *storedTest) { got = append(got, t.Name) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	stored := func() *storedPackage {
		pkgs, _, err := s.results([]string{"k"})
		if err != nil || pkgs["k"] == nil {
			t.Fatalf("the stored result: %v, %v", pkgs, err)
		}
		return pkgs["k"]
	}
	first := &storedPackage{Package: "p", Key: "k", Collected: time.Unix(1, 0)}
	first.tests = []storedTest{{TestRun: TestRun{Package: "p", Name: "TestOld1"}}}
	if err := s.putTests(first); err != nil {
		t.Fatal(err)
	}
	first.tests = []storedTest{{TestRun: TestRun{Package: "p", Name: "TestOld2"}}}
	if err := s.putResult(first); err != nil {
		t.Fatal(err)
	}
	old := stored()

	again := &storedPackage{Package: "p", Key: "k", Collected: time.Unix(2, 0)}
	again.tests = []storedTest{{TestRun: TestRun{Package: "p", Name: "TestNew1"}}}
	if err := s.putTests(again); err != nil {
		t.Fatal(err)
	}
	if got := names(old); !slices.Equal(got, []string{"TestOld1", "TestOld2"}) {
		t.Fatalf("the stored record's tests while the package is collected again: %q", got)
	}
	if err := s.putResult(again); err != nil {
		t.Fatal(err)
	}
	if got := names(stored()); !slices.Equal(got, []string{"TestNew1"}) {
		t.Fatalf("the new record's tests: %q", got)
	}
	if err := s.eachTest(old, func(*storedTest) {}); err == nil {
		t.Error("the replaced record's chunks are still stored")
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
}
