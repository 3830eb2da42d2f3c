package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
)

// buggyModule is a tiny module with one fault: Abs forgets to negate.
const buggyModule = `
-- go.mod --
module example.com/buggy

go 1.26
-- abs/abs.go --
package abs

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return x
	}
	return x
}
-- abs/abs_test.go --
package abs

import "testing"

func TestAbsPositive(t *testing.T) {
	if got := Abs(3); got != 3 {
		t.Errorf("Abs(3) = %d, want 3", got)
	}
}

func TestAbsZero(t *testing.T) {
	if got := Abs(0); got != 0 {
		t.Errorf("Abs(0) = %d, want 0", got)
	}
}

func TestAbsNegative(t *testing.T) {
	if got := Abs(-2); got != 2 {
		t.Errorf("Abs(-2) = %d, want 2", got)
	}
}
`

// TestRealEngine runs the real engine (real go test builds) under two
// servers sharing one store: one runs the tests on start and on save, the
// other only follows the store, as when tests run in a terminal.
func TestRealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	dir, cache := t.TempDir(), t.TempDir()
	writeArchive(t, dir, buggyModule)
	open := func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) }
	src := uri.File(filepath.Join(dir, "abs", "abs.go"))
	isBug := func(d []protocol.Diagnostic) bool {
		return len(d) > 0 && d[0].Range.Start.Line == 5 && strings.Contains(string(d[0].Message.(protocol.String)), "TestAbsNegative")
	}

	follower := startServer(t, Options{Open: open, Debounce: 50 * time.Millisecond})
	follower.initialize(dir, `{"autoRun":false}`, protocol.ClientCapabilities{})
	waitWatching(t, follower.srv, dir)

	runner := startServer(t, Options{Open: open})
	yes := true
	runner.initialize(dir, "", withExtensions(protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes}}))
	runner.waitDiagnostics("the fault flagged by the runner", src, isBug)
	follower.waitDiagnostics("the fault flagged by the follower, from the store", src, isBug)

	// Fix the fault and save: the rerun passes and the diagnostics go.
	fixed := strings.Replace(readFile(t, src), "return x\n\t}", "return -x\n\t}", 1)
	writeFile(t, src, fixed)
	runner.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: src}})
	cleared := func(d []protocol.Diagnostic) bool { return len(d) == 0 }
	runner.waitFor("a run where all tests pass", func(notes []note) bool {
		for _, n := range notes {
			if n.method == methodRankingChanged && strings.Contains(string(n.params), `"failed":0,"passed":3`) {
				return true
			}
		}
		return false
	})
	runner.waitDiagnostics("diagnostics cleared after the fix", src, cleared)
	follower.waitDiagnostics("the follower cleared too", src, cleared)

	// Break the build: one message with the compiler's error.
	writeFile(t, src, strings.Replace(fixed, "return -x", "return -x +", 1))
	runner.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: src}})
	runner.waitFor("the compiler's error", func(notes []note) bool {
		for _, n := range notes {
			if n.method == protocol.MethodWindowShowMessage && strings.Contains(string(n.params), "abs/abs.go:7:2: syntax error") {
				return true
			}
		}
		return false
	})
	runner.shutdown()
	follower.shutdown()
}

// waitWatching waits until the server watches the store of the module in dir.
func waitWatching(t *testing.T, s *Server, dir string) {
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if v := s.viewOf(dir); v != nil {
			v.mu.Lock()
			ok := v.watcher != nil
			v.mu.Unlock()
			if ok {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the server never watched the store")
}

func readFile(t *testing.T, u uri.URI) string {
	b, err := os.ReadFile(u.FsPath())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, u uri.URI, text string) {
	if err := os.WriteFile(u.FsPath(), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// crashModule's At forgets to check the upper bound: the failing test
// panics inside At's last block, which BlockRank sees as runs that enter
// the block and never leave it.
const crashModule = `
-- go.mod --
module example.com/crash

go 1.26
-- at/at.go --
package at

// At returns xs[i], or 0 when i is out of range.
func At(xs []int, i int) int {
	if i < 0 {
		return 0
	}
	return xs[i]
}
-- at/at_test.go --
package at

import "testing"

func TestIn(t *testing.T) {
	if At([]int{1, 2}, 1) != 2 {
		t.Fatal("At(1)")
	}
}

func TestNegative(t *testing.T) {
	if At([]int{1}, -1) != 0 {
		t.Fatal("At(-1)")
	}
}

func TestOut(t *testing.T) {
	if At([]int{1}, 0) != 1 || At([]int{1}, 3) != 0 {
		t.Fatal("At(3)")
	}
}
`

// TestRealEngineBlockRank ranks by BlockRank, which makes the runs collect
// edge profiles, and explains the crashing block's score on hover.
func TestRealEngineBlockRank(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	dir, cache := t.TempDir(), t.TempDir()
	writeArchive(t, dir, crashModule)
	open := func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) }
	src := uri.File(filepath.Join(dir, "at", "at.go"))
	c := startServer(t, Options{Open: open})
	c.initialize(dir, `{"formula":"blockrank"}`, protocol.ClientCapabilities{})
	// At's first block (the if) gets its score back from the crashing
	// block, with which it ties.
	c.waitDiagnostics("the crashing line among the first", src, func(d []protocol.Diagnostic) bool {
		for _, x := range d {
			if x.Range.Start.Line == 7 && strings.Contains(string(x.Message.(protocol.String)), "(blockrank), rank 2 (tied 1–2)") {
				return true
			}
		}
		return false
	})
	var h protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 7), &h)
	text := h.Contents.(*protocol.MarkupContent).Value
	// The failing test calls At twice, the passing ones once: a failing
	// run enters the last block 1.5 times more (I), and one of its three
	// entries ends in a panic (T = 2/3): BR = 1/3 · 1.5.
	for _, want := range []string{"**BlockRank** 0.5:", "BlockRank 0.5, executed by the one failing and 1 of 2 passing tests.", "of `At` (IfDone, line 8)", "1.5 times more", "T = 0.667 of all entries leave it", "33.3 % of the entries end in it"} {
		if !strings.Contains(text, want) {
			t.Errorf("hover lacks %q:\n%s", want, text)
		}
	}
	c.shutdown()
}
