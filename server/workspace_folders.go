package server

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"
)

// didChangeWorkspaceFolders opens the modules of added folders and closes
// those of removed ones (unless another folder still holds them).
func didChangeWorkspaceFolders(ctx context.Context, s *Server, p *protocol.DidChangeWorkspaceFoldersParams) error {
	var added []string
	s.mu.Lock()
	for _, f := range p.Event.Removed {
		if path, ok := folderPath(f.URI); ok {
			s.folders = slices.DeleteFunc(s.folders, func(x string) bool { return x == path })
		}
	}
	for _, f := range p.Event.Added {
		if path, ok := folderPath(f.URI); ok && !slices.Contains(s.folders, path) {
			s.folders = append(s.folders, path)
			added = append(added, path)
		}
	}
	var closing []*view
	for root, v := range s.views {
		kept := false
		for _, f := range s.folders {
			if within(f, root) || within(root, f) {
				kept = true
				break
			}
		}
		if !kept {
			closing = append(closing, v)
			delete(s.views, root)
		}
	}
	s.mu.Unlock()
	s.spawn("changing the workspace folders", func() {
		for _, v := range closing {
			v.close()
		}
		for _, f := range added {
			s.addFolder(f)
		}
	})
	return nil
}
