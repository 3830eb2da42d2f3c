package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
)

func TestAutoRunOffAndStoreReload(t *testing.T) {
	dir, fake := newFakeModule(t)
	c := startServer(t, Options{Open: fake.open, Debounce: 10 * time.Millisecond})
	c.initialize(dir, `{"autoRun":false}`, protocol.ClientCapabilities{})
	src := uri.File(filepath.Join(dir, "a.go"))
	fake.waitLoaded()

	// A save does not run anything.
	c.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: src}})
	c.sync()
	v := c.srv.viewOf(dir)
	v.mu.Lock()
	pending := v.timer != nil
	v.mu.Unlock()
	if pending || fake.collections() != 0 {
		t.Fatalf("a save with autoRun off scheduled a run (pending %v, runs %d)", pending, fake.collections())
	}

	// Another process writes the store: the server shows its results
	// without running anything.
	fake.mu.Lock()
	fake.stored = fakeMatrix(t, dir)
	fake.mu.Unlock()
	if err := os.WriteFile(fake.store, []byte("new results"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitDiagnostics("diagnostics from the store", src, onLines(4, 5))
	if n := fake.collections(); n != 0 {
		t.Errorf("the server ran the tests %d times, want none", n)
	}

	// The on-demand command runs them.
	var res runResult
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandRun}, &res)
	if fake.collections() != 1 || len(res.Modules) != 1 || res.Modules[0].Failed != 1 || res.Modules[0].Passed != 2 {
		t.Errorf("run result %+v after %d runs", res, fake.collections())
	}

	// Turning automatic runs on makes a save run the tests, once for a burst.
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"autoRun":true}`)})
	fake.waitCollecting() // the run of faultline.run
	fake.waitCollecting() // the run started by enabling autoRun
	c.shutdown()
}

func TestSavesAreDebounced(t *testing.T) {
	dir, fake := newFakeModule(t)
	// A debounce longer than any test run: only a burst's last save counts.
	c := startServer(t, Options{Open: fake.open, Debounce: time.Hour})
	c.initialize(dir, `{"autoRun":false}`, protocol.ClientCapabilities{})
	fake.waitLoaded()
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"autoRun":true}`)})
	fake.waitCollecting()
	src := uri.File(filepath.Join(dir, "a.go"))
	for i := 0; i < 5; i++ {
		c.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: src}})
	}
	c.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(dir, "notes.txt"))}})
	c.sync()
	v := c.srv.viewOf(dir)
	v.mu.Lock()
	pending := v.timer != nil
	v.mu.Unlock()
	if !pending || fake.collections() != 1 {
		t.Errorf("after a burst of saves: pending %v, runs %d; want one pending run", pending, fake.collections())
	}
	c.shutdown()
}

func TestConfigurationPull(t *testing.T) {
	dir, fake := newFakeModule(t)
	c := startServer(t, Options{Open: fake.open})
	c.SetSettings(json.RawMessage(`{"top":1,"formula":"dstar"}`))
	yes := true
	c.initialize(dir, "", protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{Configuration: &yes}})
	src := uri.File(filepath.Join(dir, "a.go"))
	diags := c.waitDiagnostics("one diagnostic under D*", src, onLines(5))
	if !strings.Contains(string(diags[0].Message.(protocol.String)), "(dstar") {
		t.Errorf("message %v", diags[0].Message)
	}
	// A change signalled without settings makes the server pull again.
	c.SetSettings(json.RawMessage(`{"top":2}`))
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`null`)})
	c.waitDiagnostics("two diagnostics", src, onLines(4, 5))
	c.shutdown()
}

func TestBuildFailure(t *testing.T) {
	dir, fake := newFakeModule(t)
	c := startServer(t, Options{Open: fake.open})
	c.initialize(dir, "", protocol.ClientCapabilities{})
	src := uri.File(filepath.Join(dir, "a.go"))
	c.waitDiagnostics("diagnostics", src, onLines(4, 5))

	fake.mu.Lock()
	fake.result = func() *localize.Matrix {
		m := fakeMatrix(t, dir)
		m.BuildErrors = map[string]string{"example.com/fake": "a.go:6:3: syntax error: unexpected return"}
		for i := range m.Tests {
			m.Tests[i].Verdict = localize.VerdictBuildError
		}
		return m
	}
	fake.mu.Unlock()
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandRun}, nil)
	c.waitDiagnostics("diagnostics cleared", src, func(d []protocol.Diagnostic) bool { return len(d) == 0 })
	c.waitFor("the compiler's message", func(notes []note) bool {
		n := 0
		for _, x := range notes {
			if x.method == protocol.MethodWindowShowMessage && strings.Contains(string(x.params), "syntax error: unexpected return") {
				n++
			}
		}
		return n == 1
	})
	var h *protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 5), &h)
	if h != nil {
		t.Errorf("hover while the build fails: %+v", h)
	}
	c.shutdown()
}

// multiFake serves several fake modules.
type multiFake map[string]*fakeWorkspace

func (m multiFake) open(dir string) (Workspace, error) {
	for root, f := range m {
		if within(root, dir) {
			return f, nil
		}
	}
	return nil, os.ErrNotExist
}

