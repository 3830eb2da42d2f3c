package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"faultline/analysis"
	"faultline/spectra"
)

// TestRealEngineSatTar ranks minmax by SAT-TAR: the service computes the
// unsat core of the failing seed's check, the fault is first with the
// core's bonus, and hover explains its score.
func TestRealEngineSatTar(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a module; skipped with -short")
	}
	if err := analysis.Available(); err != nil {
		t.Skip(err)
	}
	archive, err := os.ReadFile(filepath.Join("..", "internal", "localize", "testdata", "minmax1.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir, cache := t.TempDir(), t.TempDir()
	writeArchive(t, dir, string(archive))
	open := func(d string) (Workspace, error) { return spectra.Open(d, spectra.Options{CacheDir: cache}) }
	src := uri.File(filepath.Join(dir, "minmax.go"))
	c := startServer(t, Options{Open: open})
	c.initialize(dir, `{"formula":"sattar","angelic":false}`, protocol.ClientCapabilities{})
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
	for _, want := range []string{"**SAT-TAR** 2 = Tarantula 1 + bonus 1", "unsat core of the violated checks of FuzzMinMax/seed#0"} {
		if !strings.Contains(text, want) {
			t.Errorf("hover lacks %q:\n%s", want, text)
		}
	}
	c.shutdown()
}
