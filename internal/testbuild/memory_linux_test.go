//go:build linux

package testbuild

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
