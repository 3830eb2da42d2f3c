package testbuild

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// NewPipe makes a pipe whose read end is polled by Read, not registered
// with Go's poller.
func NewPipe() (*Pipe, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("creating a pipe: %w", err)
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, fmt.Errorf("creating a pipe: %w", err)
	}
	// The write end is blocking: os.NewFile leaves it out of the poller,
	// and the process writes to it as to any pipe.
	return &Pipe{w: os.NewFile(uintptr(fds[1]), "|1"), stop: make(chan struct{}), ended: make(chan struct{}), read: pipeReader{fd: fds[0]}}, nil
}

type pipeReader struct{ fd int }

// read reads once; empty reports that nothing was there to read yet.
func (r pipeReader) read(b []byte) (n int, empty bool, err error) {
	for {
		n, err := syscall.Read(r.fd, b)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return 0, true, nil
		case err != nil:
			return 0, false, fmt.Errorf("reading a test process's pipe: %w", err)
		case n == 0 && len(b) > 0:
			return 0, false, io.EOF
		}
		return n, false, nil
	}
}

// wait waits at most d for the pipe to be written to or closed. It polls
// the descriptor only while the pipe is empty: a reader waiting on the pipe
// is woken by every write, and one not waiting is not.
func (r pipeReader) wait(d time.Duration) error {
	fds := []unix.PollFd{{Fd: int32(r.fd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, int(d/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("waiting on a test process's pipe: %w", err)
		}
		return nil
	}
}

func (r pipeReader) close() error { return syscall.Close(r.fd) }
