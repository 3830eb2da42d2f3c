package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/regress"
)

// TestExplainCommand covers faultline.explainTest: the service is asked
// for the one failing test named, the explanation is the result, a message
// names the root and auxiliary changes, the changes become diagnostics and
// a revert preview until the file is edited, a failure of the service is
// the request's error, and bad arguments are refused before anything runs.
func TestExplainCommand(t *testing.T) {
	ex := &localize.Explanation{Base: "0123456789abcdef", Changes: []localize.Change{
		{File: "a.go", Line: 6, EndLine: 6, Role: "root", Old: "\treturn n + 1\n", New: "\treturn n + 2\n",
			Commit: &regress.ChangeCommit{Hash: "fedcba9876543210", Date: "2026-11-20", Subject: "next: count from two"}},
		{File: "a.go", Line: 3, EndLine: 3, Role: "auxiliary"},
	}, Cause: []regress.CauseStep{{File: "a.go", Line: 6, Why: "returns 3", Change: 0}}}
	loc := &fakeLocalizer{t: t, results: []localize.TestResult{fakeFix(t, "1", true)}, explanation: ex}
	c, dir, src := startWithFindings(t, loc)
	data, err := os.ReadFile(filepath.Join(dir, "a.go"))
	if err != nil {
		t.Fatal(err)
	}
	ex.Hashes = map[string]string{"a.go": testbuild.Bytes(data)}
	explain := func(args string) (localize.Explanation, error) {
		var res localize.Explanation
		err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandExplainTest,
			Arguments: []protocol.LSPAny{protocol.LSPAny(args)}}, &res)
		return res, err
	}
	// The failing test's lens offers the explanation.
	testFile := uri.File(filepath.Join(dir, "a_test.go"))
	c.notify(protocol.MethodTextDocumentDidOpen, didOpenFile(t, testFile))
	var lenses []protocol.CodeLens
	c.mustCall(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: testFile}}, &lenses)
	if len(lenses) != 2 || lenses[1].Command.Command != commandExplainTest || lenses[1].Command.Title != "faultline: explain TestNextPositive from the git history" {
		t.Fatalf("code lenses %+v", lenses)
	}
	var lensArgs explainArgs
	if b, err := json.Marshal(lenses[1].Command.Arguments[0]); err != nil || json.Unmarshal(b, &lensArgs) != nil {
		t.Fatalf("lens arguments %v: %v", lenses[1].Command.Arguments, err)
	}
	if lensArgs.Test != "TestNextPositive" || lensArgs.Package != "example.com/fake" || lensArgs.URI != string(testFile) {
		t.Errorf("lens arguments %+v", lensArgs)
	}

	res, err := explain(`{"uri":"` + string(src) + `","test":"TestNextPositive","base":"HEAD~2"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Test != "TestNextPositive" || res.Package != "example.com/fake" || len(res.Changes) != 2 || len(res.Cause) != 1 {
		t.Errorf("result %+v", res)
	}
	if calls := loc.explanations(); len(calls) != 1 || calls[0].Base != "HEAD~2" || len(calls[0].Tests) != 1 || calls[0].Tests[0].Test != "TestNextPositive" {
		t.Errorf("Explain calls %+v", calls)
	}
	c.waitFor("the explanation's message", func(notes []note) bool {
		return hasMessage(notes, protocol.MessageTypeInfo, "faultline: TestNextPositive passes at 0123456789ab; reverting a.go:6 makes it pass again (with a.go:3, which the revert needs to compile)")
	})

	// The changes show as diagnostics while a.go is as explained: the
	// root change with the cause beside it, the auxiliary one lower.
	isRegression := func(d protocol.Diagnostic) bool { return d.Code == protocol.String("regression") }
	c.waitDiagnostics("the explained changes", src, func(ds []protocol.Diagnostic) bool {
		var got []string
		for _, d := range ds {
			if isRegression(d) {
				got = append(got, fmt.Sprintf("%d-%d %v %d", d.Range.Start.Line, d.Range.End.Line, d.Severity, len(d.RelatedInformation)))
			}
		}
		return slices.Equal(got, []string{"5-6 2 1", "2-3 3 0"}) // a warning with the cause, an information
	})
	// The root change's warning names the change, its commit, the commit's
	// author date and subject.
	c.waitDiagnostics("the commit of the root change", src, func(ds []protocol.Diagnostic) bool {
		return slices.ContainsFunc(ds, func(d protocol.Diagnostic) bool {
			return isRegression(d) && d.Message == protocol.String(`this change at a.go:6, from commit fedcba987654 of 2026-11-20 "next: count from two", makes TestNextPositive fail: reverting it makes the test pass (was: return n + 1)`)
		})
	})
	reverts := func() []protocol.CodeAction {
		var out []protocol.CodeAction
		for _, a := range c.codeActions(src, 5) {
			if strings.HasPrefix(a.Title, "Preview revert") {
				out = append(out, a)
			}
		}
		return out
	}
	acts := reverts()
	if len(acts) != 1 || acts[0].Title != "Preview revert of the responsible change: TestNextPositive passed at 0123456789ab (2 changes)" || acts[0].Edit == nil {
		t.Fatalf("revert actions %+v", acts)
	}
	edits := acts[0].Edit.Changes[src]
	if len(edits) != 2 || edits[0].NewText != "\treturn n + 1\n" || edits[0].Range != (protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 6}}) ||
		edits[1].NewText != "" || edits[1].Range.Start.Line != 2 {
		t.Errorf("revert edits %+v", edits)
	}
	c.notify(protocol.MethodTextDocumentDidOpen, didOpenFile(t, src))
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: src}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1}},
			Text:  "// a new line\n",
		}},
	})
	c.waitDiagnostics("the explained changes withdrawn after an edit", src, func(ds []protocol.Diagnostic) bool {
		return !slices.ContainsFunc(ds, isRegression)
	})

	if acts := reverts(); len(acts) != 0 {
		t.Errorf("revert actions after an edit: %+v", acts)
	}

	loc.explanation = nil
	if _, err := explain(`{"uri":"` + string(src) + `","test":"TestNextPositive"}`); rpcCode(err) != jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed) || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Errorf("a failing service: error %v", err)
	}
	for _, args := range []string{
		`null`,
		`{"uri":"` + string(src) + `"}`,
		`{"uri":"` + string(src) + `","test":"TestPasses"}`,
		`{"uri":"file:///nowhere/x.go","test":"TestNextPositive"}`,
	} {
		_, err := explain(args)
		if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), commandExplainTest) {
			t.Errorf("arguments %s: error %v, want InvalidParams", args, err)
		}
	}
	if n := len(loc.explanations()); n != 2 {
		t.Errorf("%d calls of Explain, want 2: bad arguments must not reach the service", n)
	}
}
