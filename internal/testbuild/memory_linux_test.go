//go:build linux

package testbuild

import (
	"os"
	"path/filepath"
	"testing"
)

// The default bound sees a container's memory limit, in cgroup v1 and v2.
func TestCgroupMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"v2, the group's own", map[string]string{
			"proc/self/cgroup":             "0::/box\n",
			"sys/fs/cgroup/box/memory.max": "2147483648\n",
			"sys/fs/cgroup/memory.max":     "max\n",
		}, 2 << 30},
		{"v2 without a limit", map[string]string{
			"proc/self/cgroup":             "0::/box\n",
			"sys/fs/cgroup/box/memory.max": "max\n",
		}, 0},
		{"v2 in a namespace: the root's", map[string]string{
			"proc/self/cgroup":         "0::/elsewhere\n",
			"sys/fs/cgroup/memory.max": "1073741824\n",
		}, 1 << 30},
		{"v1", map[string]string{
			"proc/self/cgroup": "5:cpu,cpuacct:/\n4:memory:/box\n0::/\n",
			"sys/fs/cgroup/memory/box/memory.limit_in_bytes": "536870912\n",
		}, 512 << 20},
		{"v1 without a limit", map[string]string{
			"proc/self/cgroup": "4:memory:/box\n",
			"sys/fs/cgroup/memory/box/memory.limit_in_bytes": "9223372036854771712\n",
		}, 0},
		{"no cgroup file", map[string]string{}, 0},
	} {
		root := t.TempDir()
		for name, text := range c.files {
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
