package testbuild

import (
	"fmt"
	"sync"
	"time"
)

// MaxDefaultTestMemory caps DefaultTestMemory.
const MaxDefaultTestMemory = 4 << 30

// DefaultTestMemory is the bound on a test process tree's resident memory
// when none is configured: the smaller of 4 GiB and half the machine's
// memory (on Linux, a control group's limit counts as the machine's), so
// that one test cannot bring in the system's OOM killer.
func DefaultTestMemory() int64 {
	total := totalMemory()
	if total <= 0 || total/2 > MaxDefaultTestMemory {
		return MaxDefaultTestMemory
	}
	return total / 2
}

// MemoryBoundEnforced reports whether this system lets faultline read a
// test process tree's resident memory (Linux, through /proc). Elsewhere the
// bound is not enforced.
const MemoryBoundEnforced = memoryReadable

// MemoryStop says that a test process tree was stopped for holding more
// resident memory than its bound.
type MemoryStop struct {
	Resident int64 // bytes the tree held when it was stopped
	Bound    int64 // the bound it went over, in bytes
}

// Error lets a run that the bound stopped be the error of whatever needed
// the run to end by itself (errors.As finds it).
func (s *MemoryStop) Error() string { return s.String() }

func (s *MemoryStop) String() string {
	// Rounded up: a tree stopped just past the bound never reads as
	// holding the bound itself.
	return fmt.Sprintf("was stopped holding %d MB, over the test memory bound of %d MB", (s.Resident+1<<20-1)>>20, s.Bound>>20)
}

// stoppedForMemory reports whether the memory bound stopped a test: the
// bound stopped its process, and it had not passed or been skipped by
// then. Such a test's verdict is Memory.
func (r *Result) stoppedForMemory(name string) bool {
	if r.Memory == nil {
		return false
	}
	t := r.Tests[name]
	return t == nil || t.Action != "pass" && t.Action != "skip"
}

// MemoryNote is the line that tells, in a stopped test's output, why it
// was stopped; "" when the memory bound stopped nothing.
func (r *Result) MemoryNote() string {
	if r.Memory == nil {
		return ""
	}
	return "faultline: " + r.Memory.String() + "\n"
}

// Memory polls: a tree under half its bound is read at the slow pace, one
// nearer it at the fast one, so that a test allocating quickly does not
// overshoot by much.
const (
	memoryPollSlow = 100 * time.Millisecond
	memoryPollFast = 20 * time.Millisecond
)

// memoryFullScan is how many polls pass between reads of every process:
// in between, only new processes and the watched trees are read, and a
// process that joined a watched tree other than as a new child (its
// group changed, or it was reparented) is seen at the next full read.
const memoryFullScan = 10

// memoryWatch bounds the resident memory of a module's running test
// process trees. One goroutine reads the process table for all of them,
// so the cost of a poll does not grow with the tests running at once.
type memoryWatch struct {
	mu      sync.Mutex
	watched map[*Process]int64 // the bound of each running process's tree
	polling bool
}

// add starts bounding p's process tree.
func (w *memoryWatch) add(p *Process, bound int64) {
	if !memoryReadable || bound <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched == nil {
		w.watched = map[*Process]int64{}
	}
	w.watched[p] = bound
	if !w.polling {
		w.polling = true
		go w.poll()
	}
}

// remove stops bounding p's process tree, reporting whether it was still
// bounded: once Wait has removed it, its process is gone and its id may
// be another's.
func (w *memoryWatch) remove(p *Process) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.watched[p]
	delete(w.watched, p)
	return ok
}

// poll reads the process trees until none is left to watch.
func (w *memoryWatch) poll() {
	interval := memoryPollSlow
	var scanner processScanner
	for polls := 1; ; polls++ {
		time.Sleep(interval)
		w.mu.Lock()
		if len(w.watched) == 0 {
			w.polling = false
			w.mu.Unlock()
			return
		}
		watched := make(map[*Process]int64, len(w.watched))
		for p, bound := range w.watched {
			watched[p] = bound
		}
		w.mu.Unlock()
		interval = memoryPollSlow
		var roots []int
		for p := range watched {
			roots = append(roots, p.Pid())
		}
		table, err := scanner.scan(roots, polls%memoryFullScan == 0)
		if err != nil {
			continue
		}
		for p, bound := range watched {
			select {
			case <-p.read:
				w.remove(p) // its output ended: the process is gone or going
				continue
			default:
			}
			tree, rss := table.tree(p.Pid())
			switch {
			case rss > bound:
				if w.remove(p) {
					p.stopForMemory(MemoryStop{Resident: rss, Bound: bound}, tree)
				}
			case rss > bound/2:
				interval = memoryPollFast
			}
		}
	}
}

// stopForMemory records why and kills the process tree: its group, and
// the descendants that left the group (a child started in a session of
// its own), by the ids just read.
func (p *Process) stopForMemory(s MemoryStop, tree []int) {
	p.mu.Lock()
	if p.memory == nil {
		p.memory = &s
	}
	p.mu.Unlock()
	p.Kill()
	killProcesses(tree)
}

// processEntry is one process in a processTable.
type processEntry struct {
	ppid, pgrp int
	resident   int64 // bytes
}

// processTable is a snapshot of the system's processes.
type processTable map[int]processEntry

// tree lists root, its descendants and the members of its process group
// (a test's children that a dead parent left behind), with the sum of
// their resident memory.
func (t processTable) tree(root int) ([]int, int64) {
	children := map[int][]int{}
	var queue []int
	for pid, e := range t {
		children[e.ppid] = append(children[e.ppid], pid)
		if e.pgrp == root && pid != root {
			queue = append(queue, pid)
		}
	}
	if _, ok := t[root]; ok {
		queue = append(queue, root)
	}
	seen := map[int]bool{}
	var pids []int
	var total int64
	for len(queue) > 0 {
		pid := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		pids = append(pids, pid)
		total += t[pid].resident
		queue = append(queue, children[pid]...)
	}
	return pids, total
}
