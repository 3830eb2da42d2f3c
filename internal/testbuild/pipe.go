package testbuild

import (
	"io"
	"os"
	"sync"
	"time"
)

// A test process writes a line of output and a record at every test
// boundary. A reader always waiting on the pipe, as Go's poller does, is
// woken by each such write: on expr's test/gen, 43,689 subtests, that was
// 64,000 context switches of faultline for 69,000 of the test binary's. A
// Pipe's reader waits on the pipe only while it is empty, and after a read
// lets it fill for a moment (Pause), so that one read takes what many
// writes left.

// Pause is how long a Pipe's reader waits before reading again after a
// read that did not fill its buffer. What is read is late by as much; the
// pipe's 64 KiB fill in it only when the process writes more than 30 MB a
// second, and then reads fill the buffer and do not wait.
const Pause = 2 * time.Millisecond

// idleWait bounds a wait for an empty pipe to be written to or closed,
// after which Stop is looked at again.
const idleWait = 20 * time.Millisecond

// Pipe is a pipe from a test process to faultline. Its write end is for the
// process (os/exec's Stdout, Stderr or ExtraFiles) and is closed after the
// process starts; its read end is read until the end of what every writer
// wrote, or until Stop.
type Pipe struct {
	w *os.File

	stop      chan struct{}
	stopOnce  sync.Once
	ended     chan struct{}
	endedOnce sync.Once
	short     bool // the last read returned less than was asked
	read      pipeReader
}

// Writer is the pipe's write end, for the process.
func (p *Pipe) Writer() *os.File { return p.w }

// CloseWriter closes faultline's copy of the write end, once the process
// has its own: the reader then sees the end when the process's is closed.
func (p *Pipe) CloseWriter() error { return p.w.Close() }

// Finish ends the reading once the process has exited, read being closed
// by the reader when it has seen the end. What is left is read without
// pausing, since no writer is kept from running by the reads any more;
// should a process the test left running (a detached one escapes the
// process group) hold the pipe open, the reader is stopped after
// OutputGrace. Finish then closes the pipe.
func (p *Pipe) Finish(read <-chan struct{}) {
	p.endedOnce.Do(func() { close(p.ended) })
	grace := time.NewTimer(OutputGrace)
	defer grace.Stop()
	select {
	case <-read:
	case <-grace.C:
		p.Stop()
		<-read
	}
	p.Close()
}

// Stop ends reading: Read returns what the pipe holds and then io.EOF,
// even while a process (one the test left running) still holds the write
// end.
func (p *Pipe) Stop() { p.stopOnce.Do(func() { close(p.stop) }) }

// Read reads what the pipe holds, waiting first when the read before did not
// fill its buffer. An empty pipe is waited on until a write, the end, or
// Stop.
func (p *Pipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if p.short && !p.sleep(Pause) {
		p.short = false // stopped: take what is left without waiting
	}
	for {
		n, empty, err := p.read.read(b)
		if n > 0 || err != nil {
			p.short = n < len(b)
			return n, err
		}
		if !empty {
			continue
		}
		select {
		case <-p.stop:
			return 0, io.EOF
		default:
		}
		if err := p.read.wait(idleWait); err != nil {
			return 0, err
		}
	}
}

// sleep waits d, unless the process has ended, and reports false when Stop
// came first.
func (p *Pipe) sleep(d time.Duration) bool {
	select {
	case <-p.stop:
		return false
	case <-p.ended:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.stop:
		return false
	case <-p.ended:
	case <-t.C:
	}
	return true
}

// Close closes both ends; call it once reading has ended.
func (p *Pipe) Close() error {
	p.Stop()
	p.w.Close()
	return p.read.close()
}
