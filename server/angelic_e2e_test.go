//go:build cgo

package server

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/trust"
)

// TestVerifyOverLSP runs the whole path a user takes, with default
// settings: the real engine collects the failing TestFoo, the localization
// service analyses it in a worker, the "Verify angelic fix" code action
// appears, and its command runs the test with the values forced, reporting
// a pass as result and message.
func TestVerifyOverLSP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and the analysis on a module; skipped with -short")
	}
	dir, cache := fooModule(t), t.TempDir()
	srv := New(Options{
		Open:  func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) },
		Trust: trust.At(filepath.Join(t.TempDir(), "trusted.json")),
	})
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	var mu sync.Mutex
	var messages []string
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(clientEnd))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			// Answer off the read loop: over the unbuffered pipe, a reply
			// written while the server writes its own would block both.
			jsonrpc2.Async(ctx)
		}
		switch req.Method() {
		case "workspace/configuration":
			return []any{nil}, nil
		case "window/showMessageRequest":
			return map[string]string{"title": "Run this time"}, nil
		case "window/showMessage":
			var p struct {
				Message string `json:"message"`
			}
			if err := json.Unmarshal(req.Params(), &p); err == nil {
				mu.Lock()
				messages = append(messages, p.Message)
				mu.Unlock()
			}
		}
		return nil, nil
	})
	defer func() {
		clientEnd.Close()
		<-served
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	call := func(method string, params, result any) {
		t.Helper()
		if _, err := conn.Call(ctx, method, params, result); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	call("initialize", map[string]any{
		"rootUri": uri.File(dir), "capabilities": map[string]any{},
	}, nil)
	if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}

	// Findings arrive in the background: ask until the action is offered.
	src := uri.File(filepath.Join(dir, "foo.go"))
	type action struct {
		Title   string `json:"title"`
		Command struct {
			Command   string            `json:"command"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	var verify *action
	for verify == nil {
		var actions []action
		call("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": src},
			"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 20, "character": 0}},
			"context":      map[string]any{"diagnostics": []any{}},
		}, &actions)
		previews := 0
		for i, a := range actions {
			if strings.HasPrefix(a.Title, "Preview angelic fix") {
				previews++
			}
			if verify == nil && strings.HasPrefix(a.Title, "Verify angelic fix") && strings.Contains(a.Title, "makes TestFoo pass (verified by a forced run") {
				verify = &actions[i]
			}
		}
		if previews > 0 && verify == nil {
			t.Fatalf("fixes previewed but none offered for verification: %+v", actions)
		}
		if verify == nil {
			select {
			case <-ctx.Done():
				t.Fatalf("no Verify angelic fix action offered; last actions %+v", actions)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	var res struct {
		Test   string   `json:"test"`
		Passed bool     `json:"passed"`
		Forced []string `json:"forced"`
	}
	call("workspace/executeCommand", map[string]any{"command": verify.Command.Command, "arguments": verify.Command.Arguments}, &res)
	if !res.Passed || res.Test != "TestFoo" || len(res.Forced) != 1 {
		t.Errorf("verification %+v of %q", res, verify.Title)
	}
	mu.Lock()
	shown := strings.Join(messages, "\n")
	mu.Unlock()
	if !strings.Contains(shown, "faultline: TestFoo passes with foo.go:") {
		t.Errorf("messages shown:\n%s", shown)
	}
	call("shutdown", nil, nil)
	_ = conn.Notify(ctx, "exit", nil)
}
