//go:build unix

package testbuild

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// QuietPipe is the read end of a pipe from a test process, kept out of the
// runtime's poller: it is read in batches, with a short sleep after a short
// read, so that a process writing tens of thousands of short lines (test
// events, records) does not wake faultline for each one; while it writes
// nothing, a reader waits in poll(2) and the next write wakes it. Reads
// return what the process wrote, in order, a millisecond or so late.
type QuietPipe struct {
	mu      sync.Mutex
	fd      int // -1 once closed
	reading bool
	stopped bool
	short   bool          // the last read was short: sleep before the next
	wake    chan struct{} // ends a sleep (Wake)
	timer   *time.Timer
}

const (
	quietFirst = time.Millisecond       // sleep after a short read
	quietPoll  = 100 * time.Millisecond // how long a wait for output goes without looking at Close
	quietShort = 16 << 10               // a read shorter than this is short
)

// NewQuietPipe returns a pipe's read end and its write end, the latter for
// a child process (the caller closes its copy once the child has started).
func NewQuietPipe() (*QuietPipe, *os.File, error) {
	var fds [2]int
	// Held against a fork between the pipe and close-on-exec, as os.Pipe
	// does where there is no pipe2.
	syscall.ForkLock.RLock()
	err := syscall.Pipe(fds[:])
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("creating a pipe: %w", err)
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("creating a pipe: %w", err)
	}
	return &QuietPipe{fd: fds[0], wake: make(chan struct{}, 1)}, os.NewFile(uintptr(fds[1]), "|1"), nil
}

// Wake has a Read that sleeps between batches look at the pipe at once:
// the writer has exited, say, and the end of its output need not wait.
func (p *QuietPipe) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// sleep sleeps for d or until Wake.
func (p *QuietPipe) sleep(d time.Duration) {
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	select {
	case <-p.timer.C:
	case <-p.wake:
		p.timer.Stop()
	}
}

// Read reads what the writers wrote, waiting for it; it returns io.EOF once
// every write end is closed and everything read, or once Close was called.
func (p *QuietPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	if p.fd < 0 || p.stopped {
		p.closeLocked()
		p.mu.Unlock()
		return 0, io.EOF
	}
	p.reading = true
	fd := p.fd
	p.mu.Unlock()
	n, err := p.read(fd, b)
	p.mu.Lock()
	p.reading = false
	if err != nil || p.stopped {
		p.closeLocked()
	}
	p.mu.Unlock()
	return n, err
}

func (p *QuietPipe) read(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if p.short {
		p.sleep(quietFirst)
	}
	for {
		n, err := syscall.Read(fd, b)
		switch {
		case n > 0:
			p.short = n < quietShort && n < len(b)
			return n, nil
		case err == nil:
			return 0, io.EOF
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EAGAIN):
			return 0, fmt.Errorf("reading a test process's output: %w", err)
		}
		p.mu.Lock()
		stopped := p.stopped
		p.mu.Unlock()
		if stopped {
			return 0, io.EOF
		}
		// Nothing to read: wait in poll(2) for the next write (or the
		// write ends' closing), which wakes the reader once, and then read
		// in batches again. The timeout lets Close end the wait.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(quietPoll/time.Millisecond)); err != nil && !errors.Is(err, syscall.EINTR) {
			return 0, fmt.Errorf("waiting for a test process's output: %w", err)
		}
	}
}

// Close ends reading: a Read under way returns io.EOF once it would wait
// (within quietPoll), later ones at once. What is left in the pipe is
// dropped.
func (p *QuietPipe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if !p.reading {
		p.closeLocked()
	}
	p.Wake()
	return nil
}

func (p *QuietPipe) closeLocked() {
	if p.fd >= 0 {
		syscall.Close(p.fd)
		p.fd = -1
	}
}
