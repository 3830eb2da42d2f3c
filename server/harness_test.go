package server

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"github.com/faultline-go/faultline/internal/fakeeditor"
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

// testClient is the fake editor, bound to a test, speaking to a server
// running in the same process.
type testClient struct {
	*fakeeditor.Editor
	t   *testing.T
	srv *Server
}

func startServer(t *testing.T, opts Options) *testClient {
	t.Helper()
	if opts.Trust == nil {
		opts.Trust = testTrustList(t)
	}
	srv := New(opts)
	c := &testClient{Editor: fakeeditor.Connect(context.Background(), srv.Serve), t: t, srv: srv}
	t.Cleanup(func() {
		c.Close()
		select {
		case <-c.Stopped():
		case <-time.After(waitLimit):
			t.Errorf("server did not stop after its connection closed")
		}
	})
	return c
}

// testTrustList is an empty trust list of the test's own, so no test
// reads or writes the user's.
func testTrustList(t testing.TB) *trust.Store {
	return trust.At(filepath.Join(t.TempDir(), "trusted.json"))
}

func (c *testClient) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	return c.Call(ctx, method, params, result)
}

func (c *testClient) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.Notify(method, params); err != nil {
		c.t.Fatal(err)
	}
}

// notes returns the notifications received so far.
func (c *testClient) notes() []note {
	return notesIn(c.Log())
}

func notesIn(log []fakeeditor.Message) []note {
	var notes []note
	for _, m := range log {
		if m.Kind == fakeeditor.Notification {
			notes = append(notes, note{method: m.Method, params: m.Params})
		}
	}
	return notes
}

// waitFor waits until check, run on the notes received so far, succeeds.
func (c *testClient) waitFor(what string, check func(notes []note) bool) {
	c.t.Helper()
	if err := c.AwaitFor(waitLimit, func(log []fakeeditor.Message) bool { return check(notesIn(log)) }); err != nil {
		c.t.Fatalf("gave up waiting for %s: %v", what, err)
	}
}

// waitRequest waits until the server has sent n requests of a method.
func (c *testClient) waitRequest(method string, n int) {
	c.t.Helper()
	if err := c.AwaitFor(waitLimit, func(log []fakeeditor.Message) bool { return fakeeditor.Count(log, method) >= n }); err != nil {
		c.t.Fatalf("gave up waiting for %d %s requests: %v", n, method, err)
	}
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

// latestDiagnostics returns the latest diagnostics published for u, and whether
// any were published at all.
func (c *testClient) latestDiagnostics(u uri.URI) ([]protocol.Diagnostic, bool) {
	return fakeeditor.Diagnostics(c.Log(), u)
}

// waitDiagnostics waits until the diagnostics shown for u satisfy check.
func (c *testClient) waitDiagnostics(what string, u uri.URI, check func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	var got []protocol.Diagnostic
	err := c.AwaitFor(waitLimit, func(log []fakeeditor.Message) bool {
		d, ok := fakeeditor.Diagnostics(log, u)
		got = d
		return ok && check(d)
	})
	if err != nil {
		c.t.Fatalf("gave up waiting for %s: %v", what, err)
	}
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
	return c.handshake(params)
}

func (c *testClient) handshake(params *protocol.InitializeParams) *protocol.InitializeResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := c.Initialize(ctx, params)
	if err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	return res
}

// initializeFolders performs the handshake with workspace folders instead
// of a root.
func (c *testClient) initializeFolders(folders ...protocol.WorkspaceFolder) {
	c.t.Helper()
	c.handshake(&protocol.InitializeParams{
		WorkspaceFoldersInitializeParams: protocol.WorkspaceFoldersInitializeParams{WorkspaceFolders: protocol.NewNullable(folders)},
	})
}

// shutdown ends the session properly and checks Serve's verdict.
func (c *testClient) shutdown() {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		c.t.Fatal(err)
	}
	select {
	case <-c.Stopped():
		if err := c.ServerErr(); err != nil {
			c.t.Errorf("Serve after shutdown and exit: %v", err)
		}
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
