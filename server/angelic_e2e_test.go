//go:build cgo

package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
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
	c := startServer(t, Options{
		Open: func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) },
	})
	c.setAnswer(reply("Run this time"))
	c.initialize(dir, "", protocol.ClientCapabilities{})
	deadline := time.Now().Add(waitLimit)

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
		c.mustCall("textDocument/codeAction", map[string]any{
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
			if time.Now().After(deadline) {
				t.Fatalf("no Verify angelic fix action offered; last actions %+v", actions)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	var res struct {
		Test   string   `json:"test"`
		Passed bool     `json:"passed"`
		Forced []string `json:"forced"`
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": verify.Command.Command, "arguments": verify.Command.Arguments}, &res)
	if !res.Passed || res.Test != "TestFoo" || len(res.Forced) != 1 {
		t.Errorf("verification %+v of %q", res, verify.Title)
	}
	var messages []string
	for _, n := range c.notes() {
		var p struct {
			Message string `json:"message"`
		}
		if n.method == "window/showMessage" && json.Unmarshal(n.params, &p) == nil {
			messages = append(messages, p.Message)
		}
	}
	shown := strings.Join(messages, "\n")
	if !strings.Contains(shown, "faultline: TestFoo passes with foo.go:") {
		t.Errorf("messages shown:\n%s", shown)
	}
	c.shutdown()
}
