package server

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/spectra"
)

// memoryWorkspace is the fake engine whose module has, beside fakeMatrix's
// tests, one the test memory bound stopped; it records the bound each
// collection was given.
type memoryWorkspace struct {
	*fakeWorkspace
	mu     sync.Mutex
	bounds []int64
}

func (w *memoryWorkspace) Collect(ctx context.Context, opts localize.CollectOptions) (*localize.Matrix, error) {
	w.mu.Lock()
	w.bounds = append(w.bounds, opts.TestMemory)
	// Each run executes a little more, so that the server takes it as new.
	var blocks []int
	for b := range w.bounds {
		blocks = append(blocks, b)
	}
	hits := spectra.NewHits(blocks...)
	w.mu.Unlock()
	m, err := w.fakeWorkspace.Collect(ctx, opts)
	if err != nil {
		return nil, err
	}
	m.Tests = append(m.Tests, localize.TestRun{Package: "example.com/fake", Name: "TestHoard", Verdict: localize.VerdictMemory, Hits: hits,
		Output: "faultline: was stopped holding 300 MB, over the test memory bound of 256 MB\n"})
	return m, nil
}

func (w *memoryWorkspace) open(string) (Workspace, error) { return w, nil }

// A test the memory bound stopped is named in one warning, not again when
// the next run stops it again; the testMemory setting reaches collections
// in bytes.
func TestMemoryStoppedTestNamedOnce(t *testing.T) {
	dir, fake := newFakeModule(t)
	ws := &memoryWorkspace{fakeWorkspace: fake}
	c := startServer(t, Options{Open: ws.open})
	c.initialize(dir, `{"testMemory":256}`, protocol.ClientCapabilities{})
	warning := "faultline: in " + dir + ", example.com/fake TestHoard was stopped holding 300 MB, over the test memory bound of 256 MB: counted neither failing nor passing (the testMemory setting raises the bound)"
	c.waitFor("the stopped test named", func(notes []note) bool { return hasMessage(notes, protocol.MessageTypeWarning, warning) })
	src := uri.File(filepath.Join(dir, "a.go"))
	c.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: src}})
	fake.waitCollecting()
	fake.waitCollecting()
	c.settle()
	named := 0
	for _, n := range c.notes() {
		if n.method == protocol.MethodWindowShowMessage && strings.Contains(string(n.params), "TestHoard") {
			named++
		}
	}
	ws.mu.Lock()
	bounds := ws.bounds
	ws.mu.Unlock()
	if named != 1 || len(bounds) != 2 || bounds[0] != 256<<20 || bounds[1] != 256<<20 {
		t.Errorf("named %d times over %d collections with bounds %v; want once, bounds of 256 MB", named, len(bounds), bounds)
	}
	c.shutdown()
}
