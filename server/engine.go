package server

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/spectra"
)

// Workspace is what the server needs from the spectrum engine for one module.
// *spectra.Workspace implements it; tests of the protocol surface may pass
// their own through Options.Open.
type Workspace interface {
	Root() string
	StorePath() string
	Collect(ctx context.Context, opts spectra.CollectOptions) (*spectra.Matrix, error)
	Load() (*spectra.Matrix, error)
}

// OpenFunc opens the engine for the module containing dir.
type OpenFunc func(dir string) (Workspace, error)

// openSpectra opens the real engine.
func openSpectra(dir string) (Workspace, error) {
	ws, err := spectra.Open(dir, spectra.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening the spectrum engine: %w", err)
	}
	return ws, nil
}

// locate finds the snapshot showing the file at u and the file's path
// relative to its module root.
func (s *Server) locate(u uri.URI) (*snapshot, string, bool) {
	path, ok := folderPath(u)
	if !ok {
		return nil, "", false
	}
	v := s.viewOf(path)
	if v == nil {
		return nil, "", false
	}
	snap := v.snapshot()
	if snap == nil {
		return nil, "", false
	}
	rel, err := filepath.Rel(snap.root, path)
	if err != nil {
		return nil, "", false
	}
	return snap, filepath.ToSlash(rel), true
}
