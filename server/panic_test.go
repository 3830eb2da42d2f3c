package server

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
)

// waitLogged waits for a window/logMessage containing text.
func (c *testClient) waitLogged(text string) {
	c.t.Helper()
	c.waitFor("a log message with "+text, func(notes []note) bool {
		for _, n := range notes {
			if n.method == protocol.MethodWindowLogMessage && bytes.Contains(n.params, []byte(text)) {
				return true
			}
		}
		return false
	})
}

// hoverLine6 asks for the hover of a.go's line 6 and fails unless it answers.
func (c *testClient) hoverLine6(src uri.URI) string {
	c.t.Helper()
	var h *protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, hoverAt(src, 5), &h)
	if h == nil {
		return ""
	}
	return h.Contents.(*protocol.MarkupContent).Value
}

// A localizer that panics is reported to the client's log once; the
// formula's ranking stays shown and the server goes on answering.
func TestPanickingLocalizerIsReported(t *testing.T) {
	dir, fake := newFakeModule(t)
	c := startServer(t, Options{Open: fake.open, Localizer: (&fakeLocalizer{t: t, panics: true}).open})
	c.initialize(dir, `{}`, protocol.ClientCapabilities{})
	src := uri.File(filepath.Join(dir, "a.go"))
	c.waitDiagnostics("diagnostics", src, onLines(4, 5))
	c.waitLogged("a localizer that panics")
	if h := c.hoverLine6(src); !strings.Contains(h, "1 (ef)") {
		t.Errorf("hover after the panic: %q", h)
	}
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandRun}, nil)
	fake.waitCollecting()
	c.sync()
	c.shutdown()
}

// A test collection that panics is reported, and the next save runs again.
func TestPanickingCollectionIsReported(t *testing.T) {
	dir, fake := newFakeModule(t)
	panics := true
	fake.result = func() *localize.Matrix {
		fake.mu.Lock()
		p := panics
		panics = false
		fake.mu.Unlock()
		if p {
			panic("a collection that panics")
		}
		return fakeMatrix(t, dir)
	}
	c := startServer(t, Options{Open: fake.open, Localizer: (&fakeLocalizer{t: t}).open})
	c.initialize(dir, `{}`, protocol.ClientCapabilities{})
	c.waitLogged("a collection that panics")
	src := uri.File(filepath.Join(dir, "a.go"))
	c.hoverLine6(src) // answered, whatever it says
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: commandRun}, nil)
	c.waitDiagnostics("diagnostics after the second run", src, onLines(4, 5))
	c.shutdown()
}
