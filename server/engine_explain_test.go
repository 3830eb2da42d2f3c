package server

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/txtartest"
)

// TestRealEngineRevertPreviewOnlyRoots explains the paper's running
// example (regress/testdata/running.txtar) with the real service: of the
// four changes since the base, the revert preview on a root change puts
// back exactly the two root changes (c2 at after.go:10, c3 at :17), not c1
// (:4) nor c4 (:19), which the test does not need reverted.
func TestRealEngineRevertPreviewOnlyRoots(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	if err := localize.AnalysisAvailable(); err != nil {
		t.Skip(err)
	}
	dir := txtartest.History(t, filepath.Join("..", "regress", "testdata", "running.txtar"))
	cache := t.TempDir()
	open := func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) }
	c := startServer(t, Options{Open: open})
	c.initialize(dir, `{"angelic":false}`, protocol.ClientCapabilities{})
	src := uri.File(filepath.Join(dir, "after.go"))
	c.waitDiagnostics("the failing run ranked", src, func(d []protocol.Diagnostic) bool { return len(d) > 0 })

	var res localize.Explanation
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandExplainTest,
		Arguments: []protocol.LSPAny{protocol.LSPAny(`{"uri":"` + string(src) + `","test":"TestMaxPlus","base":"HEAD~1"}`)}}, &res)
	var roots []int
	for _, ch := range res.Changes {
		if ch.Role == "root" {
			roots = append(roots, ch.Line)
		}
	}
	if !slices.Equal(roots, []int{10, 17}) || len(res.Changes) != 2 {
		t.Fatalf("explained changes %+v, want the roots at lines 10 and 17 alone", res.Changes)
	}
	var preview *protocol.CodeAction
	for _, a := range c.codeActions(src, 9) {
		if strings.HasPrefix(a.Title, "Preview revert") {
			preview = &a
		}
	}
	if preview == nil || preview.Edit == nil {
		t.Fatalf("no revert preview on after.go:10")
	}
	var got []string
	for u, edits := range preview.Edit.Changes {
		for _, e := range edits {
			got = append(got, path.Base(string(u))+fmt.Sprintf(":%d-%d %s", e.Range.Start.Line+1, e.Range.End.Line, strings.TrimSpace(e.NewText)))
		}
	}
	slices.Sort(got)
	if want := []string{"after.go:10-10 if x > y {", "after.go:17-17 sum = sum + z"}; !slices.Equal(got, want) {
		t.Errorf("revert preview edits %q, want %q", got, want)
	}
	c.shutdown()
}
