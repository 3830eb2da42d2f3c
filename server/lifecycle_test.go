package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func TestRequestsBeforeInitialize(t *testing.T) {
	c := startServer(t, Options{Open: noEngine(t)})
	err := c.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{}, nil)
	if rpcCode(err) != jsonrpc2.ServerNotInitialized {
		t.Fatalf("hover before initialize: got %v, want ServerNotInitialized", err)
	}
	err = c.call(methodRanking, map[string]string{}, nil)
	if rpcCode(err) != jsonrpc2.ServerNotInitialized {
		t.Fatalf("faultline/ranking before initialize: got %v, want ServerNotInitialized", err)
	}
	// A notification before initialize is dropped, and the server lives on.
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{})
	c.initialize("", "", protocol.ClientCapabilities{})
	c.shutdown()
}

func TestInitializeAdvertisesWhatIsImplemented(t *testing.T) {
	c := startServer(t, Options{Open: noEngine(t)})
	res := c.initialize("", "", protocol.ClientCapabilities{})
	caps := res.Capabilities
	if caps.HoverProvider == nil || caps.InlayHintProvider == nil || caps.CodeLensProvider == nil || caps.CodeActionProvider == nil {
		t.Errorf("missing providers in %+v", caps)
	}
	if caps.CompletionProvider != nil || caps.DefinitionProvider != nil || caps.DiagnosticProvider != nil {
		t.Errorf("advertises unimplemented features: %+v", caps)
	}
	reg := New(Options{}).registry
	for _, cmd := range caps.ExecuteCommandProvider.Commands {
		if _, ok := commands()[cmd]; !ok {
			t.Errorf("advertised command %q has no implementation", cmd)
		}
	}
	for _, m := range []string{protocol.MethodTextDocumentHover, protocol.MethodTextDocumentInlayHint, protocol.MethodTextDocumentCodeLens, protocol.MethodTextDocumentCodeAction, protocol.MethodWorkspaceExecuteCommand} {
		if _, ok := reg[m]; !ok {
			t.Errorf("advertised %s is not in the registry", m)
		}
	}
	if res.ServerInfo.Name != "faultline" {
		t.Errorf("server name %q", res.ServerInfo.Name)
	}
	if caps.PositionEncoding != protocol.PositionEncodingKindUTF16 {
		t.Errorf("position encoding %q without client preference, want utf-16", caps.PositionEncoding)
	}
	if err := c.call(protocol.MethodInitialize, &protocol.InitializeParams{}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: got %v, want InvalidRequest", err)
	}
	c.shutdown()
}

func TestUTF8WhenOffered(t *testing.T) {
	c := startServer(t, Options{Open: noEngine(t)})
	res := c.initialize("", "", protocol.ClientCapabilities{General: &protocol.GeneralClientCapabilities{
		PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16},
	}})
	if res.Capabilities.PositionEncoding != protocol.PositionEncodingKindUTF8 {
		t.Errorf("position encoding %q, want utf-8", res.Capabilities.PositionEncoding)
	}
	c.shutdown()
}

func TestBadRequests(t *testing.T) {
	c := startServer(t, Options{Open: noEngine(t)})
	c.initialize("", "", protocol.ClientCapabilities{})
	tests := []struct {
		name   string
		method string
		params any
		want   jsonrpc2.Code
	}{
		{"unknown method", "textDocument/unknownThing", map[string]int{}, jsonrpc2.MethodNotFound},
		{"params of the wrong type", protocol.MethodTextDocumentHover, []int{1, 2}, jsonrpc2.InvalidParams},
		{"params of the wrong shape", protocol.MethodTextDocumentInlayHint, map[string]any{"range": "everywhere"}, jsonrpc2.InvalidParams},
		{"missing params", protocol.MethodTextDocumentCodeLens, nil, jsonrpc2.InvalidParams},
		{"notification sent as request", protocol.MethodTextDocumentDidSave, map[string]int{}, jsonrpc2.InvalidRequest},
		{"unknown command", protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "faultline.nothing"}, jsonrpc2.InvalidParams},
		{"bad command argument", protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": commandShowFailingTests, "arguments": []any{42}}, jsonrpc2.InvalidParams},
		{"command on a file outside the workspace", protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": commandShowFailingTests, "arguments": []any{map[string]any{"uri": "file:///nowhere/x.go", "line": 3}}}, jsonrpc2.InvalidParams},
		{"ranking of a file outside the workspace", methodRanking, map[string]string{"uri": "file:///nowhere/x.go"}, jsonrpc2.InvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.call(tt.method, tt.params, nil)
			if rpcCode(err) != tt.want {
				t.Fatalf("got %v (code %d), want code %d", err, rpcCode(err), tt.want)
			}
		})
	}
	// Bad notifications are logged, never fatal: the server still answers.
	c.notify(protocol.MethodTextDocumentDidChange, []int{1})
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{})
	c.notify("$/someOptionalNotification", map[string]int{})
	var r rankingResult
	c.mustCall(methodRanking, map[string]string{}, &r)
	if len(r.Lines) != 0 {
		t.Errorf("ranking without modules: %+v", r)
	}
	c.shutdown()
	if err := c.call(methodRanking, map[string]string{}, nil); err == nil {
		t.Errorf("request after exit succeeded")
	}
}

func TestRequestsAfterShutdown(t *testing.T) {
	c := startServer(t, Options{Open: noEngine(t)})
	c.initialize("", "", protocol.ClientCapabilities{})
	c.mustCall(protocol.MethodShutdown, nil, nil)
	if err := c.call(methodRanking, map[string]string{}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("request after shutdown: got %v, want InvalidRequest", err)
	}
	c.notify(protocol.MethodExit, nil)
	if err := c.ServerErr(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	c := startServer(t, Options{Open: noEngine(t)})
	c.initialize("", "", protocol.ClientCapabilities{})
	c.notify(protocol.MethodExit, nil)
	select {
	case <-c.Stopped():
		if err := c.ServerErr(); !errors.Is(err, ErrExitWithoutShutdown) {
			t.Errorf("Serve: got %v, want ErrExitWithoutShutdown", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("server did not stop on exit")
	}
}

func TestServeStopsWithContext(t *testing.T) {
	srv := New(Options{Open: noEngine(t)})
	ctx, cancel := context.WithCancel(context.Background())
	a, b := pipe()
	defer b.Close()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, a) }()
	cancel()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatal("Serve did not return after its context was cancelled")
	}
}
