//go:build linux

package testbuild

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

const memoryReadable = true

// totalMemory is the machine's memory in bytes, 0 when unknown: the
// smaller of the system's and the memory limit of faultline's control
// group, which is the machine a container sees.
func totalMemory() int64 {
	var info syscall.Sysinfo_t
	if err := syscall.Sysinfo(&info); err != nil {
		return 0
	}
	total := int64(info.Totalram) * int64(info.Unit)
	if limit := cgroupMemoryLimit("/"); limit > 0 && limit < total {
		return limit
	}
	return total
}

// cgroupMemoryLimit reads the memory limit of this process's control group
// from the file system under root (cgroup v2's memory.max, or v1's
// memory.limit_in_bytes); 0 when there is none or it cannot be read.
func cgroupMemoryLimit(root string) int64 {
	data, err := os.ReadFile(filepath.Join(root, "proc", "self", "cgroup"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controllers:path; v2's controllers are empty.
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, file string
		switch {
		case parts[1] == "":
			dir, file = filepath.Join(root, "sys", "fs", "cgroup"), "memory.max"
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			dir, file = filepath.Join(root, "sys", "fs", "cgroup", "memory"), "memory.limit_in_bytes"
		default:
			continue
		}
		// The group's own file, or the root's where the group's path is
		// that of another namespace.
		for _, path := range []string{filepath.Join(dir, parts[2], file), filepath.Join(dir, file)} {
			text, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			limit, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
			// "max", or v1's page-rounded maximum: no limit.
			if err != nil || limit <= 0 || limit >= 1<<62 {
				return 0
			}
			return limit
		}
	}
	return 0
}

// killProcesses kills each process by its id.
func killProcesses(pids []int) {
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// processScanner reads the process table poll after poll, reading again only
// what can have changed for the trees it watches: the stat of every process
// new since the last poll (a new child shows its parent there) and of
// every member of a watched tree (their memory). Reading every process of
// a busy machine ten times a second cost a collection of expr about a
// second of CPU.
type processScanner struct {
	known processTable // every process seen, as last read
	buf   []byte
	// list and stat read /proc when nil (tests set them).
	list func() ([]string, error)
	stat func(pid string, buf []byte) (processEntry, bool)
}

// listProc lists the entries of /proc, the processes among them.
func listProc() ([]string, error) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w", err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w", err)
	}
	return names, nil
}

// scan returns the process table, fresh for the trees of roots and for
// processes new since the last scan; with full, or on the first scan, every
// process is read again (what an older process changed, its parent or group,
// shows then).
func (s *processScanner) scan(roots []int, full bool) (processTable, error) {
	list, stat := s.list, s.stat
	if list == nil {
		list, stat = listProc, readStat
	}
	names, err := list()
	if err != nil {
		return nil, err
	}
	if s.known == nil {
		full = true
	}
	stale := map[int]bool{}
	if !full {
		for _, root := range roots {
			tree, _ := s.known.tree(root)
			for _, pid := range tree {
				stale[pid] = true
			}
		}
	}
	if s.buf == nil {
		s.buf = make([]byte, 1024)
	}
	page := int64(os.Getpagesize())
	table := processTable{}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if e, ok := s.known[pid]; ok && !full && !stale[pid] {
			table[pid] = e
			continue
		}
		e, ok := stat(name, s.buf)
		if !ok {
			continue // gone since the listing
		}
		e.resident *= page
		table[pid] = e
	}
	s.known = table
	return table, nil
}

// readStat parses the ppid, pgrp and rss (in pages) fields of one
// /proc/<pid>/stat.
func readStat(pid string, buf []byte) (processEntry, bool) {
	f, err := os.Open("/proc/" + pid + "/stat")
	if err != nil {
		return processEntry{}, false
	}
	n, _ := f.Read(buf)
	f.Close()
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields follow its last ')'.
	line := buf[:n]
	i := bytes.LastIndexByte(line, ')')
	if i < 0 {
		return processEntry{}, false
	}
	fields := bytes.Fields(line[i+1:])
	// state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice num_threads
	// itrealvalue starttime vsize rss
	if len(fields) < 22 {
		return processEntry{}, false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	pgrp, err2 := strconv.Atoi(string(fields[2]))
	rss, err3 := strconv.ParseInt(string(fields[21]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return processEntry{}, false
	}
	return processEntry{ppid: ppid, pgrp: pgrp, resident: rss}, true
}
