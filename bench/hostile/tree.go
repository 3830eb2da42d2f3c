//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/internal/scratch"
)

// outcome is one bounded run.
type outcome struct {
	elapsed  time.Duration
	timedOut bool
	exitCode int    // -1 for a signal
	maxRSS   int64  // bytes: the largest single process that was waited for
	treeRSS  int64  // bytes: the largest sampled sum over the process tree
	output   []byte // standard output and error, interleaved
}

func (o outcome) wall() string {
	if o.timedOut {
		return fmt.Sprintf("> %.0f s (killed)", o.elapsed.Seconds())
	}
	return fmt.Sprintf("%.1f s", o.elapsed.Seconds())
}

// run runs name args in dir, sampling the memory of its process tree, and
// kills the tree after timeout.
func run(dir string, env []string, timeout time.Duration, name string, args ...string) (outcome, error) {
	var out outcome
	var buf strings.Builder
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second // a detached child may hold the output
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return out, err
	}
	ctx, stop := context.WithCancel(context.Background())
	sampled := make(chan int64, 1)
	tree := map[int]string{} // pid: start time
	go func() {
		var peak int64
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(timeout)
		for {
			members, rss := processTree(cmd.Process.Pid)
			for pid, start := range members {
				tree[pid] = start
			}
			peak = max(peak, rss)
			select {
			case <-ctx.Done():
				sampled <- peak
				return
			case <-deadline:
				out.timedOut = true
				killTree(tree)
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	out.elapsed = time.Since(start)
	stop()
	out.treeRSS = <-sampled
	// The tree's stragglers (a killed faultline's test processes) go too.
	delete(tree, cmd.Process.Pid)
	killTree(tree)
	out.output = []byte(buf.String())
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) && !errors.Is(err, exec.ErrWaitDelay) {
		return out, err
	}
	out.exitCode = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		out.maxRSS = ru.Maxrss << 10 // kilobytes on Linux
	}
	return out, nil
}

// processTree returns the processes descending from root, root included,
// with their start times, and the sum of their resident memory.
func processTree(root int) (map[int]string, int64) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, 0
	}
	children := map[int][]int{}
	started := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the parenthesized command: state, then ppid.
		i := strings.LastIndexByte(string(data), ')')
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil && len(fields) > 19 {
			children[ppid] = append(children[ppid], pid)
			started[pid] = fields[19]
		}
	}
	members := map[int]string{}
	var rss int64
	page := int64(os.Getpagesize())
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		members[pid] = started[pid]
		queue = append(queue, children[pid]...)
		if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm"); err == nil {
			if f := strings.Fields(string(data)); len(f) > 1 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				rss += n * page
			}
		}
	}
	return members, rss
}

// killTree kills the processes of tree that still run, those whose start
// time is the recorded one: a pid may have been reused since.
func killTree(tree map[int]string) {
	for pid, start := range tree {
		if scratch.StartTime(pid) == start {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// killRecorded kills the processes the module's tests left behind, listed
// in the file path.
func killRecorded(path, dir string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		pid, err := strconv.Atoi(strings.TrimSpace(lines.Text()))
		if err != nil {
			continue
		}
		// The pid is the module's process only while it works in the
		// module's directory.
		if cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); err == nil && strings.HasPrefix(cwd, dir) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
