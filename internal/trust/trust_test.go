package trust

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func newStore(t *testing.T) *Store {
	return At(filepath.Join(t.TempDir(), "config", "faultline", fileName))
}

func mkdir(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAddTrustedRemove(t *testing.T) {
	s := newStore(t)
	base := t.TempDir()
	mod := mkdir(t, filepath.Join(base, "mod"))
	other := mkdir(t, filepath.Join(base, "other"))
	link := filepath.Join(base, "link")
	if err := os.Symlink(mod, link); err != nil {
		t.Fatal(err)
	}

	if ok, err := s.Trusted(mod); ok || err != nil {
		t.Fatalf("Trusted before any Add (no file): %v, %v", ok, err)
	}
	if _, err := s.Add(link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{mod, link, mod + "/."} {
		if ok, err := s.Trusted(dir); !ok || err != nil {
			t.Errorf("Trusted(%s) after Add(link): %v, %v", dir, ok, err)
		}
	}
	if ok, _ := s.Trusted(other); ok {
		t.Errorf("a module never added is trusted")
	}
	if ok, _ := s.Trusted(base); ok {
		t.Errorf("the parent of a trusted module is trusted")
	}
	first, _ := s.Add(mod)
	mods, err := s.List()
	if err != nil || len(mods) != 1 || mods[0] != first {
		t.Fatalf("List after adding one module twice: %+v, %v", mods, err)
	}
	if info, err := os.Stat(s.Path()); err != nil || info.Mode().Perm()&0o077 != 0 {
		t.Errorf("list file mode %v (%v): others may not write or read it", info.Mode(), err)
	}

	// Revoking a module that was deleted since still works.
	if err := os.RemoveAll(mod); err != nil {
		t.Fatal(err)
	}
	if removed, err := s.Remove(first.Root); !removed || err != nil {
		t.Fatalf("Remove of a deleted module: %v, %v", removed, err)
	}
	if removed, err := s.Remove(other); removed || err != nil {
		t.Fatalf("Remove of a module never added: %v, %v", removed, err)
	}
	if mods, _ := s.List(); len(mods) != 0 {
		t.Errorf("list after Remove: %+v", mods)
	}
}

// TestCorruptList: whatever is wrong with the file, nothing is trusted, the
// error names the file, and no write replaces what the user may want back.
func TestCorruptList(t *testing.T) {
	mod := t.TempDir()
	root, _ := Key(mod)
	valid := fmt.Sprintf(`{"version": 1, "modules": [{"root": %q, "added": "2026-01-02T03:04:05Z"}]}`, root)
	cases := map[string]string{
		"empty":            "",
		"truncated":        valid[:len(valid)/2],
		"not JSON":         "/home/me/src/project\n",
		"a bare array":     fmt.Sprintf(`[%q]`, root),
		"another version":  strings.Replace(valid, `"version": 1`, `"version": 2`, 1),
		"no version":       strings.Replace(valid, `"version": 1,`, ``, 1),
		"an unknown field": strings.Replace(valid, `"version": 1`, `"version": 1, "trustEverything": true`, 1),
		"a relative root":  strings.Replace(valid, root, "src/project", 1),
		"an unclean root":  strings.Replace(valid, root, root+"/../"+filepath.Base(root), 1),
		"trailing data":    valid + `{"version": 1}`,
		"a huge file":      valid + strings.Repeat(" ", maxSize),
		"binary":           "\x00\xff\xfe\x01",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			mkdir(t, filepath.Dir(s.Path()))
			if err := os.WriteFile(s.Path(), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			ok, err := s.Trusted(mod)
			if ok || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), s.Path()) {
				t.Errorf("Trusted: %v, %v; want false and an ErrCorrupt naming the file", ok, err)
			}
			if mods, err := s.List(); len(mods) != 0 || !errors.Is(err, ErrCorrupt) {
				t.Errorf("List: %v, %v", mods, err)
			}
			if _, err := s.Add(mod); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Add over a corrupt list: %v, want ErrCorrupt", err)
			}
			if _, err := s.Remove(mod); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Remove from a corrupt list: %v, want ErrCorrupt", err)
			}
			if got, _ := os.ReadFile(s.Path()); string(got) != content {
				t.Errorf("the corrupt list was rewritten")
			}
		})
	}
	t.Run("valid", func(t *testing.T) {
		s := newStore(t)
		mkdir(t, filepath.Dir(s.Path()))
		os.WriteFile(s.Path(), []byte(valid), 0o600)
		if ok, err := s.Trusted(mod); !ok || err != nil {
			t.Errorf("a valid list written by hand: %v, %v", ok, err)
		}
	})
}

// TestConcurrentWriters: processes adding and removing modules at once lose
// none of each other's entries, and readers meanwhile always see a whole
// list.
func TestConcurrentWriters(t *testing.T) {
	if os.Getenv("TRUST_TEST_WRITER") != "" {
		return // a child below, not the test itself
	}
	s := newStore(t)
	base := t.TempDir()
	const writers, each = 6, 8
	var roots [][]string
	for w := range writers {
		var mine []string
		for i := range each {
			mine = append(mine, mkdir(t, filepath.Join(base, fmt.Sprintf("w%d-m%d", w, i))))
		}
		roots = append(roots, mine)
	}
	// One module each writer adds and later revokes, to mix both writes.
	revoked := mkdir(t, filepath.Join(base, "revoked"))

	var stop atomic.Bool
	var reads atomic.Int64
	readErr := make(chan error, 1)
	go func() {
		for !stop.Load() {
			if _, err := s.List(); err != nil {
				readErr <- err
				return
			}
			reads.Add(1)
		}
		readErr <- nil
	}()

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"-test.run=^TestWriterProcess$"}, roots[w]...)
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "TRUST_TEST_WRITER="+s.Path(), "TRUST_TEST_REVOKED="+revoked)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %d: %v\n%s", w, err, out)
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := <-readErr; err != nil {
		t.Fatalf("a reader saw a partial list while writers wrote: %v", err)
	}
	mods, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != writers*each {
		t.Errorf("%d modules in the list, want %d: concurrent writers lost entries", len(mods), writers*each)
	}
	for _, mine := range roots {
		for _, r := range mine {
			if ok, _ := s.Trusted(r); !ok {
				t.Errorf("%s missing", r)
			}
		}
	}
	t.Logf("%d whole reads during the writes", reads.Load())
}

// TestWriterProcess is one writer of TestConcurrentWriters, run as its own
// process: it adds each module root given as an argument, adding and
// revoking a shared one in between.
func TestWriterProcess(t *testing.T) {
	path := os.Getenv("TRUST_TEST_WRITER")
	if path == "" {
		t.Skip("run by TestConcurrentWriters")
	}
	s := At(path)
	args := os.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-test.") {
		args = args[1:]
	}
	for _, root := range args {
		if _, err := s.Add(root); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Add(os.Getenv("TRUST_TEST_REVOKED")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Remove(os.Getenv("TRUST_TEST_REVOKED")); err != nil {
			t.Fatal(err)
		}
	}
}

func TestModuleRoot(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "a", "b"))
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	if got, err := ModuleRoot(filepath.Join(dir, "a", "b")); err != nil || got != dir {
		t.Errorf("ModuleRoot below go.mod: %q, %v", got, err)
	}
	if _, err := ModuleRoot(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("ModuleRoot of a missing directory succeeded")
	}
}
