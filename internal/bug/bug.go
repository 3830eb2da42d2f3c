// Package bug reports states that cannot happen. A report is kept and
// handed to whoever listens (the language server logs it to the client, the
// command line prints it), and the caller goes on with a safe fallback: a
// bug in faultline must not take the user's editor session down.
package bug

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
)

// Report is one bug report.
type Report struct {
	Message  string
	Location string // file:line of the report
	Stack    string
}

// Bugs collects reports. The zero value is ready to use.
type Bugs struct {
	mu       sync.Mutex
	reports  []Report
	handlers map[int]func(Report)
	next     int
}

// Default is where reports go unless a component was given its own Bugs.
var Default = new(Bugs)

// Reportf reports a bug to Default.
func Reportf(format string, args ...any) { Default.reportf(2, format, args...) }

// Reportf records a report and passes it to the handlers.
func (b *Bugs) Reportf(format string, args ...any) { b.reportf(2, format, args...) }

func (b *Bugs) reportf(skip int, format string, args ...any) {
	r := Report{Message: fmt.Sprintf(format, args...)}
	if _, file, line, ok := runtime.Caller(skip); ok {
		r.Location = fmt.Sprintf("%s:%d", file, line)
	}
	buf := make([]byte, 16<<10)
	r.Stack = string(buf[:runtime.Stack(buf, false)])
	if site := panicSite(r.Stack); site != "" {
		r.Location = site
	}
	b.Add(r)
}

// panicSite is where a panic being recovered was raised: the first frame
// outside package runtime below the panic call in a stack taken while the
// panic unwinds, or "" when the stack holds no panic. The report of a
// recovered panic is made in the deferred function that recovers it, whose
// own line says nothing of the fault.
func panicSite(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic(") {
			continue
		}
		// Frames are pairs of lines: the function, then "\tfile:line +0x…".
		for j := i + 2; j+1 < len(lines); j += 2 {
			if strings.HasPrefix(lines[j], "runtime.") {
				continue
			}
			site := strings.TrimSpace(lines[j+1])
			if k := strings.LastIndex(site, " +0x"); k >= 0 {
				site = site[:k]
			}
			return site
		}
	}
	return ""
}

// Add records a report made elsewhere (in a worker process, say), with
// its own location and stack, and passes it to the handlers.
func (b *Bugs) Add(r Report) {
	b.mu.Lock()
	b.reports = append(b.reports, r)
	var handlers []func(Report)
	for _, h := range b.handlers {
		handlers = append(handlers, h)
	}
	b.mu.Unlock()
	for _, h := range handlers {
		h(r)
	}
}

// Handle registers a function called with every later report, until the
// returned function is called.
func (b *Bugs) Handle(h func(Report)) (stop func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.handlers == nil {
		b.handlers = map[int]func(Report){}
	}
	id := b.next
	b.next++
	b.handlers[id] = h
	return func() {
		b.mu.Lock()
		delete(b.handlers, id)
		b.mu.Unlock()
	}
}

// List returns the reports so far.
func (b *Bugs) List() []Report {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Report{}, b.reports...)
}
