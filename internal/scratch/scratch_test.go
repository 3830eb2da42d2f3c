//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package scratch

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// holderEnv makes the test binary a process that makes a directory, names
// it on standard output and waits to be killed.
const holderEnv = "SCRATCH_TEST_HOLDER"

func TestMain(m *testing.M) {
	if os.Getenv(holderEnv) != "" {
		dir, remove, err := MkdirTemp("held-")
		if err != nil {
			os.Exit(2)
		}
		// The directory is held while remove is reachable: discarded,
		// the lock file's descriptor would be closed by the collector and
		// the directory look abandoned while this process runs.
		defer remove()
		// A process group of its own, as a test process has.
		child := exec.Command("sleep", "300")
		child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if child.Start() != nil || NoteGroup(filepath.Join(dir, "bin", "x.test"), child.Process.Pid) != nil {
			os.Exit(2)
		}
		fmt.Printf("%s\n%d\n", dir, child.Process.Pid)
		// Until killed. (An empty select would end the process at once,
		// the runtime finding every goroutine asleep, and leave the
		// directory abandoned before the test looks.)
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

// A directory whose process was killed is removed; one whose process is
// running, this one's, and one that is not the package's stay.
func TestRemoveStaleRemovesOnlyAbandoned(t *testing.T) {
	root := t.TempDir()
	t.Setenv("TMPDIR", root)
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), holderEnv+"=1")
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	var abandoned string
	var group int
	if _, err := fmt.Fscan(bufio.NewReader(out), &abandoned, &group); err != nil {
		t.Fatalf("the holder named no directory: %v", err)
	}
	defer syscall.Kill(-group, syscall.SIGKILL)

	live, remove, err := MkdirTemp("live-")
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	foreign := filepath.Join(root, Prefix+"foreign")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}

	// While the holder runs, its directory is live.
	removed, err := RemoveStale()
	if err != nil || len(removed) != 0 {
		t.Fatalf("with every process running, RemoveStale removed %v (%v)", removed, err)
	}
	holder.Process.Kill()
	holder.Wait()
	removed, err = RemoveStale()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{abandoned}) {
		t.Errorf("removed %v, want [%s]", removed, abandoned)
	}
	for _, dir := range []string{live, foreign} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
	if _, err := os.Stat(abandoned); !os.IsNotExist(err) {
		t.Errorf("%s still there (%v)", abandoned, err)
	}
	// The dead holder's process group went with its directory. The
	// killed sleep may linger as a zombie until its new parent reaps it.
	for deadline := time.Now().Add(time.Minute); syscall.Kill(group, 0) == nil && !zombie(group); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the holder's process group %d still runs", group)
		}
	}
}

// zombie reports whether a process has ended and awaits its parent (Linux;
// false elsewhere).
func zombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(data, ')')
	return err == nil && i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}

// remove removes the directory, and a removed directory is no longer
// anyone's to remove.
func TestRemove(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, remove, err := MkdirTemp("x-")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != os.TempDir() || !filepath.IsAbs(dir) {
		t.Errorf("made %s outside %s", dir, os.TempDir())
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still there (%v)", dir, err)
	}
}
