package server

import (
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// TestVerifyFix covers the "Verify angelic fix" action and the
// faultline.verifyFix command it runs: both outcomes as result and message,
// the hover explaining the angelic value, bad arguments, and the refusal of
// a candidate whose file changed since the tests ran.
func TestVerifyFix(t *testing.T) {
	loc := &fakeLocalizer{t: t, passes: "1", results: []localize.TestResult{fakeFix(t, "1", true), fakeFix(t, "3", false)}}
	c, _, src := startWithFindings(t, loc)

	actions := c.codeActions(src, 5)
	var verify []protocol.CodeAction
	for _, a := range actions {
		if a.Command.Command == commandVerifyFix {
			verify = append(verify, a)
		}
	}
	// Show failing tests, then a preview and a verification per fix.
	if len(actions) != 5 || len(verify) != 2 || !strings.HasPrefix(verify[0].Title, "Verify angelic fix") || !strings.HasSuffix(verify[0].Title, ": a.go:6  return x + 2  →  return x + 1  makes TestNextPositive pass (verified by a forced run)") {
		t.Fatalf("code actions %+v", actions)
	}
	run := func(a protocol.CodeAction) (verifyFixResult, error) {
		var res verifyFixResult
		err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: a.Command.Command, Arguments: a.Command.Arguments}, &res)
		return res, err
	}
	res, err := run(verify[0])
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed || res.Test != "TestNextPositive" || res.DurationMs != 1500 || len(res.Forced) != 1 || res.Forced[0] != "a.go:6 `2` = 1" {
		t.Errorf("result %+v", res)
	}
	if calls := loc.verifications(); len(calls) != 1 || calls[0] != "1" {
		t.Errorf("Verify calls %q", calls)
	}
	c.waitFor("the passing verification shown", func(notes []note) bool {
		return hasMessage(notes, protocol.MessageTypeInfo, "faultline: TestNextPositive passes with a.go:6 `2` = 1 forced (run took 1.5s)")
	})
	res, err = run(verify[1])
	if err != nil || res.Passed || !strings.Contains(res.Output, "Next(1) != 2") {
		t.Errorf("result %+v, %v", res, err)
	}
	c.waitFor("the failing verification shown", func(notes []note) bool {
		return hasMessage(notes, protocol.MessageTypeWarning, "faultline: TestNextPositive still fails with a.go:6 `2` = 3 forced (run took 1.5s): a_test.go:7: Next(1) != 2")
	})

	// The hover explains both candidates of the line.
	var h protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 5), &h)
	text := h.Contents.(*protocol.MarkupContent).Value
	for _, want := range []string{
		"| ochiai ◀ | 1 |",
		"- `return x + 2` → `return x + 1` makes TestNextPositive pass (verified by a forced run)",
		"- `return x + 2` → `return x + 3` makes TestNextPositive pass (as the analysis predicts; no forced run confirmed it)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("hover lacks %q:\n%s", want, text)
		}
	}

	// Bad arguments are refused before anything runs.
	for _, args := range [][]protocol.LSPAny{
		nil,
		{protocol.LSPAny(`"pass-1"`)},
		{protocol.LSPAny(`{"uri":"` + string(src) + `"}`)},
		{protocol.LSPAny(`{"uri":"` + string(src) + `","id":"gone-7"}`)},
		{protocol.LSPAny(`{"uri":"file:///nowhere/x.go","id":"pass-1"}`)},
	} {
		err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandVerifyFix, Arguments: args}, nil)
		if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), commandVerifyFix) {
			t.Errorf("arguments %s: error %v, want InvalidParams", args, err)
		}
	}

	// An unsaved edit anywhere in the file makes the candidate stale.
	c.notify(protocol.MethodTextDocumentDidOpen, didOpenFile(t, src))
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: src}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1}},
			Text:  "// a new line\n",
		}},
	})
	c.sync()
	_, err = run(verify[0])
	if rpcCode(err) != jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed) || !strings.Contains(err.Error(), "a.go changed since the tests ran") {
		t.Errorf("stale candidate: %v, want RequestFailed naming a.go", err)
	}
	// Undoing the edit makes it current again; editing the file on disk
	// after closing the buffer makes it stale again.
	c.notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: src}})
	c.sync()
	if _, err := run(verify[0]); err != nil {
		t.Errorf("after the buffer closed unchanged: %v", err)
	}
	writeFile(t, src, strings.Replace(readFile(t, src), "x + 2", "x + 1", 1))
	if _, err := run(verify[0]); rpcCode(err) != jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed) {
		t.Errorf("after an edit on disk: %v, want RequestFailed", err)
	}
	if calls := loc.verifications(); len(calls) != 3 {
		t.Errorf("Verify ran %d times, want 3 (never on a stale candidate)", len(calls))
	}
	c.shutdown()
}

// hasMessage reports whether a window/showMessage of the type and text was
// sent.
func hasMessage(notes []note, typ protocol.MessageType, text string) bool {
	for _, n := range notes {
		if n.method != protocol.MethodWindowShowMessage {
			continue
		}
		var p protocol.ShowMessageParams
		if err := protocol.Unmarshal(n.params, &p); err == nil && p.Type == typ && p.Message == text {
			return true
		}
	}
	return false
}
