// Package parsed owns the parsed Go source files of a module: one cache of
// syntax trees keyed by each file's path and the hash of its content, which
// every reader of the source within one service shares (the function list,
// the declarations, the static and identity evidence, the report). A file
// is read again on every request, which is cheap; it is parsed again only
// when its content changed. The cache is held in memory by whoever made it
// (a service, a command) and passed down: it is not global state.
//
// The on-disk cache (internal/filecache) holds results as bytes; a syntax
// tree is a graph of pointers that lives only in memory, so it has its own
// bounded cache here rather than an entry there.
package parsed

import (
	"container/list"
	"crypto/sha256"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sync"
)

// File is one parsed version of a source file. Its syntax tree may be
// partial: a file that does not parse keeps what the parser recovered and
// the error.
type File struct {
	Path string   // as asked for
	Src  []byte   // the content parsed
	Hash [32]byte // SHA-256 of Src
	AST  *ast.File
	// Tok holds the file's line table; use it for line numbers, which it
	// answers even after the cache has let the file go.
	Tok *token.File
	Err error // the parse error, if any
}

// Line is the line of a position in the file.
func (f *File) Line(p token.Pos) int { return f.Tok.Line(p) }

// DefaultBound is the source bytes the cache keeps parsed when its maker
// gives no bound: a package's files or a few, whose syntax trees take
// some ten times that in memory. The readers keep what they derive from a
// file (DerivedFrom) rather than its tree, so the trees held are only
// those read lately, to be shared by the readers of the same files one
// after another, not the whole module's for as long as the cache lives.
const DefaultBound = 512 << 10

// Cache keeps the parsed files, least recently used first out once the
// source they hold exceeds the bound. It is safe for concurrent use.
type Cache struct {
	fset  *token.FileSet
	bound int64

	mu    sync.Mutex
	held  int64                      // bytes of source held
	byKey map[cacheKey]*list.Element // of *File
	lru   *list.List                 // most recently used at the front
	// Parses counts the files parsed rather than found, for tests and
	// traces.
	parses int
	// derived are values computed from parsed files, by keys naming
	// their content; derivedOrder lists the keys oldest first.
	derived      map[string]any
	derivedOrder []string
}

// maxDerived is how many derived values the cache keeps: a few a file and
// one a package of a large module, each much smaller than the file's
// syntax tree.
const maxDerived = 4096

type cacheKey struct {
	path string
	hash [32]byte
}

// New makes an empty cache keeping about bound bytes of source parsed
// (DefaultBound when bound is not positive).
func New(bound int64) *Cache {
	if bound <= 0 {
		bound = DefaultBound
	}
	return &Cache{fset: token.NewFileSet(), bound: bound, byKey: map[cacheKey]*list.Element{}, lru: list.New(), derived: map[string]any{}}
}

// FileSet is the file set of every file the cache parsed, which a type
// checker of several of them needs.
func (c *Cache) FileSet() *token.FileSet { return c.fset }

// Parses is how many times the cache has parsed a file rather than found
// it parsed.
func (c *Cache) Parses() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.parses
}

// Derived returns the value derived under key, computing it with derive
// the first time. The key must name everything the value depends on (the
// hashes of the files it is derived from), so that changed content is a
// new key; the oldest values are let go past maxDerived. derive runs
// outside the cache's lock and may read files through it.
func (c *Cache) Derived(key string, derive func() any) any {
	c.mu.Lock()
	v, ok := c.derived[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = derive()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.derived[key]; !ok {
		c.derivedOrder = append(c.derivedOrder, key)
		if len(c.derivedOrder) > maxDerived {
			delete(c.derived, c.derivedOrder[0])
			c.derivedOrder = c.derivedOrder[1:]
		}
	}
	c.derived[key] = v
	return v
}

// DerivedFrom returns the value derived, under kind, from the file at
// path as it is now, parsing it only when that content has no such value
// yet: a reader that keeps what it needs of a file this way leaves its
// syntax tree to the cache's bound. derive must not keep the File's
// syntax tree. A file that cannot be read is an error.
func (c *Cache) DerivedFrom(kind, path string, derive func(*File) any) (any, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return c.Derived(fmt.Sprintf("%s\x00%s\x00%x", kind, path, sha256.Sum256(src)), func() any {
		return derive(c.Parse(path, src))
	}), nil
}

// Read reads and parses the file at path (without object resolution:
// go/types resolves names). A file that cannot be read is an error; one
// that does not parse fully is not, and its File says why.
func (c *Cache) Read(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return c.Parse(path, src), nil
}

// Parse parses src as the file at path, or returns the parse of the same
// content made before.
func (c *Cache) Parse(path string, src []byte) *File {
	key := cacheKey{path, sha256.Sum256(src)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*File)
	}
	// Parsing under the lock keeps one parse per content, and the callers
	// of one service mostly ask for different files one after another.
	base := c.fset.Base() // where the parser adds the file
	f, err := parser.ParseFile(c.fset, path, src, parser.SkipObjectResolution)
	pf := &File{Path: path, Src: src, Hash: key.hash, AST: f, Err: err, Tok: c.fset.File(token.Pos(base))}
	if pf.Tok == nil { // not even added: an empty line table of the right size
		pf.Tok = token.NewFileSet().AddFile(path, -1, len(src))
	}
	c.parses++
	c.byKey[key] = c.lru.PushFront(pf)
	c.held += int64(len(src))
	for c.held > c.bound && c.lru.Len() > 1 {
		old := c.lru.Back()
		of := old.Value.(*File)
		c.lru.Remove(old)
		delete(c.byKey, cacheKey{of.Path, of.Hash})
		c.held -= int64(len(of.Src))
		c.fset.RemoveFile(of.Tok) // its line table stays with the File
	}
	return pf
}
