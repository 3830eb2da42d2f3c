package spectra

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/faultline-go/faultline/internal/fulldisk"
)

// storeIn is a store at dir/spectra.db that records its warnings.
func storeIn(dir string, warnings *[]string) *store {
	return &store{path: filepath.Join(dir, "spectra.db"), warn: func(msg string) { *warnings = append(*warnings, msg) }}
}

// noop is a transaction that reads or writes nothing.
func noop(*bolt.Tx) error { return nil }

// assertReportedAsIs checks that a store that could not be opened for a
// system error reported it as it is and moved nothing aside.
func assertReportedAsIs(t *testing.T, s *store, err error, warnings []string) {
	t.Helper()
	if err == nil || errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		t.Errorf("opening on a full disk: %v, want the disk's error and no corruption", err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
	if _, err := os.Stat(s.path + ".corrupt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a store was moved aside: %v", err)
	}
}

// A new store on a full disk (its file opened on /dev/full, where every
// write fails with ENOSPC) reports the disk's error and moves nothing
// aside: it is not corrupt.
func TestStoreOnAFullDisk(t *testing.T) {
	var warnings []string
	s := storeOnDevFull(t, &warnings)
	assertReportedAsIs(t, s, s.transact(true, noop), warnings)
}

// storeOnDevFull is a store whose file is opened on /dev/full.
func storeOnDevFull(t *testing.T, warnings *[]string) *store {
	t.Helper()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	s := storeIn(t.TempDir(), warnings)
	s.openFile = func(_ string, flag int, perm os.FileMode) (*os.File, error) {
		return os.OpenFile("/dev/full", flag&^os.O_CREATE, perm)
	}
	return s
}

// The same on a real full disk (a tmpfs filled to the last byte, as root):
// the error is reported, nothing is moved aside, and once space is freed
// the store is created where it was.
func TestStoreOnAFullTmpfs(t *testing.T) {
	dir, filler := fulldisk.Mount(t, "1m")
	var warnings []string
	s := storeIn(dir, &warnings)
	assertReportedAsIs(t, s, s.transact(true, noop), warnings)
	// A reader finds an empty store, not an error, in what is left.
	if err := s.transact(false, func(tx *bolt.Tx) error {
		if tx != nil {
			t.Error("a store that was never created has a transaction")
		}
		return nil
	}); err != nil {
		t.Errorf("reading the store that was never created: %v", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.transact(true, noop); err != nil || len(warnings) > 0 {
		t.Errorf("the store once space is freed: %v, warnings %q", err, warnings)
	}
}

// A file that is no bbolt store fails bbolt's integrity check: it is
// moved aside and a new store is made.
func TestCorruptStoreIsMovedAside(t *testing.T) {
	var warnings []string
	s := storeIn(t.TempDir(), &warnings)
	if err := os.WriteFile(s.path, []byte(strings.Repeat("not a database ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.transact(true, noop); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "corrupt") || !strings.Contains(warnings[0], "invalid database") {
		t.Errorf("warnings: %q", warnings)
	}
	if data, err := os.ReadFile(s.path + ".corrupt"); err != nil || !strings.HasPrefix(string(data), "not a database") {
		t.Errorf("the corrupt store was not kept aside: %v", err)
	}
}

// forget drops the packages that no longer exist, and leaves the store's
// file as it is when there are none: a collection that changes nothing
// writes nothing.
func TestForgetWritesOnlyToDrop(t *testing.T) {
	var warnings []string
	s := storeIn(t.TempDir(), &warnings)
	w := newStoreWriter(s)
	for _, p := range []string{"m/a", "m/b"} {
		if err := w.putResult(&storedPackage{Package: p, Key: "k " + p, Collected: time.Now()}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.forget(map[string]bool{"m/a": true, "m/b": true}); err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadFile(s.path); err != nil || !bytes.Equal(before, after) {
		t.Errorf("forgetting nothing changed the store's file (%v)", err)
	}
	if err := s.forget(map[string]bool{"m/a": true}); err != nil {
		t.Fatal(err)
	}
	st, err := s.current()
	if err != nil || len(st.Packages) != 1 || st.Packages["m/a"] == "" {
		t.Errorf("current packages %v, %v, want m/a alone", st.Packages, err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
}
