package server

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// phaseTrace prints where a module's results spend their time on the way to
// the editor: each package's tests done, the store read, the ranking, the
// diagnostics published, the analysis. It is off unless the server was
// given a writer (Options.Trace) or FAULTLINE_DEBUG is set, in which case
// it writes to standard error, the server's log, beside the collection's
// own trace of listing, building and running. Every method of a nil or
// silent trace does nothing, so callers need not check.
type phaseTrace struct {
	mu sync.Mutex
	w  io.Writer
}

// newPhaseTrace returns the trace writing to w; with a nil w, to standard
// error when FAULTLINE_DEBUG is set, else nowhere.
func newPhaseTrace(w io.Writer) *phaseTrace {
	if w == nil && os.Getenv("FAULTLINE_DEBUG") != "" {
		w = os.Stderr
	}
	return &phaseTrace{w: w}
}

// on says whether the trace prints, so that callers skip measuring for it.
func (t *phaseTrace) on() bool { return t != nil && t.w != nil }

// phase reports that a phase of the module at root took d; detail, when
// not empty, says what it worked on.
func (t *phaseTrace) phase(root, phase string, d time.Duration, detail string) {
	if !t.on() {
		return
	}
	line := fmt.Sprintf("faultline serve: %s: %-28s %v", filepath.Base(root), phase, d.Round(time.Millisecond))
	if detail != "" {
		line += " (" + detail + ")"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(t.w, line)
}
