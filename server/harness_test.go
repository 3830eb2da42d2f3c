package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"github.com/faultline-go/faultline/internal/trust"
)

// waitLimit bounds every wait for the server. It only turns a hang into a
// failure; no test depends on how fast anything happens.
const waitLimit = 3 * time.Minute

// note is a notification the server sent to the test client.
type note struct {
	method string
	params []byte
}

// testClient is an LSP client over an in-memory pipe, speaking to a server
// running in the same process.
type testClient struct {
	t        *testing.T
	srv      *Server
	conn     jsonrpc2.Conn
	serveErr chan error

	mu       sync.Mutex
	notes    []note
	requests []string        // methods of server-to-client requests
	config   json.RawMessage // answer to workspace/configuration
	arrived  chan struct{}   // signalled when a note arrives
	// answer picks the reply to window/showMessageRequest (nil: the
	// first action); it runs off the client's read loop and may block.
	answer func(protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error)
}

func startServer(t *testing.T, opts Options) *testClient {
	t.Helper()
	if opts.Trust == nil {
		opts.Trust = testTrustList(t)
	}
	serverEnd, clientEnd := net.Pipe()
	srv := New(opts)
	c := &testClient{t: t, srv: srv, serveErr: make(chan error, 1), arrived: make(chan struct{}, 1), config: json.RawMessage("null")}
	go func() { c.serveErr <- srv.Serve(context.Background(), serverEnd) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(clientEnd), jsonrpc2.WithCodec(lspCodec{}))
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		clientEnd.Close()
		select {
		case <-c.serveErr:
		case <-time.After(waitLimit):
			t.Errorf("server did not stop after its connection closed")
		}
	})
	return c
}

// handle answers the server's requests and records its notifications.
func (c *testClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := strings.Clone(req.Method())
	if req.IsCall() {
		// Answer off the read loop, as an editor does: over the unbuffered
		// pipe, a reply written while the server writes its own would block
		// both sides.
		jsonrpc2.Async(ctx)
		c.mu.Lock()
		c.requests = append(c.requests, method)
		config := c.config
		c.mu.Unlock()
		select {
		case c.arrived <- struct{}{}:
		default:
		}
		switch method {
		case protocol.MethodWorkspaceConfiguration:
			return []json.RawMessage{config}, nil
		case protocol.MethodWindowWorkDoneProgressCreate, protocol.MethodWorkspaceInlayHintRefresh, protocol.MethodWorkspaceCodeLensRefresh:
			return nil, nil
		case protocol.MethodWindowShowMessageRequest:
			return c.answerQuestion(req.Params())
		}
		return nil, jsonrpc2.ErrMethodNotFound
	}
	c.mu.Lock()
	c.notes = append(c.notes, note{method: method, params: append([]byte(nil), req.Params()...)})
	c.mu.Unlock()
	select {
	case c.arrived <- struct{}{}:
	default:
	}
	return nil, nil
}

// answerQuestion replies to window/showMessageRequest as c.answer says.
func (c *testClient) answerQuestion(raw jsonrpc2.RawMessage) (any, error) {
	var p protocol.ShowMessageRequestParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	c.mu.Lock()
	answer := c.answer
	c.mu.Unlock()
	if answer == nil {
		if len(p.Actions) == 0 {
			return nil, nil
		}
		return p.Actions[0], nil
	}
	item, err := answer(p)
	if item == nil || err != nil {
		return nil, err // null: the question was dismissed
	}
	return item, nil
}

// testTrustList is an empty trust list of the test's own, so no test
// reads or writes the user's.
func testTrustList(t testing.TB) *trust.Store {
	return trust.At(filepath.Join(t.TempDir(), "trusted.json"))
}

func (c *testClient) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *testClient) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// waitFor waits until check, run on the notes received so far, succeeds.
func (c *testClient) waitFor(what string, check func(notes []note) bool) {
	c.t.Helper()
	deadline := time.After(waitLimit)
	for {
		c.mu.Lock()
		notes := append([]note(nil), c.notes...)
		c.mu.Unlock()
		if check(notes) {
			return
		}
		select {
		case <-c.arrived:
		case <-deadline:
			c.t.Fatalf("gave up waiting for %s; notifications so far:\n%s", what, describe(notes))
		}
	}
}

// waitRequest waits until the server has sent n requests of a method.
func (c *testClient) waitRequest(method string, n int) {
	c.t.Helper()
	c.waitFor(fmt.Sprintf("%d %s requests", n, method), func([]note) bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		count := 0
		for _, m := range c.requests {
			if m == method {
				count++
			}
		}
		return count >= n
	})
}

