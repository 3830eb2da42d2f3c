// Package fakeeditor is the editor of faultline's tests and benchmarks: an
// LSP client that drives a server running in the same process (over a pipe)
// or as `faultline serve` (over the pipes of a child process). It keeps a log
// of every message the server sends, in the order sent, answers the server's
// requests through handlers a test may replace, and can write raw frames for
// tests of malformed input. It is a client of the server, so only tests and
// bench/ import it.
package fakeeditor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Handler answers one kind of request from the server. Its result is sent
// as the reply's result, its error as the reply's error (a *jsonrpc2.Error
// keeps its code; any other error is an InternalError).
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Editor is one connection to a server. Its methods may be called from any
// goroutine.
type Editor struct {
	out io.WriteCloser // to the server
	wmu sync.Mutex     // one frame at a time on out

	stopped   chan struct{} // closed when the server has stopped
	serverErr error         // why it stopped; set before stopped is closed

	mu       sync.Mutex
	nextID   int
	pending  map[string]chan Message // replies awaited by Call, by id
	log      []Message               // only ever appended to, so slices of it may be shared
	grew     chan struct{}           // closed and replaced whenever log grows
	readErr  error                   // why the read loop ended, once it has
	handlers map[string]Handler
	settings json.RawMessage
	versions map[uri.URI]int32 // of the open documents
}

func newEditor(out io.WriteCloser) *Editor {
	e := &Editor{
		out:      out,
		stopped:  make(chan struct{}),
		pending:  map[string]chan Message{},
		grew:     make(chan struct{}),
		settings: json.RawMessage("null"),
		versions: map[uri.URI]int32{},
	}
	e.handlers = e.defaultHandlers()
	return e
}

// Connect starts serve in this process on one end of a pipe and returns the
// editor on the other end. serve is the server's loop, such as
// (*server.Server).Serve; its result is the editor's ServerErr.
func Connect(ctx context.Context, serve func(context.Context, io.ReadWriteCloser) error) *Editor {
	serverEnd, clientEnd := net.Pipe()
	e := newEditor(clientEnd)
	go func() {
		err := serve(ctx, serverEnd)
		e.serverErr = err
		close(e.stopped)
	}()
	go e.read(bufio.NewReader(clientEnd))
	return e
}

// Start starts cmd, a server such as `faultline serve` that speaks LSP on
// its standard input and output, and returns the editor connected to it.
// The caller sets cmd's path, arguments, directory, environment and
// standard error; cmd.Wait's result is the editor's ServerErr.
func Start(cmd *exec.Cmd) (*Editor, error) {
	// Pipes of our own rather than cmd's: cmd.Wait closes those it made,
	// which would race with the read loop still draining the output.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	e := newEditor(inW)
	go func() {
		defer outR.Close()
		e.read(bufio.NewReader(outR))
	}()
	go func() {
		err := cmd.Wait()
		e.serverErr = err
		close(e.stopped)
	}()
	return e, nil
}

// Close closes the editor's side of the connection: the server reads the
// end of its input.
func (e *Editor) Close() error { return e.out.Close() }

// Stopped is closed when the server has stopped: its Serve has returned, or
// its process has ended.
func (e *Editor) Stopped() <-chan struct{} { return e.stopped }

// ServerErr is why the server stopped (Serve's result, or the process's
// exit); it may be called only once Stopped is closed.
func (e *Editor) ServerErr() error {
	<-e.stopped
	return e.serverErr
}

// AwaitStop waits until the server has stopped and returns ServerErr.
func (e *Editor) AwaitStop(ctx context.Context) error {
	select {
	case <-e.stopped:
		return e.serverErr
	case <-ctx.Done():
		return fmt.Errorf("the server has not stopped: %w", ctx.Err())
	}
}

// envelope is an outgoing JSON-RPC message.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc2.Error `json:"error,omitempty"`
}

// encode marshals a payload with the protocol package, which writes its
// union types as LSP wants them. A nil payload is absent.
func encode(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	data, err := protocol.Marshal(v)
	if err != nil {
		return nil, err
	}
	if string(data) == "null" {
		return nil, nil
	}
	return data, nil
}

func (e *Editor) send(msg envelope) error {
	msg.JSONRPC = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return e.write(body)
}

