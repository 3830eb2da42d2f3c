package spectra

import (
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
	m, _ := collect(t, ws, time.Minute)
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
