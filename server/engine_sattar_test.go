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

// serveMinMax starts the server with the real engine on minmax with one
// failing seed (the localization service's test module) under settings,
// skipping without Z3 or with -short.
func serveMinMax(t *testing.T, settings string) (*testClient, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	if err := localize.AnalysisAvailable(); err != nil {
		t.Skip(err)
	}
	archive, err := os.ReadFile(filepath.Join("..", "internal", "localize", "testdata", "minmax1.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir, cache := t.TempDir(), t.TempDir()
	writeArchive(t, dir, string(archive))
	open := func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) }
	c := startServer(t, Options{Open: open})
	c.initialize(dir, settings, protocol.ClientCapabilities{})
	return c, dir
}

// TestRealEngineSatTar ranks minmax by SAT-TAR: the service computes the
// unsat core of the failing seed's check, the fault is first with the
// core's bonus, and hover explains its score.
func TestRealEngineSatTar(t *testing.T) {
	c, dir := serveMinMax(t, `{"formula":"sattar","angelic":false}`)
	src := uri.File(filepath.Join(dir, "minmax.go"))
	// Before the core comes, the order is Tarantula's (score 1); with it,
	// the fault has the core's bonus too.
	c.waitDiagnostics("the fault first by SAT-TAR with the bonus", src, func(d []protocol.Diagnostic) bool {
		for _, x := range d {
			if x.Range.Start.Line == 13 && strings.Contains(string(x.Message.(protocol.String)), "score 2 (sattar), rank 1 ") {
				return true
			}
		}
		return false
	})
	var h protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 13), &h)
	text := h.Contents.(*protocol.MarkupContent).Value
	for _, want := range []string{"**SAT-TAR** 2 = Tarantula 1 + bonus 1", "unsat core of the violated checks of FuzzMinMax/seed#0",
		"by SAT-TAR alone (the angelic analysis is off): SAT-TAR 2 (Tarantula 1 plus the bonus of the unsat core of FuzzMinMax/seed#0), executed by "} {
		if !strings.Contains(text, want) {
			t.Errorf("hover lacks %q:\n%s", want, text)
		}
	}
	c.shutdown()
}

// TestRealEngineSuggestInputs takes the code action on minmax's failing
// fuzz target: the service adds the failing input that avoids minmax.go:11
// to the seed corpus, and the run that follows has it as a failing entry.
func TestRealEngineSuggestInputs(t *testing.T) {
	c, dir := serveMinMax(t, `{"angelic":false}`)
	src, testFile := uri.File(filepath.Join(dir, "minmax.go")), uri.File(filepath.Join(dir, "minmax_test.go"))
	c.waitDiagnostics("the fault ranked", src, func(d []protocol.Diagnostic) bool { return len(d) > 0 })
	var actions []json.RawMessage
	c.mustCall(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: testFile},
		Range:        protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 4}},
	}, &actions)
	var action *protocol.CodeAction
	for _, raw := range actions {
		var a protocol.CodeAction
		if err := protocol.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		if a.Title == "Add inputs that sharpen the ranking" {
			action = &a
		}
	}
	if action == nil {
		t.Fatalf("no suggest action on FuzzMinMax: %s", actions)
	}
	var res struct {
		Status  string
		Inputs  []struct{ Outcome, File, Reason string }
		Written []string
	}
	var raw json.RawMessage
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: action.Command.Command, Arguments: action.Command.Arguments,
	}, &raw)
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var entry string
	for _, in := range res.Inputs {
		if in.Outcome == "fail" && strings.Contains(in.Reason, "minmax.go:11") {
			entry = filepath.Base(in.File)
		}
	}
	if res.Status != "optimal" || entry == "" || len(res.Written) != len(res.Inputs) {
		t.Fatalf("suggestion %s", raw)
	}
	// The run after the inputs were written has the new failing entry.
	c.waitDiagnostics("the fault run by the new failing entry", src, func(d []protocol.Diagnostic) bool {
		for _, x := range d {
			if x.Range.Start.Line == 13 && strings.Contains(string(x.Message.(protocol.String)), "run by 2 of 2 failing tests") {
				return true
			}
		}
		return false
	})
	c.shutdown()
}

// twoFaults has a fuzz target whose two failing seeds meet two faults in
// two functions, and share no executed line.
const twoFaults = `
-- go.mod --
module example.com/two

go 1.22
-- two.go --
package two

// Half halves a positive number.
func Half(x int) int {
	return x / 3
}

// Neg negates a negative number.
func Neg(x int) int {
	return x
}
-- two_test.go --
package two

import "testing"

func FuzzTwo(f *testing.F) {
	f.Add(4)
	f.Add(-4)
	f.Fuzz(func(t *testing.T, x int) {
		if x > 0 {
			if Half(x)*2 != x-x%2 {
				t.Errorf("Half(%d) = %d", x, Half(x))
			}
		} else if x < 0 && Neg(x) != -x {
			t.Errorf("Neg(%d) = %d", x, Neg(x))
		}
	})
}
`

// TestRealEngineSeveralFaults warns on a fuzz target whose failing entries
// share no line.
func TestRealEngineSeveralFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	dir, cache := t.TempDir(), t.TempDir()
	writeArchive(t, dir, twoFaults)
	open := func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) }
	testFile := uri.File(filepath.Join(dir, "two_test.go"))
	c := startServer(t, Options{Open: open})
	c.initialize(dir, `{"angelic":false}`, protocol.ClientCapabilities{})
	c.waitDiagnostics("the several-faults warning on FuzzTwo", testFile, func(d []protocol.Diagnostic) bool {
		for _, x := range d {
			if x.Range.Start.Line == 4 && x.Severity == protocol.DiagnosticSeverityWarning &&
				strings.Contains(string(x.Message.(protocol.String)), "no line is run by all 2 failing entries of FuzzTwo") {
				return true
			}
		}
		return false
	})
	c.shutdown()
}
