package server

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// didChange applies an edit to a buffer; diagnostics then follow the edited
// lines or are withdrawn from them.
func didChange(ctx context.Context, s *Server, p *protocol.DidChangeTextDocumentParams) error {
	path, ok := folderPath(p.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	doc := s.docs[path]
	enc := s.caps.encoding
	s.mu.Unlock()
	if doc == nil {
		return fmt.Errorf("didChange for %s, which is not open", path)
	}
	text, err := applyChanges(doc.text, p.ContentChanges, enc)
	if err != nil {
		// The buffer can no longer be trusted: forget it, so nothing is
		// shown on lines that may be wrong until the file is reopened.
		s.mu.Lock()
		delete(s.docs, path)
		s.mu.Unlock()
		s.diagnoseFile(path)
		return fmt.Errorf("didChange %s version %d: %w", path, p.TextDocument.Version, err)
	}
	s.mu.Lock()
	s.docs[path] = newDocument(path, p.TextDocument.Version, text)
	s.mu.Unlock()
	s.diagnoseFile(path)
	return nil
}
