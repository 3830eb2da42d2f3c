package server

import (
	"os"
	"path/filepath"

	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/internal/snapshot"
)

// openFile is what the server knows of a file right now.
type openFile struct {
	path    string
	uri     uri.URI
	version int32 // of the open buffer; 0 when read from disk
	text    []byte
	hash    snapshot.ContentHash
}

// currentFile returns the open buffer of path, or its content on disk.
func (s *Server) currentFile(path string) (openFile, bool) {
	s.mu.Lock()
	doc := s.docs[path]
	s.mu.Unlock()
	if doc != nil {
		return openFile{path: path, uri: uri.File(path), version: doc.version, text: doc.text, hash: doc.hash}, true
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return openFile{}, false
	}
	return openFile{path: path, uri: uri.File(path), text: text, hash: snapshot.HashContent(text)}, true
}

// textOf maps snapshot file rel (slash-separated, relative to the module root)
// onto its current content. It reports false when the file is gone or its
// collected content is unknown, in which case nothing may be shown on it.
func (s *Server) textOf(snap *snapshot.Snapshot, rel string) (openFile, *snapshot.FileText, bool) {
	f, ok := s.currentFile(filepath.Join(snap.Root, filepath.FromSlash(rel)))
	if !ok {
		return openFile{}, nil, false
	}
	collected, ok := snap.Hashes[rel]
	if !ok { // a file without ranked lines, such as a test file
		collected = snapshot.CollectedContent(snap.Root, rel, snap.Matrix.FileHashes[rel], s.cache)
	}
	key := snapshot.MappingKey{Collected: collected, Current: f.hash}
	if ft, ok := s.mappings.Get(key); ok {
		return f, ft, true
	}
	ft := snapshot.UnchangedText(f.text)
	if collected != f.hash {
		old, ok := s.cache.Get(collected)
		if !ok {
			return openFile{}, nil, false
		}
		ft = snapshot.MappedText(old, f.text)
	}
	s.mappings.Put(key, ft)
	return f, ft, true
}
