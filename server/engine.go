package server

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/localize"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// Workspace is what the server needs from the spectrum engine for one module.
// *localize.Workspace implements it; tests of the protocol surface may pass
// their own through Options.Open.
type Workspace interface {
	Root() string
	StorePath() string
	Collect(ctx context.Context, opts localize.CollectOptions) (*localize.Matrix, error)
	Load() (*localize.Matrix, error)
}

// OpenFunc opens the engine for the module containing dir.
type OpenFunc func(dir string) (Workspace, error)

// openSpectra opens the real engine.
func openSpectra(dir string) (Workspace, error) {
	ws, err := localize.Open(dir, localize.WorkspaceOptions{})
	if err != nil {
		return nil, fmt.Errorf("opening the spectrum engine: %w", err)
	}
	return ws, nil
}

// Localizer localizes a module's failing tests: the order of its lines and
// the angelic analysis behind it (faultline/internal/localize, the service
// faultline rank uses too). Localize reports each new state to progress
// as analyses finish, and may take long; the server cancels it when a
// newer result arrives.
type Localizer interface {
	Localize(ctx context.Context, m *localize.Matrix, opts localize.Options, progress func(*localize.Localization)) (*localize.Localization, error)
	// Verify runs a candidate's test again with its values forced,
	// refusing a candidate whose sources changed.
	Verify(ctx context.Context, t localize.Target, c localize.Candidate, opts localize.Options) (localize.Verification, error)
	// Suggest searches the inputs that sharpen failing fuzz targets'
	// rankings and, with opts.Write, adds them to their seed corpora.
	Suggest(ctx context.Context, m *localize.Matrix, opts localize.SuggestOptions, progress func(localize.Suggestion)) ([]localize.Suggestion, error)
	// Explain explains failing tests from the git history.
	Explain(ctx context.Context, m *localize.Matrix, opts localize.ExplainOptions, each func(localize.Explanation)) (*localize.Explanations, error)
	// CheckHistory says why the module cannot be explained from a git
	// history, or nil.
	CheckHistory(ctx context.Context) error
}

// OpenLocalizerFunc makes the localizer of a module's engine; a nil
// Localizer means the module is ranked by the formula alone.
type OpenLocalizerFunc func(ws Workspace) (Localizer, error)

// openLocalizer makes the real service for the real engine.
func openLocalizer(ws Workspace) (Localizer, error) {
	sw, ok := ws.(*localize.Workspace)
	if !ok {
		return nil, nil
	}
	svc, err := localize.New(sw)
	if err != nil {
		return nil, err
	}
	return svc, nil
}

// locate finds the snapshot showing the file at u and the file's path
// relative to its module root.
func (s *Server) locate(u uri.URI) (*snapshot.Snapshot, string, bool) {
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
	rel, err := filepath.Rel(snap.Root, path)
	if err != nil {
		return nil, "", false
	}
	return snap, filepath.ToSlash(rel), true
}
