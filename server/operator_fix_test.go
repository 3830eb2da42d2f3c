package server

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// TestOperatorFixOverLSP: with the mutants setting on, the real engine
// collects the failing TestRatio, the mutation analysis finds that `*` →
// `/` makes it pass and keeps TestRatioOne passing, and the editor gets
// the fix as a code action whose edit rewrites the line, and in the hover
// of the line, which names it among the evidence.
func TestOperatorFixOverLSP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and the mutants on a module; skipped with -short")
	}
	dir, cache := txtartest.Extract(t, filepath.Join("testdata", "ratio.txtar")), t.TempDir()
	c := startServer(t, Options{
		Open: func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) },
	})
	c.setAnswer(reply("Run this time"))
	c.initialize(dir, `{"order":"formula","mutants":50}`, protocol.ClientCapabilities{})
	src := uri.File(filepath.Join(dir, "ratio.go"))
	deadline := time.Now().Add(waitLimit)
	var apply *protocol.CodeAction
	for apply == nil {
		var actions []protocol.CodeAction
		c.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": src},
			"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 10, "character": 0}},
			"context":      map[string]any{"diagnostics": []any{}},
		}, &actions)
		for i, a := range actions {
			if strings.HasPrefix(a.Title, "Apply verified operator fix") {
				apply = &actions[i]
			}
		}
		if apply == nil {
			if time.Now().After(deadline) {
				t.Fatalf("no operator fix offered; last actions %+v", actions)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if want := "Apply verified operator fix: `* → /`: return a / b"; apply.Title != want {
		t.Errorf("action %q, want %q", apply.Title, want)
	}
	edits := apply.Edit.Changes[src]
	if len(edits) != 1 || edits[0].NewText != "return a / b" || edits[0].Range.Start != (protocol.Position{Line: 4, Character: 1}) ||
		edits[0].Range.End != (protocol.Position{Line: 4, Character: 13}) {
		t.Errorf("edit %+v, want line 5's text after its tab replaced by %q", apply.Edit, "return a / b")
	}
	var h *protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 4), &h)
	if h == nil {
		t.Fatal("no hover on the fixed line")
	}
	text := h.Contents.(*protocol.MarkupContent).Value
	for _, want := range []string{
		"it hosts a verified operator fix (* → /)",
		"**verified operator fixes**",
		"`return a * b` → `return a / b` (`* → /`) makes the failing test that runs the line pass and keeps the passing ones passing",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("hover lacks %q:\n%s", want, text)
		}
	}
	c.shutdown()
}
