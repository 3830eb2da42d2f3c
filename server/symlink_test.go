package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
)

// A workspace folder opened through a symbolic link is the module the link
// points at: its tests run (the user trusted the module by its real path,
// so nothing is asked), and the diagnostics come on the documents as the
// client names them, through the link.
func TestSymlinkedWorkspaceFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	dir, cache := t.TempDir(), t.TempDir()
	writeArchive(t, dir, buggyModule)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	list := testTrustList(t)
	if _, err := list.Add(dir); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, Options{Trust: list, Open: func(d string) (Workspace, error) { return localize.Open(d, localize.WorkspaceOptions{CacheDir: cache}) }})
	c.setAnswer(func(p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		t.Errorf("asked about a trusted module: %s", p.Message)
		return nil, nil
	})
	c.initializeFolders(protocol.WorkspaceFolder{URI: uri.File(link), Name: "link"})
	src := uri.File(filepath.Join(link, "abs", "abs.go"))
	c.waitDiagnostics("the fault flagged through the link", src, func(d []protocol.Diagnostic) bool {
		return len(d) > 0 && d[0].Range.Start.Line == 5 && strings.Contains(string(d[0].Message.(protocol.String)), "TestAbsNegative")
	})
	var r rankingResult
	c.mustCall(methodRanking, map[string]string{"uri": string(src)}, &r)
	if r.Failed != 1 || len(r.Lines) == 0 || r.Lines[0].URI != string(src) {
		t.Errorf("ranking through the link: %+v", r)
	}
	c.shutdown()
}
