//go:build !linux

package testbuild

import (
	"errors"
	"io"
	"os"
	"time"
)

// NewPipe makes a pipe read through Go's poller, Stop setting a past
// deadline on its read end.
func NewPipe() (*Pipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &Pipe{w: w, stop: make(chan struct{}), ended: make(chan struct{}), read: pipeReader{f: r}}
	go func() {
		<-p.stop
		r.SetReadDeadline(time.Now())
	}()
	return p, nil
}

type pipeReader struct{ f *os.File }

func (r pipeReader) read(b []byte) (n int, empty bool, err error) {
	n, err = r.f.Read(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = io.EOF
	}
	return n, false, err
}

// wait is not called: read waits in Go's poller.
func (r pipeReader) wait(time.Duration) error { return nil }

func (r pipeReader) close() error { return r.f.Close() }
