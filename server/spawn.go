package server

import (
	"fmt"
	"os"
	"runtime/debug"

	"go.lsp.dev/protocol"

	"github.com/faultline-go/faultline/internal/bug"
)

// spawn runs f on a goroutine of its own that cannot take the server down:
// a panic there is reported (see reportPanic) and the server goes on
// serving. Every goroutine the server starts goes through it or guard.
func (s *Server) spawn(what string, f func()) {
	go s.guard(what, f)
}

// guard runs f, turning a panic into a report.
func (s *Server) guard(what string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			s.reportPanic(what, r, debug.Stack())
		}
	}()
	f()
}

// reportPanic reports a panic once per place and value, to the client's
// log and to standard error (the server's log), with its stack.
func (s *Server) reportPanic(what string, r any, stack []byte) {
	key := fmt.Sprintf("%s: %v", what, r)
	s.mu.Lock()
	seen := s.panics[key]
	if s.panics == nil {
		s.panics = map[string]bool{}
	}
	s.panics[key] = true
	s.mu.Unlock()
	if seen {
		return
	}
	fmt.Fprintf(os.Stderr, "faultline: internal error in %s: %v\n%s", what, r, stack)
	if s.client != nil {
		s.client.logf(protocol.MessageTypeError, "internal error in %s: %v (the server goes on; please report it)\n%s", what, r, stack)
	}
}

// reportBug passes a bug report (a state that cannot happen, met anyway)
// to the client's log, once per message.
func (s *Server) reportBug(r bug.Report) {
	s.reportPanic("a check ("+r.Location+")", r.Message, []byte(r.Stack))
}
