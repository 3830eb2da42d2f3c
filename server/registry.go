package server

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// method describes how the server answers one LSP method. Every method the
// server implements has one entry in the registry built by Server.methods;
// each entry's handler lives in its own file.
type method struct {
	handle       func(ctx context.Context, s *Server, params jsonrpc2.RawMessage) (any, error)
	notification bool // the method is a notification: no response is sent
	async        bool // slow request: run concurrently with later messages
	beforeInit   bool // accepted before initialize has been answered
}

// methods builds the registry. Messages run in wire order on the read loop
// unless marked async, so didChange and friends can never overtake each
// other; only requests that may wait on the engine or on the client are
// async.
func (s *Server) methods() map[string]method {
	return map[string]method{
		protocol.MethodInitialize:                         {handle: request(initialize), beforeInit: true},
		protocol.MethodInitialized:                        {handle: notification(initialized), notification: true},
		protocol.MethodShutdown:                           {handle: shutdown},
		protocol.MethodExit:                               {handle: exit, notification: true, beforeInit: true},
		protocol.MethodTextDocumentDidOpen:                {handle: notification(didOpen), notification: true},
		protocol.MethodTextDocumentDidChange:              {handle: notification(didChange), notification: true},
		protocol.MethodTextDocumentDidSave:                {handle: notification(didSave), notification: true},
		protocol.MethodTextDocumentDidClose:               {handle: notification(didClose), notification: true},
		protocol.MethodWorkspaceDidChangeConfiguration:    {handle: notification(didChangeConfiguration), notification: true},
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: {handle: notification(didChangeWorkspaceFolders), notification: true},
		protocol.MethodTextDocumentInlayHint:              {handle: request(inlayHint)},
		protocol.MethodTextDocumentHover:                  {handle: request(hover)},
		protocol.MethodTextDocumentCodeLens:               {handle: request(codeLens)},
		protocol.MethodTextDocumentCodeAction:             {handle: request(codeAction)},
		protocol.MethodWorkspaceExecuteCommand:            {handle: request(executeCommand), async: true},
		methodRanking:                                     {handle: request(ranking)},
	}
}

// request adapts a typed request handler to the registry.
func request[P, R any](fn func(context.Context, *Server, *P) (R, error)) func(context.Context, *Server, jsonrpc2.RawMessage) (any, error) {
	return func(ctx context.Context, s *Server, raw jsonrpc2.RawMessage) (any, error) {
		p, err := decodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return fn(ctx, s, p)
	}
}

// notification adapts a typed notification handler to the registry. Absent
// params decode as the zero value: some clients send initialized without any.
func notification[P any](fn func(context.Context, *Server, *P) error) func(context.Context, *Server, jsonrpc2.RawMessage) (any, error) {
	return func(ctx context.Context, s *Server, raw jsonrpc2.RawMessage) (any, error) {
		if len(raw) == 0 || string(raw) == "null" {
			return nil, fn(ctx, s, new(P))
		}
		p, err := decodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return nil, fn(ctx, s, p)
	}
}

// decodeParams decodes a method's params, turning any failure into an
// InvalidParams error that names what was wrong.
func decodeParams[P any](raw jsonrpc2.RawMessage) (*P, error) {
	p := new(P)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing params")
	}
	if err := protocol.Unmarshal(raw, p); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return p, nil
}

var (
	errNotInitialized = jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "server not initialized: send initialize first")
	errShutDown       = jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is shut down: only exit is accepted")
)

// handle is the connection's jsonrpc2.Handler: it gates messages on the
// lifecycle, looks the method up in the registry, supports cancellation of
// async requests, and turns panics into errors instead of crashes.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	name := req.Method()
	isCall := req.IsCall()
	defer func() {
		if r := recover(); r != nil {
			s.client.logf(protocol.MessageTypeError, "internal error handling %s: %v\n%s", name, r, debug.Stack())
			result = nil
			err = nil
			if isCall {
				err = jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error handling %s: %v", name, r)
			}
		}
	}()

	m, known := s.registry[name]
	if rerr := s.admit(name, m, known, isCall); rerr != nil {
		if isCall {
			return nil, rerr
		}
		return nil, nil // notifications get no answer, not even an error
	}
	if m.async {
		jsonrpc2.Async(ctx) // also clones the borrowed method and params
		name = req.Method()
		// Only async requests can be cancelled: a synchronous one holds the
		// read loop, so no $/cancelRequest is read before it completes. Only
		// they may derive contexts, too: a synchronous request's context is
		// recycled as soon as it returns.
		if isCall {
			var done func()
			ctx, done = s.cancels.track(ctx, req.ID())
			defer done()
		}
	}
	result, err = m.handle(ctx, s, req.Params())
	if !isCall {
		if err != nil {
			s.client.logf(protocol.MessageTypeError, "%s: %v", name, err)
		}
		return nil, nil // a notification error must not end the connection
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return nil, protocol.ErrRequestCancelled
		}
		return nil, wireError(err)
	}
	return result, nil
}

// admit decides whether a message may run in the current lifecycle state.
func (s *Server) admit(name string, m method, known, isCall bool) error {
	if !known {
		if isCall {
			return jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %q", name)
		}
		return errors.New("ignored notification") // "$/..." and unknown notifications are optional
	}
	if m.notification == isCall {
		kind := "a request"
		if m.notification {
			kind = "a notification"
		}
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s is %s", name, kind)
	}
	switch s.lifecycle() {
	case stateNew:
		if !m.beforeInit {
			return errNotInitialized
		}
	case stateShutdown:
		if name != protocol.MethodExit {
			return errShutDown
		}
	}
	return nil
}

// wireError keeps JSON-RPC errors as they are and makes every other error an
// InternalError, so the client never sees code 0.
func wireError(err error) error {
	var werr *jsonrpc2.Error
	if errors.As(err, &werr) {
		return err
	}
	return &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: err.Error()}
}

// errorf builds an InvalidParams error for requests whose params decode but
// make no sense (an unknown command, a missing argument).
func errorf(format string, args ...any) error {
	return &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: fmt.Sprintf(format, args...)}
}
