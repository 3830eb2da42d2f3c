package spectra

import (
	"fmt"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStoreWriterStoresInOrder: packages handed to the writer chunk by
// chunk are all in the store once it is closed, each package's tests in
// the order given, in fewer transactions than writes when they queue up.
func TestStoreWriterStoresInOrder(t *testing.T) {
	var warnings []string
	s := storeIn(t.TempDir(), &warnings)
	w := newStoreWriter(s)
	want := map[string][]string{}
	var results []*storedPackage
	for p := range 5 {
		r := &storedPackage{Package: fmt.Sprintf("m/p%d", p), Key: fmt.Sprintf("k%d", p), Collected: time.Now()}
		results = append(results, r)
		for c := range 3 {
			for i := range 4 {
				name := fmt.Sprintf("Test%d_%d", c, i)
				r.tests = append(r.tests, storedTest{TestRun: TestRun{Package: r.Package, Name: name, Verdict: Pass}, Hits: packHits([]int32{int32(i)})})
				want[r.Key] = append(want[r.Key], name)
			}
			if c < 2 {
				if err := w.putTests(r); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.putResult(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if w.transactions >= 5*4 {
		t.Errorf("%d transactions for 20 writes handed over at once", w.transactions)
	}
	st, err := s.current()
	if err != nil || len(st.Packages) != 5 {
		t.Fatalf("current packages %v, %v, want 5", st.Packages, err)
	}
	keys := make([]string, 0, len(results))
	for _, r := range results {
		keys = append(keys, r.Key)
	}
	stored, _, err := s.results(keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		r := stored[key]
		if r == nil {
			t.Fatalf("%s is not stored", key)
		}
		var got []string
		if err := s.eachTest(r, func(t *storedTest) { got = append(got, t.Name) }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[key]) || r.NumTests != len(want[key]) || r.Chunks != 3 {
			t.Errorf("%s: %d tests in %d chunks, %v, want %v", key, r.NumTests, r.Chunks, got, want[key])
		}
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
}

// TestStoreWriterOnAFullDisk: a write that fails is the error of the
// writes handed over after it and of closing the writer; nothing hangs.
func TestStoreWriterOnAFullDisk(t *testing.T) {
	var warnings []string
	w := newStoreWriter(storeOnDevFull(t, &warnings))
	var handed error
	for p := range 100 {
		r := &storedPackage{Package: fmt.Sprintf("m/p%d", p), Key: fmt.Sprintf("k%d", p), Collected: time.Now(),
			tests: []storedTest{{TestRun: TestRun{Name: "TestA", Verdict: Pass}}}}
		if handed = w.putResult(r, nil); handed != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	err := w.close()
	if err == nil || !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		t.Errorf("closing the writer: %v, want the disk's error", err)
	}
	if handed != nil && handed.Error() != err.Error() {
		t.Errorf("a write handed over after the failure: %v, want %v", handed, err)
	}
}

// TestStoreWriterStoresFilesWithTheFirstResult: the build's files handed
// over before any result are stored with it, in one transaction, so that a
// stored result finds its files' blocks.
func TestStoreWriterStoresFilesWithTheFirstResult(t *testing.T) {
	var warnings []string
	s := storeIn(t.TempDir(), &warnings)
	w := newStoreWriter(s)
	file := storedFile{Path: "a.go", Hash: "h1", Blocks: []Block{{File: "a.go", Start: Pos{Line: 3}, End: Pos{Line: 4}, Lines: []int{3, 4}}}}
	if err := w.putFiles([]storedFile{file}, nil); err != nil {
		t.Fatal(err)
	}
	r := &storedPackage{Package: "m/a", Key: "ka", Collected: time.Now(), Files: []fileRef{{Path: "a.go", Hash: "h1", Blocks: 1}}}
	r.tests = append(r.tests, storedTest{TestRun: TestRun{Package: r.Package, Name: "TestA", Verdict: Pass}, Hits: packHits([]int32{0})})
	if err := w.putResult(r, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if w.transactions != 1 {
		t.Errorf("%d transactions, want the files, the tests and the record in one", w.transactions)
	}
	stored, files, err := s.results([]string{"ka"})
	if err != nil {
		t.Fatal(err)
	}
	if stored["ka"] == nil {
		t.Fatal("the result is not stored, or not with its files")
	}
	if got := files.blocks[fileKey("a.go", "h1")]; got == nil || !reflect.DeepEqual(*got, file) {
		t.Errorf("stored file %+v, want %+v", got, file)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
}

// TestStoreWriterCallsStoredAfterCommit: a package's stored callback runs
// only once its result can be read back from the store, which is when the
// collection reports the package done to readers of the results so far.
func TestStoreWriterCallsStoredAfterCommit(t *testing.T) {
	var warnings []string
	s := storeIn(t.TempDir(), &warnings)
	w := newStoreWriter(s)
	found := make(chan error, 3)
	for p := range 3 {
		r := &storedPackage{Package: fmt.Sprintf("m/p%d", p), Key: fmt.Sprintf("k%d", p), Collected: time.Now()}
		r.tests = append(r.tests, storedTest{TestRun: TestRun{Package: r.Package, Name: "TestA", Verdict: Fail}, Hits: packHits([]int32{1})})
		key := r.Key
		stored := func() {
			got, _, err := s.results([]string{key})
			if err == nil && got[key] == nil {
				err = fmt.Errorf("%s reported stored but not readable: %v", key, got[key])
			}
			found <- err
		}
		if err := w.putResult(r, stored); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	close(found)
	n := 0
	for err := range found {
		n++
		if err != nil {
			t.Error(err)
		}
	}
	if n != 3 {
		t.Errorf("stored called %d times, want 3", n)
	}
}
