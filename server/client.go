package server

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// client sends the server's messages to the editor.
type client struct {
	conn jsonrpc2.Conn
	ctx  context.Context
}

// notify sends a notification; a failure means the connection is going away,
// which the read loop reports, so it is not reported again here.
func (c *client) notify(method string, params any) {
	if c == nil {
		return
	}
	_ = c.conn.Notify(c.ctx, method, params)
}

// call sends a request to the editor and waits for its answer. It must not
// run on the read loop: the answer is read by that very loop.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	if _, err := c.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

func (c *client) logf(typ protocol.MessageType, format string, args ...any) {
	c.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: fmt.Sprintf(format, args...)})
}

func (c *client) showMessage(typ protocol.MessageType, message string) {
	c.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: message})
}
