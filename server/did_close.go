package server

import (
	"context"

	"go.lsp.dev/protocol"
)

// didClose forgets a buffer; the file on disk governs again.
func didClose(ctx context.Context, s *Server, p *protocol.DidCloseTextDocumentParams) error {
	path, ok := folderPath(p.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	delete(s.docs, path)
	s.mu.Unlock()
	s.diagnoseFile(path)
	return nil
}
