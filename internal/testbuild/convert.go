package testbuild

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// converter turns the output of a test binary run with -test.v=test2json
// into the events go tool test2json -t would make of it, in faultline's own
// process. A module of thousands of tiny tests makes tens of thousands of
// events: a test2json process per test binary, the JSON it wrote,
// faultline's decoding of it and finding the tool (go tool -n plans a
// build) cost about a quarter of a collection's CPU on such a module. The events are test2json's, event for event (a test
// runs both on the same input): framing lines, the charging of output to
// tests, output split into pieces of at most 1 KB, and invalid UTF-8 made
// valid as encoding/json would.
type converter struct {
	mu      sync.Mutex
	emit    func(Event)
	start   time.Time
	test    string  // the test output is charged to
	reports []Event // pass, fail and skip reports not yet sent, outermost first
	result  string  // the package's pass or fail, once its last line said it
	// markedOnly: only lines starting with the marker frame tests; set when
	// the last framing line had it.
	markedOnly bool
	in, out    lines
	closed     bool
}

// Line buffer sizes: a framing line must fit the input's; output is sent in
// pieces of at most the output's.
const (
	convertIn  = 4096
	convertOut = 1024
)

func newConverter(emit func(Event)) *converter {
	c := &converter{emit: emit, start: time.Now()}
	c.in = lines{buf: make([]byte, 0, convertIn), whole: c.line, piece: c.out.write}
	c.out = lines{buf: make([]byte, 0, convertOut), whole: c.output, piece: c.output}
	c.send(Event{Action: "start"})
	return c
}

// Write takes the test binary's output as it comes.
func (c *converter) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.in.write(b)
	}
	return len(b), nil
}

// close sends what is left: a last line without its newline, and the
// package's result when its output ended with one. Later writes are
// dropped.
func (c *converter) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.in.flush()
	c.out.flush()
	if c.result != "" {
		c.send(Event{Action: c.result, Elapsed: time.Since(c.start).Round(time.Millisecond).Seconds()})
	}
}

func (c *converter) send(ev Event) {
	if ev.Test == "" {
		ev.Test = c.test
	}
	ev.Test = validUTF8(ev.Test)
	c.emit(ev)
}

func (c *converter) output(b []byte) {
	c.send(Event{Action: "output", Output: validUTF8(string(b))})
}

// Framing lines: updates start or switch a test, reports (possibly
// indented, for subtests) end one.
var (
	frameUpdates = []string{"=== RUN   ", "=== PAUSE ", "=== CONT  ", "=== NAME  ", "=== PASS  ", "=== FAIL  ", "=== SKIP  ", "=== ATTR  ", "=== ARTIFACTS "}
	frameReports = []string{"--- PASS: ", "--- FAIL: ", "--- SKIP: ", "--- BENCH: "}
)

func hasPrefixIn(b []byte, prefixes []string) bool {
	for _, p := range prefixes {
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			return true
		}
	}
	return false
}

// line handles one whole line of input, newline included.
func (c *converter) line(line []byte) {
	if len(line) == 0 {
		return
	}
	marked := line[0] == frameMarker
	if !marked && c.markedOnly {
		c.out.write(line)
		return
	}
	if marked {
		c.out.flush()
		line = line[1:]
	}
	text := bytes.TrimSuffix(line, []byte("\n"))
	if len(text) < len(line) {
		text = bytes.TrimSuffix(text, []byte("\r"))
	}
	if string(text) == "=== NAME" { // its trailing spaces can be lost
		line = []byte("=== NAME  \n")
		text = line[:len(line)-1]
	}
	if s := string(text); s == "PASS" || s == "FAIL" || strings.HasPrefix(s, "FAIL\t") {
		c.flushReports(0)
		c.test = ""
		c.markedOnly = marked
		c.out.write(line)
		c.result = "fail"
		if s == "PASS" {
			c.result = "pass"
		}
		return
	}
	if bytes.HasPrefix(line, []byte("?   \t")) && bytes.HasSuffix(text, []byte("\t[no test files]")) && len(c.reports) == 0 {
		c.result = "skip"
	}
	whole := line
	framing := hasPrefixIn(line, frameUpdates)
	depth := 0
	if !framing {
		for bytes.HasPrefix(line, []byte("    ")) {
			line = line[4:]
			depth++
		}
		framing = hasPrefixIn(line, frameReports)
	}
	if !framing {
		// Indented output belongs to the subtest at that depth, when
		// there is one.
		if depth > 0 && depth <= len(c.reports) {
			c.test = c.reports[depth-1].Test
		}
		c.out.write(whole)
		return
	}
	action, name, _ := strings.Cut(string(line[len("=== "):]), " ")
	action = strings.ToLower(strings.TrimSuffix(action, ":"))
	name = strings.TrimSpace(name)
	ev := Event{Action: action}
	if line[0] == '-' {
		if i := strings.Index(name, " ("); i >= 0 {
			if strings.HasSuffix(name, "s)") {
				if secs, err := strconv.ParseFloat(name[i+2:len(name)-2], 64); err == nil {
					ev.Elapsed = secs
				}
			}
			name = name[:i]
		}
		if len(c.reports) < depth {
			c.out.write(whole) // deeper than any test running: output
			return
		}
		c.markedOnly = marked
		c.flushReports(depth)
		ev.Test = name
		c.test = name
		c.reports = append(c.reports, ev)
		c.out.write(whole)
		return
	}
	if action == "artifacts" || action == "attr" {
		name, _, _ = strings.Cut(name, " ")
	}
	c.markedOnly = marked
	c.flushReports(0)
	c.test = name
	switch action {
	case "name": // only says whose the output is
	case "pause": // the line first, so that it is not the paused test's output after the event
		c.out.write(whole)
		c.send(ev)
	default:
		c.send(ev)
		c.out.write(whole)
	}
}

