package testbuild

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// errStopped ends the reading of a stopped pipe: to its reader, the end of
// what the pipe will give.
var errStopped = io.EOF

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
	return &Pipe{w: os.NewFile(uintptr(fds[1]), "|1"), stop: make(chan struct{}), read: pipeReader{fd: fds[0]}}, nil
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

func (r pipeReader) close() error { return syscall.Close(r.fd) }
