//go:build linux

package testbuild

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The default bound sees a container's memory limit, in cgroup v1 and v2.
func TestCgroupMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		name   string
		cgroup string // /proc/self/cgroup
		limits string // files under /sys/fs/cgroup, as "path=content" separated by spaces
		want   int64
	}{
		{"v2, the group's own", "0::/box", "box/memory.max=2147483648 memory.max=max", 2 << 30},
		{"v2 without a limit", "0::/box", "box/memory.max=max", 0},
		{"v2 in a namespace: the root's", "0::/elsewhere", "memory.max=1073741824", 1 << 30},
		{"v1", "5:cpu,cpuacct:/\n4:memory:/box\n0::/", "memory/box/memory.limit_in_bytes=536870912", 512 << 20},
		{"v1 without a limit", "4:memory:/box", "memory/box/memory.limit_in_bytes=9223372036854771712", 0},
		{"no control group", "", "", 0},
	} {
		root := t.TempDir()
		files := map[string]string{}
		if c.cgroup != "" {
			files["proc/self/cgroup"] = c.cgroup + "\n"
		}
		for _, f := range strings.Fields(c.limits) {
			path, text, _ := strings.Cut(f, "=")
			files[filepath.Join("sys/fs/cgroup", path)] = text + "\n"
		}
		for name, text := range files {
			path := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := cgroupMemoryLimit(root); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// A child in a session of its own leaves the test's process group but not
// its tree: its memory counts, and it is killed with the test.
func TestMemoryBoundKillsDetachedChild(t *testing.T) {
	m, bin := hoardingBinary(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	out, err := m.RunTest(context.Background(), bin, "TestDetachedChildHoards", 20*time.Second, []string{"HOARD_PID_FILE=" + pidFile})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Memory {
		t.Errorf("verdict %s, want memory\n%s", out.Verdict, out.Output)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	// A killed orphan is reaped by init soon after; left alive, the child
	// would wait 10 s after its parent died.
	for deadline := time.Now().Add(3 * time.Second); running(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the detached child %d outlived its test", pid)
		}
	}
}

// running reports whether a process exists and is not a zombie.
func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// Between full reads, a poll reads only the processes that are new and the
// members of the watched trees, and still sees a new child's memory.
func TestProcessScannerReadsWatchedTrees(t *testing.T) {
	procs := map[int]processEntry{
		1:  {ppid: 0, pgrp: 1, resident: 1},
		10: {ppid: 1, pgrp: 10, resident: 2}, // the watched test process
		11: {ppid: 10, pgrp: 10, resident: 4},
	}
	for pid := 100; pid < 400; pid++ { // the rest of a busy machine
		procs[pid] = processEntry{ppid: 1, pgrp: pid, resident: 8}
	}
	var reads []int
	s := processScanner{
		list: func() ([]string, error) {
			var names []string
			for pid := range procs {
				names = append(names, strconv.Itoa(pid))
			}
			return append(names, "self", "meminfo"), nil
		},
		stat: func(name string, _ []byte) (processEntry, bool) {
			pid, _ := strconv.Atoi(name)
			reads = append(reads, pid)
			e, ok := procs[pid]
			return e, ok
		},
	}
	page := int64(os.Getpagesize())
	if _, err := s.scan([]int{10}, false); err != nil {
		t.Fatal(err)
	}
	if len(reads) != len(procs) {
		t.Fatalf("the first scan read %d processes, want all %d", len(reads), len(procs))
	}
	reads = nil
	procs[12] = processEntry{ppid: 11, pgrp: 12, resident: 16} // a new grandchild
	procs[11] = processEntry{ppid: 10, pgrp: 10, resident: 32} // grown
	delete(procs, 150)                                         // gone
	table, err := s.scan([]int{10}, false)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(reads)
	if want := []int{10, 11, 12}; !slices.Equal(reads, want) {
		t.Errorf("a poll read processes %v, want only the tree and the new process %v", reads, want)
	}
	if _, rss := table.tree(10); rss != (2+32+16)*page {
		t.Errorf("the tree holds %d bytes, want %d", rss, (2+32+16)*page)
	}
	if _, ok := table[150]; ok {
		t.Error("a process gone from /proc is still in the table")
	}
	reads = nil
	if _, err := s.scan([]int{10}, true); err != nil {
		t.Fatal(err)
	}
	if len(reads) != len(procs) {
		t.Errorf("a full scan read %d processes, want all %d", len(reads), len(procs))
	}
}
