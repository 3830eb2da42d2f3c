package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
)

// TestFeatures drives every request over a module whose results come from
// the fake engine, including edits that move and remove suspicious lines.
func TestFeatures(t *testing.T) {
	dir, fake := newFakeModule(t)
	c := startServer(t, Options{Open: fake.open})
	yes := true
	c.initialize(dir, `{"faultline":{"top":5}}`, withExtensions(protocol.ClientCapabilities{
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes},
	}))
	src := uri.File(filepath.Join(dir, "a.go"))
	testFile := uri.File(filepath.Join(dir, "a_test.go"))

	// Lines 5 and 6 (0-based 4 and 5) are run by the failing test.
	diags := c.waitDiagnostics("diagnostics on a.go", src, onLines(4, 5))
	d := diags[0]
	if d.Range.Start.Line != 5 || d.Severity != protocol.DiagnosticSeverityWarning {
		t.Errorf("first diagnostic %+v, want rank 1 on line 5 as a warning", d)
	}
	msg := string(d.Message.(protocol.String))
	for _, want := range []string{"score 1 (ochiai)", "1 of 1 failing", "TestNextPositive", "0 of 2 passing"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	// The formula's order (3 lines) is published first and the learned
	// one (5 lines) right after: under load the first diagnostics read
	// may already be the second's.
	if !strings.Contains(msg, "rank 1 of 3") && !strings.Contains(msg, "rank 1 of 5 under the learned order") {
		t.Errorf("message %q gives neither the formula's rank 1 of 3 nor the learned order's 1 of 5", msg)
	}
	if src, _ := d.Source.Get(); src != "faultline" || d.Code.(protocol.String) != "suspicious" {
		t.Errorf("source %q code %v", src, d.Code)
	}
	if len(d.RelatedInformation) != 1 || d.RelatedInformation[0].Location.URI != testFile || d.RelatedInformation[0].Location.Range.Start.Line != 6 {
		t.Errorf("related information %+v, want the failure site a_test.go:7", d.RelatedInformation)
	}
	if string(d.Data) != `{"score":1,"rank":1}` {
		t.Errorf("data %s", d.Data)
	}
	c.waitFor("rankingChanged and progress", func(notes []note) bool {
		var ranking, progress bool
		for _, n := range notes {
			ranking = ranking || n.method == methodRankingChanged && strings.Contains(string(n.params), `"line":6`)
			progress = progress || n.method == protocol.MethodProgress && strings.Contains(string(n.params), `"kind":"end"`)
		}
		return ranking && progress
	})

	// Hover: the four counts and every formula.
	var h protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 5), &h)
	text := h.Contents.(*protocol.MarkupContent).Value
	for _, want := range []string{"1 (ef)", "0 (nf)", "0 (ep)", "2 (np)", "| tarantula |", "| ochiai ◀ | 1 |"} {
		if !strings.Contains(text, want) {
			t.Errorf("hover lacks %q:\n%s", want, text)
		}
	}
	var none *protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 7), &none)
	if none != nil {
		t.Errorf("hover on a line no failing test runs: %+v", none)
	}

	// Inlay hints at the end of both suspicious lines.
	var hints []protocol.InlayHint
	c.mustCall(protocol.MethodTextDocumentInlayHint, &protocol.InlayHintParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: src},
		Range:        protocol.Range{End: protocol.Position{Line: 100}},
	}, &hints)
	if len(hints) != 2 || hints[0].Position != (protocol.Position{Line: 5, Character: 14}) || hints[0].Label.(protocol.String) != "⚠ 1.00 #1" {
		t.Errorf("hints %+v", hints)
	}

	// Code action and its command.
	var actions []json.RawMessage
	c.mustCall(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: src},
		Range:        protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 5}},
	}, &actions)
	if len(actions) != 1 || !strings.Contains(string(actions[0]), commandShowFailingTests) {
		t.Fatalf("code actions %s", actions)
	}
	var action protocol.CodeAction
	if err := protocol.Unmarshal(actions[0], &action); err != nil {
		t.Fatal(err)
	}
	var tests []failingTest
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: action.Command.Command, Arguments: action.Command.Arguments,
	}, &tests)
	if len(tests) != 1 || tests[0].Name != "TestNextPositive" || tests[0].URI != string(testFile) || tests[0].Line != 6 || tests[0].Message != "a_test.go:7: Next(1) != 2" {
		t.Errorf("failing tests %+v", tests)
	}

	// The ranking for a tree view.
	var r rankingResult
	c.mustCall(methodRanking, map[string]string{}, &r)
	if r.Formula != "ochiai" || r.Failed != 1 || r.Passed != 2 || len(r.Lines) != 2 || r.Lines[0].Line != 6 || r.Lines[0].URI != string(src) {
		t.Errorf("ranking %+v", r)
	}

	// Code lens on the failing test, then localizing from it.
	c.notify(protocol.MethodTextDocumentDidOpen, didOpenFile(t, testFile))
	var lenses []protocol.CodeLens
	c.mustCall(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: testFile}}, &lenses)
	if len(lenses) != 1 || lenses[0].Range.Start.Line != 4 || !strings.Contains(lenses[0].Command.Title, "1 failing · 2 suspicious lines") {
		t.Fatalf("code lenses %+v", lenses)
	}
	var localized rankingResult
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: lenses[0].Command.Command, Arguments: lenses[0].Command.Arguments,
	}, &localized)
	if localized.Failed != 1 || len(localized.Lines) != 2 {
		t.Errorf("localized ranking %+v", localized)
	}
	c.mustCall(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: testFile}}, &lenses)
	if len(lenses) != 1 || !strings.Contains(lenses[0].Command.Title, "localized to this test") {
		t.Errorf("lens after localizing %+v", lenses)
	}
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: lenses[0].Command.Command, Arguments: lenses[0].Command.Arguments,
	}, nil)

	// Edits: diagnostics follow inserted lines, and leave an edited line.
	c.notify(protocol.MethodTextDocumentDidOpen, didOpenFile(t, src))
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: src}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1}},
			Text:  "// two new lines\n// above Next\n",
		}},
	})
	c.waitDiagnostics("diagnostics moved down by two lines", src, onLines(6, 7))
	c.mustCall(protocol.MethodTextDocumentInlayHint, &protocol.InlayHintParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: src},
		Range:        protocol.Range{End: protocol.Position{Line: 100}},
	}, &hints)
	if len(hints) != 2 || hints[0].Position.Line != 7 {
		t.Errorf("hints after the edit %+v", hints)
	}
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: src}, Version: 3},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 7, Character: 13}, End: protocol.Position{Line: 7, Character: 14}},
			Text:  "1",
		}},
	})
	c.waitDiagnostics("the edited line's diagnostic withdrawn", src, onLines(6))
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 7), &none)
	if none != nil {
		t.Errorf("hover on an edited line: %+v", none)
	}
	// Closing the buffer without saving: the disk governs again.
	c.notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: src}})
	c.waitDiagnostics("diagnostics back on the saved lines", src, onLines(4, 5))

	// Settings: fewer lines, another formula.
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"faultline":{"top":1,"formula":"tarantula"}}`)})
	diags = c.waitDiagnostics("one diagnostic under tarantula", src, onLines(5))
	if !strings.Contains(string(diags[0].Message.(protocol.String)), "(tarantula)") {
		t.Errorf("message after switching formula: %v", diags[0].Message)
	}

	// All tests pass after a fix: earlier diagnostics are cleared.
	fake.mu.Lock()
	fake.result = func() *localize.Matrix { return passingMatrix(t, dir) }
	fake.mu.Unlock()
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandRun}, nil)
	c.waitDiagnostics("diagnostics cleared", src, func(d []protocol.Diagnostic) bool { return len(d) == 0 })
	c.shutdown()
}

func hoverAt(u uri.URI, line uint32) *protocol.HoverParams {
	return &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Position:     protocol.Position{Line: line, Character: 3},
	}}
}

func didOpenFile(t *testing.T, u uri.URI) *protocol.DidOpenTextDocumentParams {
	text, err := os.ReadFile(u.FsPath())
	if err != nil {
		t.Fatal(err)
	}
	return &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: 1, Text: string(text)}}
}

// passingMatrix is fakeMatrix after the fix: every test passes.
func passingMatrix(t testing.TB, root string) *localize.Matrix {
	m := fakeMatrix(t, root)
	m.Tests[0].Verdict = localize.VerdictPass
	m.Tests[0].FailSites = nil
	return m
}
