package spectra

import (
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// chunkOfTests has every field of a stored test set, empty and not, and
// tests of two packages and verdicts in one chunk.
func chunkOfTests() []storedTest {
	return []storedTest{
		{TestRun: TestRun{Package: "m/a", Name: "TestA", Verdict: Pass, Elapsed: 3 * time.Millisecond}, Hits: packHits([]int32{0, 5, 300})},
		{TestRun: TestRun{Package: "m/a", Name: "TestA/sub case", Verdict: Fail, Elapsed: -1, Output: "a_test.go:3: want 1\n\xff\x00",
			FailSites: []Site{{File: "a_test.go", Line: 3}, {File: "b.go", Line: 1 << 40}}}, Hits: packHits([]int32{1}),
			Edges: packHits([]int32{2, 4}), EdgeCounts: packCounts([]uint64{7, 1 << 60})},
		{TestRun: TestRun{Package: "m/b", Name: "", Verdict: Verdict("odd verdict")}},
		{TestRun: TestRun{Package: "m/b", Name: "TestB", Verdict: Pass}},
	}
}

// TestStoredTestsRoundTrip: a chunk of tests reads back as it was written.
func TestStoredTestsRoundTrip(t *testing.T) {
	tests := chunkOfTests()
	data := appendTests([]byte("left alone"), tests)[len("left alone"):]
	got, err := decodeTests(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, tests) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, tests)
	}
	if empty, err := decodeTests(appendTests(nil, nil)); err != nil || len(empty) != 0 {
		t.Errorf("an empty chunk reads back as %v, %v", empty, err)
	}
}

// TestDamagedChunkIsAnError: a chunk cut short anywhere, or with bytes
// after its tests or changed, is an error or other tests, never a panic.
func TestDamagedChunkIsAnError(t *testing.T) {
	data := appendTests(nil, chunkOfTests())
	for n := range len(data) {
		if _, err := decodeTests(data[:n]); !errors.Is(err, errDamagedChunk) {
			t.Errorf("cut to %d of %d bytes: %v, want a damaged chunk", n, len(data), err)
		}
	}
	if _, err := decodeTests(append(data[:len(data):len(data)], 0)); !errors.Is(err, errDamagedChunk) {
		t.Errorf("a byte past the tests: %v, want a damaged chunk", err)
	}
	for i := range data {
		for _, b := range []byte{0, 1, 0x7f, 0x80, 0xff} {
			damaged := append([]byte(nil), data...)
			damaged[i] = b
			decodeTests(damaged) // must not panic
		}
	}
	// A first test whose package says "as the previous test's".
	if _, err := decodeTests([]byte{1, 0}); !errors.Is(err, errDamagedChunk) {
		t.Errorf("a first test repeating a package: %v, want a damaged chunk", err)
	}
}

// TestOtherVersionStoreReadsAsAbsent: a store another version of
// faultline wrote (another schema of its family) holds nothing this one
// reads, quietly: no warning, nothing moved aside. The next write clears
// it and stores anew; a store without faultline's schema is still corrupt.
func TestOtherVersionStoreReadsAsAbsent(t *testing.T) {
	var warnings []string
	s := storeIn(t.TempDir(), &warnings)
	r := &storedPackage{Package: "m/a", Key: "k1", Collected: time.Now(), tests: chunkOfTests()[:1]}
	if err := s.putResult(r); err != nil {
		t.Fatal(err)
	}
	setSchema(t, s.path, "faultline-store-4")
	if st, err := s.current(); err != nil || len(st.Packages) != 0 {
		t.Errorf("state of the other version's store: %v, %v, want none", st.Packages, err)
	}
	if pkgs, _, err := s.results([]string{"k1"}); err != nil || len(pkgs) != 0 {
		t.Errorf("results of the other version's store: %v, %v, want none", pkgs, err)
	}
	r2 := &storedPackage{Package: "m/b", Key: "k2", Collected: time.Now()}
	if err := s.putResult(r2); err != nil {
		t.Fatal(err)
	}
	if st, err := s.current(); err != nil || !reflect.DeepEqual(st.Packages, map[string]string{"m/b": "k2"}) {
		t.Errorf("state once written again: %v, %v, want m/b only", st.Packages, err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
	if _, err := os.Stat(s.path + ".corrupt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the store was moved aside: %v", err)
	}
	setSchema(t, s.path, "no store of ours")
	if _, err := s.current(); err != nil || len(warnings) != 1 {
		t.Errorf("a store of another schema family: %v, warnings %q, want it moved aside with a warning", err, warnings)
	}
}

// setSchema overwrites the store's schema, as another version would have
// written it.
func setSchema(t *testing.T, path, schema string) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte(schema)) }); err != nil {
		t.Fatal(err)
	}
}
