package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"faultline/spectra"
)

// progressLine shows a collection's progress on one rewritten line of a
// terminal, at most ten times a second; it stays silent when stderr is not
// a terminal.
type progressLine struct {
	mu    sync.Mutex
	out   io.Writer
	on    bool
	last  time.Time
	shown bool
}

func newProgressLine() *progressLine {
	return &progressLine{out: os.Stderr, on: term.IsTerminal(int(os.Stderr.Fd()))}
}

func (p *progressLine) update(pr spectra.Progress) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	switch pr.Phase {
	case "build":
		fmt.Fprintf(p.out, "\r\x1b[Kbuilding test binaries (%d of %d packages unchanged)", pr.Reused, pr.Packages)
	default:
		fmt.Fprintf(p.out, "\r\x1b[Kpackages %d/%d, tests run %d, failing %d", pr.PackagesDone, pr.Packages, pr.Tests, pr.Failing)
	}
	p.shown = true
}

func (p *progressLine) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.out, "\r\x1b[K")
	}
}

// message shows a fixed status, for steps that report no progress of their
// own.
func (p *progressLine) message(text string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, "\r\x1b[K%s", text)
	p.shown = true
}