// write writes body as one frame.
func (e *Editor) write(body []byte) error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if err := writeFrame(e.out, body); err != nil {
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

// SendRaw writes body as one frame, byte for byte, whatever it holds: a
// test of malformed input writes what no well-behaved client would. If
// the server has not taken the frame when ctx ends, the editor closes the
// connection, since a frame cut short cannot be followed by another.
func (e *Editor) SendRaw(ctx context.Context, body []byte) error {
	done := make(chan error, 1)
	go func() { done <- e.write(body) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		e.out.Close()
		<-done
		return fmt.Errorf("the server did not read the frame: %w", ctx.Err())
	}
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) error {
	raw, err := encode(params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := e.send(envelope{Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// Call sends a request and waits for its reply, decoding the result into
// result (unless nil). An error reply is returned as an error that wraps
// a *jsonrpc2.Error.
// Calls number their requests from 1; raw frames sent beside them should
// use other ids.
func (e *Editor) Call(ctx context.Context, method string, params, result any) error {
	raw, err := encode(params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	e.mu.Lock()
	if e.readErr != nil {
		e.mu.Unlock()
		return fmt.Errorf("%s: connection closed: %w", method, e.readErr)
	}
	e.nextID++
	id := strconv.Itoa(e.nextID)
	reply := make(chan Message, 1)
	e.pending[id] = reply
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.pending, id)
		e.mu.Unlock()
	}()
	if err := e.send(envelope{ID: json.RawMessage(id), Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-reply:
		if !ok {
			return fmt.Errorf("%s: connection closed before the reply", method)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %w", method, m.Error)
		}
		if raw, ok := result.(*json.RawMessage); ok {
			*raw = m.Result // as sent, null included
			return nil
		}
		if result == nil || len(m.Result) == 0 || string(m.Result) == "null" {
			return nil
		}
		if err := protocol.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("%s: decoding the result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: no reply: %w", method, ctx.Err())
	}
}

// read records what the server sends until the connection ends.
func (e *Editor) read(r *bufio.Reader) {
	for {
		body, err := readFrame(r)
		if err != nil {
			e.mu.Lock()
			e.readErr = err
			for id, ch := range e.pending {
				close(ch)
				delete(e.pending, id)
			}
			e.signal()
			e.mu.Unlock()
			return
		}
		m := decode(body)
		e.mu.Lock()
		if m.Kind == Reply {
			if ch := e.pending[string(m.ID)]; ch != nil {
				delete(e.pending, string(m.ID))
				e.mu.Unlock()
				ch <- m
				continue
			}
		}
		e.log = append(e.log, m)
		e.signal()
		e.mu.Unlock()
		if m.Kind == Request {
			// Answered off the read loop, as an editor does: over an
			// unbuffered pipe, a reply written while the server writes
			// its own would block both sides.
			go e.answer(m)
		}
	}
}

// signal wakes whoever awaits the log; e.mu is held.
func (e *Editor) signal() {
	close(e.grew)
	e.grew = make(chan struct{})
}

// answer replies to a request of the server with its method's handler.
func (e *Editor) answer(m Message) {
	e.mu.Lock()
	h := e.handlers[m.Method]
	e.mu.Unlock()
	var result any
	err := error(jsonrpc2.NewError(jsonrpc2.MethodNotFound, "the editor does not handle "+m.Method))
	if h != nil {
		result, err = h(context.Background(), m.Params)
	}
	reply := envelope{ID: m.ID}
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
		}
		reply.Error = rpcErr
	} else {
		raw, merr := encode(result)
		if merr != nil {
			reply.Error = jsonrpc2.NewError(jsonrpc2.InternalError, merr.Error())
		}
		if raw == nil {
			raw = json.RawMessage("null")
		}
		reply.Result = raw
	}
	// A failed write means the connection is gone, which the read loop
	// reports.
	_ = e.send(reply)
}

// Log returns what the server has sent so far, except the replies to Call.
// The caller must not modify the messages.
func (e *Editor) Log() []Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.log[:len(e.log):len(e.log)]
}

// Await waits until cond holds on the log, checking it once now and again
// whenever the log grows (cond must not modify the log). It fails when ctx ends or the connection ends
// with cond still false; the error then describes the log.
func (e *Editor) Await(ctx context.Context, cond func(log []Message) bool) error {
	for {
		e.mu.Lock()
		log, grew, readErr := e.log[:len(e.log):len(e.log)], e.grew, e.readErr
		e.mu.Unlock()
		if cond(log) {
			return nil
		}
		if readErr != nil {
			return fmt.Errorf("the connection ended (%v); the server sent:\n%s", readErr, Describe(log))
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return fmt.Errorf("%w; the server sent:\n%s", ctx.Err(), Describe(log))
		}
	}
}

// AwaitFor is Await with a time limit.
func (e *Editor) AwaitFor(limit time.Duration, cond func(log []Message) bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	return e.Await(ctx, cond)
}