func TestWorkspaceFolders(t *testing.T) {
	parent := t.TempDir()
	m1, m2 := filepath.Join(parent, "m1"), filepath.Join(parent, "m2")
	writeArchive(t, m1, fakeModule)
	writeArchive(t, m2, fakeModule)
	writeArchive(t, parent, "-- .hidden/go.mod --\nmodule hidden\n-- m1/testdata/go.mod --\nmodule ignored\n")
	fakes := multiFake{m1: newFakeWorkspace(t, m1), m2: newFakeWorkspace(t, m2)}
	c := startServer(t, Options{Open: fakes.open})
	c.initializeFolders(protocol.WorkspaceFolder{URI: uri.File(parent), Name: "both"})
	src1, src2 := uri.File(filepath.Join(m1, "a.go")), uri.File(filepath.Join(m2, "a.go"))
	c.waitDiagnostics("diagnostics in m1", src1, onLines(4, 5))
	c.waitDiagnostics("diagnostics in m2", src2, onLines(4, 5))
	var r rankingResult
	c.mustCall(methodRanking, map[string]string{}, &r)
	if r.Failed != 2 || len(r.Lines) != 4 {
		t.Errorf("ranking over both modules %+v", r)
	}
	c.mustCall(methodRanking, map[string]string{"uri": string(src2)}, &r)
	if r.Failed != 1 || len(r.Lines) != 2 || r.Lines[0].URI != string(src2) {
		t.Errorf("ranking of m2 %+v", r)
	}

	c.notify(protocol.MethodWorkspaceDidChangeWorkspaceFolders, &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Removed: []protocol.WorkspaceFolder{{URI: uri.File(parent), Name: "both"}},
		Added:   []protocol.WorkspaceFolder{{URI: uri.File(m1), Name: "m1"}},
	}})
	c.waitDiagnostics("m2 cleared", src2, func(d []protocol.Diagnostic) bool { return len(d) == 0 })
	c.sync()
	if views := c.srv.allViews(); len(views) != 1 || views[0].root != m1 {
		t.Errorf("views after the change: %d", len(views))
	}
	c.shutdown()
}

// startWithFindings starts a server on fakeModule with default settings
// and the fake localizer l, and waits until l's findings arrived. It returns
// the client, the module's directory and the URI of a.go.
func startWithFindings(t *testing.T, l *fakeLocalizer) (*testClient, string, uri.URI) {
	dir, fake := newFakeModule(t)
	c := startServer(t, Options{Open: fake.open, Localizer: l.open})
	yes := true
	c.initialize(dir, `{}`, protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{
		InlayHint: &protocol.InlayHintWorkspaceClientCapabilities{RefreshSupport: &yes},
	}})
	src := uri.File(filepath.Join(dir, "a.go"))
	c.waitDiagnostics("diagnostics", src, onLines(4, 5))
	c.waitRequest(protocol.MethodWorkspaceInlayHintRefresh, 2) // after the ranking, after the findings
	c.waitVerifiedFix()
	return c, dir, src
}

// waitVerifiedFix waits until the ranking shows a verified angelic fix. The
// refreshes alone do not say it: the rebuild that ends a run and the one the
// findings start race, and either may publish second.
func (c *testClient) waitVerifiedFix() {
	c.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		var r rankingResult
		c.mustCall(methodRanking, map[string]string{}, &r)
		if slices.ContainsFunc(r.Lines, func(l rankingLine) bool { return l.Fixes > 0 }) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("gave up waiting for a verified fix in the ranking: %+v", r)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAngelicFindings(t *testing.T) {
	c, _, src := startWithFindings(t, &fakeLocalizer{t: t, results: []localize.TestResult{fakeFix(t, "1", true)}})
	c.waitDiagnostics("the angelic fix in the diagnostic", src, func(ds []protocol.Diagnostic) bool {
		return slices.ContainsFunc(ds, func(d protocol.Diagnostic) bool {
			return d.Range.Start.Line == 5 && strings.Contains(fmt.Sprint(d.Message), "\nangelic fix: a.go:6  return x + 2  →  return x + 1  makes TestNextPositive pass (verified by a forced run)")
		})
	})
	var hints []protocol.InlayHint
	c.mustCall(protocol.MethodTextDocumentInlayHint, &protocol.InlayHintParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: src},
		Range:        protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 5}},
	}, &hints)
	if len(hints) != 2 || hints[1].Label.(protocol.String) != "⇒ 1" || hints[1].Position.Character != 14 {
		t.Fatalf("hints %+v", hints)
	}
	var actions []json.RawMessage
	c.mustCall(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: src},
		Range:        protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 5}},
	}, &actions)
	if len(actions) != 3 { // show failing tests, preview, verify
		t.Fatalf("actions %s", actions)
	}
	var fix protocol.CodeAction
	if err := protocol.Unmarshal(actions[1], &fix); err != nil {
		t.Fatal(err)
	}
	edits := fix.Edit.Changes[src]
	if fix.Title != "Preview angelic fix (demonstration): a.go:6  return x + 2  →  return x + 1  makes TestNextPositive pass (verified by a forced run)" || len(edits) != 1 || edits[0].NewText != "1" ||
		edits[0].Range.Start != (protocol.Position{Line: 5, Character: 13}) {
		t.Errorf("fix action %+v", fix)
	}
	c.shutdown()
}