// flushReports sends the reports deeper than depth, innermost first.
func (c *converter) flushReports(depth int) {
	c.test = ""
	for len(c.reports) > depth {
		ev := c.reports[len(c.reports)-1]
		c.reports = c.reports[:len(c.reports)-1]
		c.send(ev)
	}
}

// lines cuts a stream into lines for whole, and a line too long for buf
// into pieces for piece (the last with the line's end). A line ends at a
// newline, kept, or before a marker that does not start it. The name at
// the start of a benchmark's result line goes out as a piece of its own as
// soon as its tab arrives.
type lines struct {
	buf     []byte
	partial bool // the pieces of a long line are going out
	whole   func([]byte)
	piece   func([]byte)
}

func (l *lines) write(b []byte) {
	for len(b) > 0 {
		n := copy(l.buf[len(l.buf):cap(l.buf)], b)
		l.buf, b = l.buf[:len(l.buf)+n], b[n:]
		done := 0
		for done < len(l.buf) {
			end, width := lineEnd(l.buf[done:])
			if end < 0 {
				if !l.partial {
					if tab := bytes.IndexByte(l.buf[done:], '\t'); tab >= 0 && isBenchmarkName(bytes.TrimRight(l.buf[done:done+tab], " ")) {
						l.piece(l.buf[done : done+tab+1])
						l.partial = true
						done += tab + 1
					}
				}
				break
			}
			next := done + end + width
			if l.partial {
				l.piece(l.buf[done:next])
				l.partial = false
			} else {
				l.whole(l.buf[done:next])
			}
			done = next
		}
		if done == 0 && len(l.buf) == cap(l.buf) {
			// A full buffer and no line end: out goes what is whole of
			// its characters.
			cut := utf8Cut(l.buf)
			l.piece(l.buf[:cut])
			l.buf = l.buf[:copy(l.buf, l.buf[cut:])]
			l.partial = true
		}
		if done > 0 {
			l.buf = l.buf[:copy(l.buf, l.buf[done:])]
		}
	}
}

// flush sends what is left, a line without its end, as a piece.
func (l *lines) flush() {
	if len(l.buf) > 0 {
		l.piece(l.buf)
		l.buf = l.buf[:0]
	}
}

// lineEnd returns where the first line of b ends and how many bytes of
// the end belong to it: 1 for a newline, 0 before a marker.
func lineEnd(b []byte) (int, int) {
	for i, c := range b {
		switch {
		case c == '\n':
			return i, 1
		case c == frameMarker && i > 0:
			return i, 0
		}
	}
	return -1, 0
}

// isBenchmarkName reports whether b names a benchmark: Benchmark, then
// nothing or a character that is not lower case.
func isBenchmarkName(b []byte) bool {
	rest, ok := bytes.CutPrefix(b, []byte("Benchmark"))
	if !ok {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	r, _ := utf8.DecodeRune(rest)
	return !unicode.IsLower(r)
}

// utf8Cut returns the longest prefix length of b that does not end inside
// a character its lead byte promises more bytes of.
func utf8Cut(b []byte) int {
	for back := 1; back < utf8.UTFMax && back <= len(b); back++ {
		c := b[len(b)-back]
		if c&0xc0 == 0x80 {
			continue // a continuation byte
		}
		size := 0
		switch {
		case c&0xe0 == 0xc0:
			size = 2
		case c&0xf0 == 0xe0:
			size = 3
		case c&0xf8 == 0xf0:
			size = 4
		}
		if back < size {
			return len(b) - back
		}
		break
	}
	return len(b)
}

// validUTF8 replaces each byte of s that is not part of valid UTF-8 with
// U+FFFD, as encoding/json does when it writes a string.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
