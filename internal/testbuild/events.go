package testbuild

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Verdict is the outcome of one test.
type Verdict string

const (
	Pass       Verdict = "pass"
	Fail       Verdict = "fail"
	Skip       Verdict = "skip"
	Timeout    Verdict = "timeout"
	Panic      Verdict = "panic" // panicked, called os.Exit, or the runtime aborted
	BuildError Verdict = "build error"
	// Memory: stopped for holding more memory than the test memory bound.
	Memory Verdict = "memory"
)

// Failing reports whether the verdict counts as a failing run.
func (v Verdict) Failing() bool { return v == Fail || v == Timeout || v == Panic }

// Counted reports whether the verdict is evidence at all: skipped tests and
// tests whose binary did not build carry none, and neither do tests stopped
// by the memory bound, which is the machine's and the user's choice, not
// the code's: the same test passes under a larger bound, and its run was
// cut at an arbitrary point.
func (v Verdict) Counted() bool { return v == Pass || v.Failing() }

// Output bounds: a test's output keeps its head, where a failure's first
// message usually is, and its tail, where its last messages and any trace
// are; a test printing gigabytes costs no more memory than this.
const (
	outputHead = 16 << 10
	outputTail = 48 << 10
)

// TestEvents is what test2json said about one test.
type TestEvents struct {
	Name    string
	Action  string // "pass", "fail", "skip", or "" when the test never ended
	Elapsed time.Duration
	output  boundedText
}

// Output returns what the test printed (framing lines such as "=== RUN"
// left out), bounded to its head and tail.
func (t *TestEvents) Output() string { return t.output.String() }

// boundedText keeps the first outputHead and the last outputTail bytes
// written to it.
type boundedText struct {
	head    []byte
	tail    []byte
	omitted int64
}

func (b *boundedText) write(s string) {
	if n := outputHead - len(b.head); n > 0 {
		if n > len(s) {
			n = len(s)
		}
		b.head = append(b.head, s[:n]...)
		s = s[n:]
	}
	if s == "" {
		return
	}
	b.tail = append(b.tail, s...)
	// Trimmed in batches, so appending stays linear in the text written.
	if len(b.tail) > 2*outputTail {
		cut := len(b.tail) - outputTail
		b.omitted += int64(cut)
		b.tail = append(b.tail[:0], b.tail[cut:]...)
	}
}

func (b *boundedText) String() string {
	tail := b.tail
	omitted := b.omitted
	if len(tail) > outputTail {
		omitted += int64(len(tail) - outputTail)
		tail = tail[len(tail)-outputTail:]
	}
	if omitted == 0 {
		return string(b.head) + string(tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes of output omitted ...]\n%s", b.head, omitted, tail)
}

// eventReader gathers the events of a test process as they arrive.
type eventReader struct {
	mu      sync.Mutex
	tests   map[string]*TestEvents // by name; "" is output outside any test
	order   []string               // names in the order they first appeared
	onEvent func(Event)
}

// Event is one test2json event.
type Event struct {
	Action  string
	Test    string
	Elapsed float64
	Output  string
}

func newEventReader(onEvent func(Event)) *eventReader {
	return &eventReader{tests: map[string]*TestEvents{"": {}}, onEvent: onEvent}
}

func (r *eventReader) event(ev Event) {
	r.mu.Lock()
	t := r.tests[ev.Test]
	if t == nil {
		t = &TestEvents{Name: ev.Test}
		r.tests[ev.Test] = t
		r.order = append(r.order, ev.Test)
	}
	switch ev.Action {
	case "output":
		if !strings.HasPrefix(ev.Output, "=== ") && !strings.HasPrefix(ev.Output, "--- ") {
			t.output.write(ev.Output)
		}
	case "pass", "fail", "skip":
		t.Action = ev.Action
		t.Elapsed = time.Duration(ev.Elapsed * float64(time.Second))
	}
	r.mu.Unlock()
	if r.onEvent != nil {
		r.onEvent(ev)
	}
}

// frameMarker starts each framing line (=== RUN, --- PASS, ...) a test
// binary run with -test.v=test2json prints.
const frameMarker = 0x16

// lineStarts passes a test binary's output on to test2json, starting every
// framing line on a line of its own. test2json reads in 4 KB pieces and,
// when a piece ends exactly where a framing line begins in the middle of a
// longer line (output without a final newline whose length is a multiple of
// 4 KB), takes the framing line for more of that line: the test's pass or
// fail event is lost. A test's output lacking a final newline gains one.
type lineStarts struct {
	w       io.Writer
	midLine bool // the last byte passed on was not a newline
}

func (l *lineStarts) Write(b []byte) (int, error) {
	n := len(b)
	from := 0 // where to look for the next marker
	for {
		i := bytes.IndexByte(b[from:], frameMarker)
		if i < 0 {
			break
		}
		i += from
		midLine := l.midLine
		if i > 0 {
			midLine = b[i-1] != '\n'
		}
		if !midLine {
			from = i + 1
			continue
		}
		if i > 0 {
			if _, err := l.w.Write(b[:i]); err != nil {
				return 0, err
			}
		}
		if _, err := l.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
		b, from = b[i:], 1
	}
	if len(b) > 0 {
		if _, err := l.w.Write(b); err != nil {
			return 0, err
		}
		l.midLine = b[len(b)-1] != '\n'
	}
	return n, nil
}
