package server

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// initialized completes the handshake: the server reads the client's
// settings and opens the modules of the workspace folders. Both may wait on
// the client or the disk, so they run off the read loop.
func initialized(ctx context.Context, s *Server, _ *protocol.InitializedParams) error {
	s.spawn("opening the workspace folders", func() {
		s.pullSettings(s.ctx)
		s.mu.Lock()
		folders := slices.Clone(s.folders)
		s.mu.Unlock()
		for _, f := range folders {
			s.addFolder(f)
		}
	})
	return nil
}

// addFolder opens a view for every module found in a workspace folder and
// starts it.
func (s *Server) addFolder(folder string) {
	autoRun := s.currentSettings().AutoRun
	for _, dir := range findModules(folder) {
		ws, err := s.opts.Open(dir)
		if err != nil {
			s.client.logf(protocol.MessageTypeWarning, "%s: %v", dir, err)
			continue
		}
		root := clientRoot(folder, ws.Root())
		s.mu.Lock()
		if _, dup := s.views[root]; dup || s.ctx.Err() != nil || s.state != stateInitialized {
			s.mu.Unlock()
			continue
		}
		v := newView(s, ws, root)
		s.views[v.root] = v
		s.mu.Unlock()
		v.start(autoRun)
	}
}

// findModules returns the directories under folder holding a go.mod, or the
// folder itself when it has none below it (it may lie inside a module).
// Directories the go command ignores are skipped. A folder that is a
// symbolic link is searched where it points, the directories named
// through the link.
func findModules(folder string) []string {
	var dirs []string
	real := resolved(folder)
	filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && path != real {
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules" {
				return filepath.SkipDir
			}
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			rel, err := filepath.Rel(real, filepath.Dir(path))
			if err != nil {
				return nil
			}
			dirs = append(dirs, filepath.Join(folder, rel))
		}
		return nil
	})
	if len(dirs) == 0 {
		if _, err := os.Stat(folder); err == nil {
			dirs = append(dirs, folder)
		}
	}
	return dirs
}

// resolved is path with every symbolic link resolved, or path itself when
// it cannot be.
func resolved(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// clientRoot names a module's root (its real path) as the client names
// the files of folder: through the folder's link when the module lies
// where the link points, so that documents the client opens through it
// fall in the module's view; its real path otherwise.
func clientRoot(folder, root string) string {
	rel, err := filepath.Rel(resolved(folder), root)
	if err != nil {
		return root
	}
	named := filepath.Join(folder, rel)
	if resolved(named) != root {
		return root // a link into the module: no name of its root goes through it
	}
	return named
}