// sync waits until the server has handled everything sent so far: messages
// are handled in order, so the answer to a request comes after them.
func (c *testClient) sync() {
	c.t.Helper()
	c.mustCall(methodRanking, map[string]string{}, nil)
}

func describe(notes []note) string {
	var b strings.Builder
	for _, n := range notes {
		p := string(n.params)
		if len(p) > 300 {
			p = p[:300] + "..."
		}
		b.WriteString(n.method + " " + p + "\n")
	}
	return b.String()
}

// diagnostics returns the latest diagnostics published for u, and whether
// any were published at all.
func latestDiagnostics(notes []note, u uri.URI) ([]protocol.Diagnostic, bool) {
	var last []protocol.Diagnostic
	found := false
	for _, n := range notes {
		if n.method != protocol.MethodTextDocumentPublishDiagnostics {
			continue
		}
		var p protocol.PublishDiagnosticsParams
		if err := protocol.Unmarshal(n.params, &p); err != nil || p.URI != u {
			continue
		}
		last, found = p.Diagnostics, true
	}
	return last, found
}

// waitDiagnostics waits until the diagnostics shown for u satisfy check.
func (c *testClient) waitDiagnostics(what string, u uri.URI, check func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	var got []protocol.Diagnostic
	c.waitFor(what, func(notes []note) bool {
		d, ok := latestDiagnostics(notes, u)
		got = d
		return ok && check(d)
	})
	return got
}

// onLines reports whether the diagnostics sit exactly on the 0-based lines,
// in any order.
func onLines(lines ...uint32) func([]protocol.Diagnostic) bool {
	return func(ds []protocol.Diagnostic) bool {
		var got []uint32
		for _, d := range ds {
			got = append(got, d.Range.Start.Line)
		}
		slices.Sort(got)
		want := slices.Clone(lines)
		slices.Sort(want)
		return slices.Equal(got, want)
	}
}

// initialize performs the handshake with the given root, options and
// capabilities.
func (c *testClient) initialize(root string, options string, caps protocol.ClientCapabilities) *protocol.InitializeResult {
	c.t.Helper()
	params := &protocol.InitializeParams{Capabilities: caps}
	if root != "" {
		u := uri.File(root)
		//lint:ignore SA1019 the tests' client names its root the oldest way, which the server must still accept
		params.RootURI = &u
	}
	if options != "" {
		params.InitializationOptions = protocol.LSPAny(options)
	}
	var res protocol.InitializeResult
	c.mustCall(protocol.MethodInitialize, params, &res)
	c.notify(protocol.MethodInitialized, &protocol.InitializedParams{})
	return &res
}

// initializeFolders performs the handshake with workspace folders instead
// of a root.
func (c *testClient) initializeFolders(folders ...protocol.WorkspaceFolder) {
	c.t.Helper()
	var res protocol.InitializeResult
	c.mustCall(protocol.MethodInitialize, &protocol.InitializeParams{
		WorkspaceFoldersInitializeParams: protocol.WorkspaceFoldersInitializeParams{WorkspaceFolders: protocol.NewNullable(folders)},
	}, &res)
	c.notify(protocol.MethodInitialized, &protocol.InitializedParams{})
}

// shutdown ends the session properly and checks Serve's verdict.
func (c *testClient) shutdown() {
	c.t.Helper()
	c.mustCall(protocol.MethodShutdown, nil, nil)
	c.notify(protocol.MethodExit, nil)
	select {
	case err := <-c.serveErr:
		if err != nil {
			c.t.Errorf("Serve after shutdown and exit: %v", err)
		}
		c.serveErr <- err // for the cleanup
	case <-time.After(waitLimit):
		c.t.Fatalf("server did not stop after exit")
	}
}

// writeArchive writes a txtar archive under dir.
func writeArchive(t testing.TB, dir, archive string) {
	t.Helper()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) jsonrpc2.Code {
	var werr *jsonrpc2.Error
	if errors.As(err, &werr) {
		return werr.Code
	}
	return 0
}

// codeActions asks for the code actions on a line (0-based) of u.
func (c *testClient) codeActions(u uri.URI, line uint32) []protocol.CodeAction {
	c.t.Helper()
	var raw []json.RawMessage
	c.mustCall(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range:        protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}},
	}, &raw)
	out := make([]protocol.CodeAction, len(raw))
	for i, r := range raw {
		if err := protocol.Unmarshal(r, &out[i]); err != nil {
			c.t.Fatal(err)
		}
	}
	return out
}
