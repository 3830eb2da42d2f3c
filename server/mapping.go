package server

import (
	"os"
	"path/filepath"

	"go.lsp.dev/uri"

	"github.com/faultline-go/faultline/server/internal/linediff"
)

// fileText is a file as the user sees it now, with the collected lines
// mapped onto it. It is cached under the pair of content hashes.
type fileText struct {
	lines       [][]byte // current lines, without terminators
	toCurrent   []int    // collected line index -> current line index, or -1; nil: identical
	fromCurrent []int    // current line index -> collected line index, or -1; nil: identical
}

// current returns the current line index of collected 1-based line n.
func (ft *fileText) current(n int) (int, bool) {
	i := n - 1
	if ft.toCurrent == nil {
		return i, i >= 0 && i < len(ft.lines)
	}
	if i < 0 || i >= len(ft.toCurrent) || ft.toCurrent[i] < 0 {
		return 0, false
	}
	return ft.toCurrent[i], true
}

// collected returns the collected 1-based line shown at current line index i.
func (ft *fileText) collected(i int) (int, bool) {
	if ft.fromCurrent == nil {
		return i + 1, i >= 0 && i < len(ft.lines)
	}
	if i < 0 || i >= len(ft.fromCurrent) || ft.fromCurrent[i] < 0 {
		return 0, false
	}
	return ft.fromCurrent[i] + 1, true
}

type mappingKey struct{ collected, current contentHash }

// openFile is what the server knows of a file right now.
type openFile struct {
	path    string
	uri     uri.URI
	version int32 // of the open buffer; 0 when read from disk
	text    []byte
	hash    contentHash
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
	return openFile{path: path, uri: uri.File(path), text: text, hash: hashContent(text)}, true
}

// textOf maps snapshot file rel (slash-separated, relative to the module root)
// onto its current content. It reports false when the file is gone or its
// collected content is unknown, in which case nothing may be shown on it.
func (s *Server) textOf(snap *snapshot, rel string) (openFile, *fileText, bool) {
	f, ok := s.currentFile(filepath.Join(snap.root, filepath.FromSlash(rel)))
	if !ok {
		return openFile{}, nil, false
	}
	collected, ok := snap.hashes[rel]
	if !ok { // a file without ranked lines, such as a test file
		collected = collectedContent(snap.root, rel, snap.matrix.FileHashes[rel], s.cache)
	}
	key := mappingKey{collected, f.hash}
	if ft, ok := s.mappings.get(key); ok {
		return f, ft, true
	}
	ft := &fileText{lines: lineSpans(f.text)}
	if collected != f.hash {
		old, ok := s.cache.get(collected)
		if !ok {
			return openFile{}, nil, false
		}
		ft.toCurrent = linediff.Map(lineSpans(old), ft.lines)
		ft.fromCurrent = make([]int, len(ft.lines))
		for i := range ft.fromCurrent {
			ft.fromCurrent[i] = -1
		}
		for i, j := range ft.toCurrent {
			if j >= 0 {
				ft.fromCurrent[j] = i
			}
		}
	}
	s.mappings.put(key, ft)
	return f, ft, true
}
