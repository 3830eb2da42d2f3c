package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/faultline-go/faultline/internal/localize"
)

// progressLine shows how a command advances. On a terminal it rewrites one
// line, at most ten times a second. Elsewhere, as in a CI log, it prints a
// plain line when a phase begins and, while a phase lasts, the latest
// status at least every heartbeat, so that the log shows the run is alive.
type progressLine struct {
	mu        sync.Mutex
	out       io.Writer
	live      bool          // stderr is a terminal: one rewritten line
	heartbeat time.Duration // plain lines: the longest silence within a phase
	last      time.Time     // live: when the line was last drawn
	shown     bool          // live: a line is drawn and must be cleared

	status  string    // plain: the latest status
	printed string    // plain: the status last printed
	phase   string    // plain: the phase last printed
	at      time.Time // plain: when a line was last printed
	stop    chan struct{}
	stopped chan struct{}
}

// plainHeartbeat is the longest a plain progress log stays silent while
// work goes on.
const plainHeartbeat = 10 * time.Second

func newProgressLine() *progressLine {
	return &progressLine{out: os.Stderr, live: term.IsTerminal(int(os.Stderr.Fd())), heartbeat: plainHeartbeat}
}

// update shows a collection's progress.
func (p *progressLine) update(pr localize.Progress) {
	if p.live {
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
		return
	}
	switch pr.Phase {
	case "build":
		p.plain("build", fmt.Sprintf("building test binaries: %s, %d unchanged", count(pr.Packages, "package"), pr.Reused))
	case "run":
		p.plain("run", fmt.Sprintf("running tests: packages %d/%d, tests run %d, failing %d", pr.PackagesDone, pr.Packages, pr.Tests, pr.Failing))
	case "done":
		p.plain("done", fmt.Sprintf("tests done: %s, %d from the cache; tests run %d, failing %d", count(pr.Packages, "package"), pr.Reused, pr.Tests, pr.Failing))
	}
}

// angelic shows how far the angelic analysis of a localization has come.
func (p *progressLine) angelic(l *localize.Localization) {
	if a := l.Angelic; a != nil && a.Pending > 0 {
		p.message(fmt.Sprintf("angelic analysis: %d of %d failing tests analysed", a.Analyzed, a.Analyzed+a.Pending))
	}
}

// message shows a status, for steps that report no progress of their own.
// In a plain log, a message whose lead (the words before its first colon)
// differs from the last one's begins a phase; the others are heartbeats.
func (p *progressLine) message(text string) {
	if p.live {
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintf(p.out, "\r\x1b[K%s", text)
		p.shown = true
		return
	}
	lead, _, _ := strings.Cut(text, ":")
	p.plain(lead, text)
}

// plain records the status of a phase and prints it at once when the
// phase is new; a heartbeat prints it later otherwise.
func (p *progressLine) plain(phase, status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = status
	if phase != p.phase {
		p.phase = phase
		p.printLocked()
	}
	if p.stop == nil && phase != "done" {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.beat(p.stop, p.stopped)
	}
}

// beat prints the latest status whenever the log has been silent for a
// heartbeat, until stop closes.
func (p *progressLine) beat(stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	for {
		p.mu.Lock()
		wait := p.heartbeat - time.Since(p.at)
		if wait <= 0 {
			p.printLocked()
			wait = p.heartbeat
		}
		p.mu.Unlock()
		select {
		case <-stop:
			return
		case <-time.After(wait):
		}
	}
}

// printLocked prints the status with the time of day, which a CI log
// may not show.
func (p *progressLine) printLocked() {
	p.at = time.Now()
	p.printed = p.status
	fmt.Fprintf(p.out, "faultline: %s %s\n", p.at.Format(time.TimeOnly), p.status)
}

// done ends the current step: it clears the live line, or in a plain log
// stops the heartbeat and prints the final status if it is not yet shown.
// A later update or message starts again.
func (p *progressLine) done() {
	p.mu.Lock()
	if p.live {
		if p.shown {
			fmt.Fprint(p.out, "\r\x1b[K")
			p.shown = false
		}
		p.mu.Unlock()
		return
	}
	stop, stopped := p.stop, p.stopped
	p.stop, p.stopped = nil, nil
	if p.status != "" && p.status != p.printed {
		p.printLocked()
	}
	p.phase = ""
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-stopped
	}
}
