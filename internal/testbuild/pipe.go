package testbuild

import (
	"os"
	"sync"
	"time"
)

// A test process writes a line of output and a record at every test
// boundary. A pipe read through Go's poller wakes faultline at each such
// write (Linux wakes a polled pipe's waiters on every write): on expr's
// test/gen, 43,689 subtests, that was 64,000 context switches of faultline
// for 69,000 of the test binary's. A Pipe is read without the poller, a
// moment after the last read (Pause), so that one read takes what many
// writes left.

// Pause is how long a Pipe's reader waits before reading again after a
// read that did not fill its buffer. What is read is late by as much; the
// pipe's 64 KiB fill in it only when the process writes more than 30 MB a
// second, and then reads fill the buffer and do not wait.
const Pause = 2 * time.Millisecond

// maxIdlePause bounds the wait between reads of an empty pipe, which
// doubles from Pause while the pipe stays empty.
const maxIdlePause = 32 * time.Millisecond

// Pipe is a pipe from a test process to faultline. Its write end is for the
// process (os/exec's Stdout, Stderr or ExtraFiles) and is closed after the
// process starts; its read end is read until the end of what every writer
// wrote, or until Stop.
type Pipe struct {
	w *os.File

	stop     chan struct{}
	stopOnce sync.Once
	short    bool // the last read returned less than was asked
	read     pipeReader
}

// Writer is the pipe's write end, for the process.
func (p *Pipe) Writer() *os.File { return p.w }

// CloseWriter closes faultline's copy of the write end, once the process
// has its own: the reader then sees the end when the process's is closed.
func (p *Pipe) CloseWriter() error { return p.w.Close() }

// Stop ends reading: Read returns what the pipe holds and then io.EOF,
// even while a process (one the test left running) still holds the write
// end.
func (p *Pipe) Stop() { p.stopOnce.Do(func() { close(p.stop) }) }

// Read reads what the pipe holds, waiting first when the read before did not
// fill its buffer.
func (p *Pipe) Read(b []byte) (int, error) {
	if p.short && !p.sleep(Pause) {
		p.short = false // stopped: take what is left without waiting
	}
	idle := Pause
	for {
		n, empty, err := p.read.read(b)
		if n > 0 || err != nil {
			p.short = n < len(b)
			return n, err
		}
		if !empty {
			continue
		}
		if !p.sleep(idle) {
			if n, _, err := p.read.read(b); n > 0 {
				return n, err
			}
			return 0, errStopped
		}
		idle = min(2*idle, maxIdlePause)
	}
}

// sleep waits d, and reports false when Stop came first.
func (p *Pipe) sleep(d time.Duration) bool {
	select {
	case <-p.stop:
		return false
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.stop:
		return false
	case <-t.C:
		return true
	}
}

// Close closes both ends; call it once reading has ended.
func (p *Pipe) Close() error {
	p.Stop()
	p.w.Close()
	return p.read.close()
}
