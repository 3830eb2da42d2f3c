package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// verifyingProvider proposes two fixes of fakeModule's line 6, one the
// failing test passes with and one it does not, and verifies them by their
// ID as a FixVerifier would by running the test.
type verifyingProvider struct {
	mu    sync.Mutex
	calls []string // root and id of each VerifyFix
}

func (*verifyingProvider) Name() string { return "verifying test provider" }

func (*verifyingProvider) Analyze(ctx context.Context, in AnalysisInput) (Findings, error) {
	fix := func(id, value, original string, verified bool) FixCandidate {
		return FixCandidate{Title: "2 ⇒ " + value, File: "a.go", Line: 6, Test: "TestNextPositive", ID: id, Verified: verified,
			Edits: []Edit{{File: "a.go", StartLine: 6, StartCol: 14, EndLine: 6, EndCol: 15, NewText: value, Expr: "2", Original: original}}}
	}
	return Findings{Fixes: []FixCandidate{fix("pass-1", "1", "2", true), fix("fail-1", "3", "?", false)}}, nil
}

func (p *verifyingProvider) VerifyFix(ctx context.Context, root, id string) (FixVerification, error) {
	p.mu.Lock()
	p.calls = append(p.calls, root+" "+id)
	p.mu.Unlock()
	v := FixVerification{Test: "TestNextPositive", Passed: id == "pass-1", Duration: 1500 * time.Millisecond,
		Output: "--- PASS: TestNextPositive (0.00s)"}
	if !v.Passed {
		v.Output = "    a_test.go:7: Next(1) != 2\n--- FAIL: TestNextPositive (0.00s)"
	}
	return v, nil
}

func (p *verifyingProvider) verified() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

// TestVerifyFix covers the "Verify angelic fix" action and the
// faultline.verifyFix command it runs: both outcomes as result and message,
// the hover explaining the angelic value, bad arguments, and the refusal of
// a candidate whose file changed since the tests ran.
func TestVerifyFix(t *testing.T) {
	prov := &verifyingProvider{}
	c, dir, src := startWithFindings(t, prov)

	var raw []json.RawMessage
	c.mustCall(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: src},
		Range:        protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 5}},
	}, &raw)
	var verify []protocol.CodeAction
	for _, r := range raw {
		var a protocol.CodeAction
		if err := protocol.Unmarshal(r, &a); err != nil {
			t.Fatal(err)
		}
		if a.Command.Command == commandVerifyFix {
			verify = append(verify, a)
		}
	}
	// Show failing tests, then a preview and a verification per fix.
	if len(raw) != 5 || len(verify) != 2 || !strings.HasPrefix(verify[0].Title, "Verify angelic fix") || !strings.HasSuffix(verify[0].Title, ": 2 ⇒ 1") {
		t.Fatalf("code actions %s", raw)
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
	if calls := prov.verified(); len(calls) != 1 || calls[0] != dir+" pass-1" {
		t.Errorf("VerifyFix calls %q", calls)
	}
	c.waitFor("the passing verification shown", func(notes []note) bool {
		return hasMessage(notes, protocol.MessageTypeInfo, "faultline: TestNextPositive passes with a.go:6 `2` = 1 forced (run took 1.5s)")
	})
	res, err = run(verify[1])
	if err != nil || res.Passed || !strings.Contains(res.Output, "--- FAIL") {
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
		"if `2` evaluated to 1 instead of 2 here, TestNextPositive passes (verified by a forced run)",
		"if `2` evaluated to 3 here, TestNextPositive passes (as the analysis predicts; no forced run confirmed it)",
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
	if calls := prov.verified(); len(calls) != 3 {
		t.Errorf("VerifyFix ran %d times, want 3 (never on a stale candidate)", len(calls))
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
