package server

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// cancels tracks in-flight requests by id so $/cancelRequest can stop them.
type cancels struct {
	mu       sync.Mutex
	inFlight map[jsonrpc2.ID]context.CancelFunc
}

func newCancels() *cancels {
	return &cancels{inFlight: make(map[jsonrpc2.ID]context.CancelFunc)}
}

// track derives a cancellable context for request id; done forgets it.
func (c *cancels) track(ctx context.Context, id jsonrpc2.ID) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.inFlight[id] = cancel
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		delete(c.inFlight, id)
		c.mu.Unlock()
		cancel()
	}
}

// cancel stops the request with the given id, if it is still running.
func (c *cancels) cancel(id jsonrpc2.ID) {
	c.mu.Lock()
	cancel := c.inFlight[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// cancelPreempter handles $/cancelRequest on the read loop itself, ahead of
// any queued work, as the notification must overtake the request it cancels.
type cancelPreempter struct{ cancels *cancels }

// handled marks a preempted notification as answered.
type handled struct{}

func (p cancelPreempter) Preempt(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() != protocol.MethodCancelRequest || req.IsCall() {
		return nil, jsonrpc2.ErrNotHandled
	}
	// Decoded by hand: request ids may exceed the int32 of protocol.Integer.
	var params struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(req.Params(), &params); err == nil {
		var num int64
		var str string
		switch {
		case json.Unmarshal(params.ID, &num) == nil:
			p.cancels.cancel(jsonrpc2.NewNumberID(num))
		case json.Unmarshal(params.ID, &str) == nil:
			p.cancels.cancel(jsonrpc2.NewStringID(str))
		}
	}
	// A malformed cancellation is dropped: notifications get no answer.
	return handled{}, nil
}
