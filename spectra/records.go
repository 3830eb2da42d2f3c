package spectra

import (
	"strconv"
	"strings"
)

// frame is one test running in the process being read.
type frame struct {
	name     string
	own      map[int]bool // counters executed by the test itself so far
	context  []int        // counters executed before it started: package init and its ancestors
	children bool
}

// leafRecord is what the records say about one leaf test.
type leafRecord struct {
	name     string
	hits     []int
	panicked bool
	finished bool // an exit record was read
}

// recordReader rebuilds leaf spectra from the runtime's record stream of
// one test process (see package faultlinert for the format).
type recordReader struct {
	prelude map[int]bool // counters executed before the first test: package init
	stack   []*frame
	leaves  []leafRecord
	// errors are problems the runtime reported (a package missing from the
	// counter layout, counters that could not be mapped).
	errors []string
	// panicked is the test whose panicking exit was the last record: the
	// process dies of that panic right after.
	panicked string
}

func newRecordReader() *recordReader {
	return &recordReader{prelude: map[int]bool{}}
}

func (rr *recordReader) line(line string) {
	kind, rest, _ := strings.Cut(line, " ")
	name, rest, ok := cutQuoted(rest)
	if !ok {
		return // a torn final record of a killed process
	}
	rr.panicked = ""
	switch kind {
	case "error":
		rr.errors = append(rr.errors, name)
	case "skip":
		if n := len(rr.stack); n > 0 {
			rr.stack[n-1].children = true
		}
	case "enter":
		rr.charge(parseInts(rest))
		ctx := make(map[int]bool, len(rr.prelude))
		for c := range rr.prelude {
			ctx[c] = true
		}
		for _, f := range rr.stack {
			f.children = true
			for _, c := range f.context {
				ctx[c] = true
			}
			for c := range f.own {
				ctx[c] = true
			}
		}
		rr.stack = append(rr.stack, &frame{name: name, own: map[int]bool{}, context: keys(ctx)})
	case "exit":
		flags, hits, _ := strings.Cut(rest, " ")
		rr.charge(parseInts(hits))
		n := len(rr.stack)
		if n == 0 || rr.stack[n-1].name != name {
			return
		}
		panicked := strings.Contains(flags, "p")
		rr.finish(rr.stack[n-1], panicked, true)
		rr.stack = rr.stack[:n-1]
		if panicked {
			rr.panicked = name
		}
	}
}

// charge adds counters to the running test, or to the prelude.
func (rr *recordReader) charge(hits []int) {
	target := rr.prelude
	if n := len(rr.stack); n > 0 {
		target = rr.stack[n-1].own
	}
	for _, h := range hits {
		target[h] = true
	}
}

func (rr *recordReader) finish(f *frame, panicked, finished bool) {
	if f.children {
		return
	}
	hits := map[int]bool{}
	for _, c := range f.context {
		hits[c] = true
	}
	for c := range f.own {
		hits[c] = true
	}
	rr.leaves = append(rr.leaves, leafRecord{name: f.name, hits: keys(hits), panicked: panicked, finished: finished})
}

// interrupted closes the record stream of a process that died or was
// killed while tests were running. It returns the test that brought the
// process down, to be skipped when the process is restarted: the innermost
// running test, which gets the counters left in shared memory. It returns
// "" when a test that already finished (its panic killed the process) is
// to blame: its parents then run again for their remaining subtests.
func (rr *recordReader) interrupted(leftover []int) string {
	n := len(rr.stack)
	if n == 0 || rr.panicked != "" {
		rr.stack = nil
		return ""
	}
	f := rr.stack[n-1]
	for _, c := range leftover {
		f.own[c] = true
	}
	rr.finish(f, false, false)
	rr.stack = nil
	return f.name
}

func cutQuoted(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	name, err := strconv.Unquote(q)
	if err != nil {
		return "", "", false
	}
	return name, strings.TrimPrefix(s[len(q):], " "), true
}

func parseInts(s string) []int {
	fields := strings.Fields(s)
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func keys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
