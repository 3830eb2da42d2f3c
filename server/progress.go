package server

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
)

// progress reports one collection through window/workDoneProgress, when the
// client supports it; otherwise its methods do nothing.
type progress struct {
	c       *client
	token   protocol.ProgressToken
	lastPct atomic.Int32
}

// beginProgress asks the client for a progress token and begins reporting.
func (s *Server) beginProgress(ctx context.Context, title string) *progress {
	s.mu.Lock()
	supported := s.caps.workDoneProgress
	s.mu.Unlock()
	if !supported {
		return &progress{}
	}
	token := protocol.String(fmt.Sprintf("faultline-%d", s.progressSeq.Add(1)))
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.client.call(ctx, protocol.MethodWindowWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: token}, nil); err != nil {
		s.client.logf(protocol.MessageTypeLog, "progress not shown: %v", err)
		return &progress{}
	}
	p := &progress{c: s.client, token: token}
	p.lastPct.Store(-1)
	zero := uint32(0)
	p.send(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Percentage: &zero})
	return p
}

// report sends a percentage, when it moved.
func (p *progress) report(message string, pct int) {
	if p.c == nil || int32(pct) == p.lastPct.Swap(int32(pct)) {
		return
	}
	u := uint32(min(max(pct, 0), 100))
	p.send(&protocol.WorkDoneProgressReport{Kind: "report", Message: &message, Percentage: &u})
}

func (p *progress) end(message string) {
	if p.c == nil {
		return
	}
	p.send(&protocol.WorkDoneProgressEnd{Kind: "end", Message: &message})
}

func (p *progress) send(value any) {
	raw, err := protocol.Marshal(value)
	if err != nil {
		return
	}
	p.c.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: p.token, Value: raw})
}
