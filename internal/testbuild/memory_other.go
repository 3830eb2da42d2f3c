//go:build !linux

package testbuild

import "errors"

// Only Linux says how much memory a process tree holds (/proc); elsewhere
// the test memory bound is not enforced.
const memoryReadable = false

func totalMemory() int64 { return 0 }

func killProcesses(pids []int) {}

// processScanner reads the process table poll after poll (on Linux).
type processScanner struct{}

func (s *processScanner) scan(roots []int, full bool) (processTable, error) {
	return nil, errors.New("the process table is read on Linux only")
}
