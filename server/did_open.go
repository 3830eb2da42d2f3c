package server

import (
	"context"

	"go.lsp.dev/protocol"
)

// didOpen starts tracking a buffer. Its text is also remembered by hash, as
// it may be the text a later collection runs against.
func didOpen(ctx context.Context, s *Server, p *protocol.DidOpenTextDocumentParams) error {
	path, ok := folderPath(p.TextDocument.URI)
	if !ok {
		return nil
	}
	text := []byte(p.TextDocument.Text)
	s.cache.Put(text)
	s.mu.Lock()
	s.docs[path] = newDocument(path, p.TextDocument.Version, text)
	s.mu.Unlock()
	s.diagnoseFile(path)
	return nil
}
