//go:build linux

package testbuild

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

const memoryReadable = true

// totalMemory is the machine's memory in bytes, 0 when unknown.
func totalMemory() int64 {
	var info syscall.Sysinfo_t
	if err := syscall.Sysinfo(&info); err != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}

// readProcessTable reads every process's parent, group and resident
// memory from /proc/<pid>/stat.
func readProcessTable() (processTable, error) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w", err)
	}
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w", err)
	}
	page := int64(os.Getpagesize())
	table := processTable{}
	buf := make([]byte, 1024)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		e, ok := readStat(name, buf)
		if !ok {
			continue // gone since the listing
		}
		e.resident *= page
		table[pid] = e
	}
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
