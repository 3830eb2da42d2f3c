package server

import (
	"context"

	"go.lsp.dev/jsonrpc2"
)

// shutdown stops all background work; the client then sends exit.
func shutdown(ctx context.Context, s *Server, _ jsonrpc2.RawMessage) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	views := s.views
	s.views = make(map[string]*view)
	s.mu.Unlock()
	for _, v := range views {
		v.stop()
	}
	return nil, nil
}

// exit ends the session; Serve returns once the connection is closed.
func exit(ctx context.Context, s *Server, _ jsonrpc2.RawMessage) (any, error) {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil, nil
}
