package server

import (
	"context"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// shutdown stops all background work; the client then sends exit.
func shutdown(ctx context.Context, s *Server, _ jsonrpc2.RawMessage) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	views := s.views
	s.views = make(map[string]*view)
	s.mu.Unlock()
	haltViews(views, stopGrace)
	return nil, nil
}

// stopGrace bounds how long shutdown and exit wait for cancelled test runs
// to wind down: their test processes are killed at once, and what is left
// (a child of a test holding a pipe, a store write) must not keep the
// client waiting.
const stopGrace = 500 * time.Millisecond

// haltViews stops the views' background work and waits at most limit for
// their runs to end.
func haltViews(views map[string]*view, limit time.Duration) {
	var runs []*run
	for _, v := range views {
		if r := v.halt(); r != nil {
			runs = append(runs, r)
		}
	}
	deadline := time.After(limit)
	for _, r := range runs {
		select {
		case <-r.done:
		case <-deadline:
			return
		}
	}
}

// exit ends the session; Serve returns once the connection is closed.
func exit(ctx context.Context, s *Server, _ jsonrpc2.RawMessage) (any, error) {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil, nil
}
