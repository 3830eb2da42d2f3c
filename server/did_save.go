package server

import (
	"context"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
)

// didSave reruns the affected tests (debounced) when a Go file or go.mod of
// a module is saved and automatic runs are on.
func didSave(ctx context.Context, s *Server, p *protocol.DidSaveTextDocumentParams) error {
	path, ok := folderPath(p.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	if doc := s.docs[path]; doc != nil {
		s.cache.Put(doc.text) // the text the next collection will see
	}
	s.mu.Unlock()
	if !strings.HasSuffix(path, ".go") && filepath.Base(path) != "go.mod" {
		return nil
	}
	if !s.currentSettings().AutoRun {
		return nil
	}
	if v := s.viewOf(path); v != nil {
		v.schedule()
	}
	return nil
}
