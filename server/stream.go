package server

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// frameStream is the frame-level half of a jsonrpc2 stream. The connection
// uses it when the stream offers it, which lets guardedStream inspect each
// frame before the connection sees it.
type frameStream interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

// guardedStream answers malformed frames itself so that they never reach the
// connection's read loop, which would otherwise stop on the first frame that
// is not valid JSON-RPC. A frame that is not JSON gets a ParseError response,
// a JSON value that is not a request or response gets InvalidRequest; both
// with a null id, as JSON-RPC 2.0 prescribes. Broken framing (a bad header)
// cannot be resynchronized and still ends the connection.
type guardedStream struct {
	inner  jsonrpc2.Stream
	frames frameStream
	// rejected is told about every frame answered here, for the server log.
	rejected func(frame []byte, err error)
}

func newGuardedStream(inner jsonrpc2.Stream, rejected func([]byte, error)) (*guardedStream, error) {
	fs, ok := inner.(frameStream)
	if !ok {
		return nil, fmt.Errorf("stream %T does not expose frames", inner)
	}
	return &guardedStream{inner: inner, frames: fs, rejected: rejected}, nil
}

// ReadFrame returns the next well-formed frame, answering malformed ones.
func (s *guardedStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		frame, n, err := s.frames.ReadFrame(ctx)
		if err != nil {
			return frame, n, err
		}
		verr := validateFrame(frame)
		if verr == nil {
			return frame, n, nil
		}
		if s.rejected != nil {
			s.rejected(frame, verr)
		}
		reply := jsonrpc2.AppendResponse(nil, jsonrpc2.ID{}, nil, verr)
		if _, err := s.frames.WriteFrame(ctx, reply); err != nil {
			return nil, 0, fmt.Errorf("answering malformed frame: %w", err)
		}
	}
}

// validateFrame reports the JSON-RPC error a frame deserves, or nil when the
// connection can handle it. Batches are left to the connection, which answers
// malformed members one by one, once the array itself is valid JSON.
func validateFrame(frame []byte) *jsonrpc2.Error {
	if !json.Valid(frame) {
		return jsonrpc2.NewError(jsonrpc2.ParseError, "parse error: frame is not valid JSON")
	}
	if isArray(frame) {
		return nil
	}
	if _, err := jsonrpc2.DecodeMessage(frame); err != nil {
		// The frame is JSON, so whatever the decoder says, it is not a
		// valid request object.
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "invalid request: "+err.Error())
	}
	return nil
}

func isArray(frame []byte) bool {
	for _, c := range frame {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			return true
		}
		return false
	}
	return false
}

// WriteFrame implements frameStream.
func (s *guardedStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	return s.frames.WriteFrame(ctx, data)
}

// Read implements jsonrpc2.Stream for callers that do not use frames.
func (s *guardedStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frame, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, n, err
	}
	msg, err := jsonrpc2.DecodeMessage(frame)
	if err != nil {
		return nil, n, fmt.Errorf("decoding frame: %w", err)
	}
	return msg, n, nil
}

// Write implements jsonrpc2.Stream.
func (s *guardedStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.inner.Write(ctx, msg)
}

// Close implements jsonrpc2.Stream.
func (s *guardedStream) Close() error { return s.inner.Close() }

// lspCodec marshals payloads with the protocol package's union-aware codec,
// so sealed-interface unions (hover contents, progress tokens, ...) survive
// the round trip; raw messages pass through untouched.
type lspCodec struct{}

func (lspCodec) Marshal(v any) ([]byte, error) {
	if raw, ok := v.(jsonrpc2.RawMessage); ok {
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	}
	return protocol.Marshal(v)
}

func (lspCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
