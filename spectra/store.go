package spectra

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/faultline-go/faultline/spectra/edges"
)

// The store is one bbolt file per module. Test results are kept under the
// content hash of everything their test binary was built from, so results
// stay valid exactly as long as their inputs are unchanged, and a file
// edited back to an earlier content finds its earlier results again.
var (
	bucketFiles   = []byte("files")   // file key -> storedFile: the blocks of one file content
	bucketFlows   = []byte("flows")   // flow key -> storedFlow: the control-flow graphs of one file content
	bucketResults = []byte("results") // package key -> storedPackage
	bucketTests   = []byte("tests")   // testChunkKey -> []storedTest: a package's tests, chunk by chunk
	bucketState   = []byte("state")   // "current" -> storedState
	bucketMeta    = []byte("meta")    // "schema" -> storeSchema
	keyCurrent    = []byte("current")
	keySchema     = []byte("schema")
)

// storeSchema names the layout. 3: a package's tests in chunks of their
// own (bucketTests), where 2 held them inline; 4: the chunks' keys name
// the collection they belong to; 5: chunks written by appendTests, not
// gob. A store of another layout of faultline's holds nothing this
// version reads: it is read as empty and cleared at the next write.
const storeSchema = "faultline-store-5"

// schemaFamily begins the schema of every layout of faultline's store.
const schemaFamily = "faultline-store-"

// storedFile is the instrumentation of one file content.
type storedFile struct {
	Path   string
	Hash   string
	Blocks []Block
}

// fileRef names a file content inside a stored package result.
type fileRef struct {
	Path, Hash string
	Blocks     int
}

type storedTest struct {
	TestRun
	// Hits index the concatenated blocks of storedPackage.Files, ascending,
	// packed by packHits: a suite of thousands of tests decodes several
	// times faster from bytes than from a slice of integers.
	Hits []byte
	// Edges index the concatenated edges of storedPackage.FlowFiles, the
	// edges the test took, packed as Hits are; EdgeCounts say how often,
	// one uvarint per edge.
	Edges      []byte
	EdgeCounts []byte
}

// storedPackage is the result of running one test binary.
type storedPackage struct {
	Package string
	Key     string
	Files   []fileRef
	// tests are the package's tests not stored yet (unexported: gob
	// leaves them out). The store keeps them apart, in Chunks chunks under
	// testChunkKey, NumTests in all, so that neither writing nor reading a
	// package of tens of thousands of tests holds all of them at once.
	tests     []storedTest
	Chunks    int
	NumTests  int
	BuildErr  string
	Collected time.Time
	// Flow says the tests' edge profiles were collected too, over the
	// control-flow graphs of FlowFiles, by the edge pass of FlowVersion.
	Flow        bool
	FlowFiles   []flowRef
	FlowVersion string
	// MemoryBound is the test memory bound that stopped one of its tests;
	// 0 when none was stopped. A collection under a larger bound runs the
	// package again.
	MemoryBound int64
	// QuietPasses says its tests ran in shards without -test.v, so that
	// its passing and skipped tests' output may not have been kept
	// (CollectOptions.PassingOutput).
	QuietPasses bool
}

// storedFlow is the control-flow graphs of one file content.
type storedFlow struct {
	Path  string
	Hash  string
	Funcs []edges.Func
}

// flowRef names a file content's graphs inside a stored package result.
type flowRef struct {
	Path, Hash string
	Edges      int
}

func flowKey(path, hash string) string { return edges.Version + " " + fileKey(path, hash) }

// storedState says which stored result is current for each package.
type storedState struct {
	Packages map[string]string // import path -> package key
	Updated  time.Time
}

// store is the on-disk spectrum database. It opens the file for each
// transaction, so that several processes (the language server and
// faultline test in a terminal) can share it.
type store struct {
	path string
	warn func(string) // reports a store that had to be rebuilt
	// openFile opens the store's file (nil: os.OpenFile); tests make it
	// fail as a full disk would.
	openFile func(name string, flag int, perm os.FileMode) (*os.File, error)
}

func gobEncode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func gobDecode(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// errCorrupt marks a store that opened and failed its integrity check.
var errCorrupt = errors.New("corrupt spectrum store")

// corrupt reports whether bbolt refused to open the store for what the
// file holds: its checks of the meta pages (bbolt's integrity errors), or
// any other complaint about the contents, which carries no system error.
// A system error (a full disk, no permission, an I/O error) says nothing
// of the store's contents, and moving the store aside would lose it.
func corrupt(err error) bool {
	if errors.Is(err, bolterrors.ErrInvalid) || errors.Is(err, bolterrors.ErrChecksum) || errors.Is(err, bolterrors.ErrVersionMismatch) {
		return true
	}
	var errno syscall.Errno
	return !errors.As(err, &errno) && !errors.Is(err, bolterrors.ErrTimeout)
}

// transact runs fn in one transaction. A corrupt store (errCorrupt) is
// moved aside and rebuilt empty, once; fn then sees the new store. Any
// other error is returned as it is, the store left in place.
func (s *store) transact(write bool, fn func(tx *bolt.Tx) error) error {
	err := s.try(write, fn)
	if errors.Is(err, errCorrupt) {
		if rerr := s.rebuild(err); rerr != nil {
			return rerr
		}
		err = s.try(write, fn)
	}
	return err
}

func (s *store) try(write bool, fn func(tx *bolt.Tx) error) (err error) {
	if !write {
		// An empty file is a store whose creation did not get through (a
		// full disk): it holds nothing, like a missing one.
		if info, statErr := os.Stat(s.path); errors.Is(statErr, os.ErrNotExist) || statErr == nil && info.Size() == 0 {
			return fn(nil)
		}
	}
	db, err := bolt.Open(s.path, 0o644, &bolt.Options{Timeout: time.Minute, ReadOnly: !write, OpenFile: s.openFile})
	if err != nil {
		switch {
		case errors.Is(err, bolterrors.ErrTimeout):
			return fmt.Errorf("spectrum store %s is locked by another process: %w", s.path, err)
		case corrupt(err):
			return fmt.Errorf("%w: opening %s: %v", errCorrupt, s.path, err)
		}
		return fmt.Errorf("opening the spectrum store %s: %w", s.path, err)
	}
	defer db.Close()
	// bbolt panics on some kinds of damaged pages; a damaged store must
	// never take the process down.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: reading %s: %v", errCorrupt, s.path, r)
		}
	}()
	run := func(tx *bolt.Tx) error {
		if write {
			if err := s.ensureSchema(tx); err != nil {
				return err
			}
		} else if meta := tx.Bucket(bucketMeta); meta == nil || !bytes.HasPrefix(meta.Get(keySchema), []byte(schemaFamily)) {
			return fmt.Errorf("%w: %s has no faultline schema", errCorrupt, s.path)
		} else if string(meta.Get(keySchema)) != storeSchema {
			return fn(nil) // another version's layout: nothing to read
		}
		return fn(tx)
	}
	if write {
		return db.Update(run)
	}
	return db.View(run)
}

func (s *store) ensureSchema(tx *bolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return fmt.Errorf("%w: %v", errCorrupt, err)
	}
	switch string(meta.Get(keySchema)) {
	case storeSchema:
	case "":
		if tx.Bucket(bucketResults) != nil {
			return fmt.Errorf("%w: %s has data but no schema", errCorrupt, s.path)
		}
		if err := meta.Put(keySchema, []byte(storeSchema)); err != nil {
			return err
		}
	default:
		if !bytes.HasPrefix(meta.Get(keySchema), []byte(schemaFamily)) {
			return fmt.Errorf("%w: %s has schema %q", errCorrupt, s.path, meta.Get(keySchema))
		}
		// Another version's layout: its results are not this version's to
		// read, and they go.
		for _, b := range [][]byte{bucketFiles, bucketFlows, bucketResults, bucketTests, bucketState} {
			if err := tx.DeleteBucket(b); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
				return err
			}
		}
		if err := meta.Put(keySchema, []byte(storeSchema)); err != nil {
			return err
		}
	}
	for _, b := range [][]byte{bucketFiles, bucketFlows, bucketResults, bucketTests, bucketState} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

// rebuild moves a corrupt store aside (keeping it for inspection) and
// reports it; the next transaction creates a fresh store.
func (s *store) rebuild(cause error) error {
	aside := s.path + ".corrupt"
	os.Remove(aside)
	if err := os.Rename(s.path, aside); err != nil && !errors.Is(err, os.ErrNotExist) {
		if err := os.Remove(s.path); err != nil {
			return fmt.Errorf("removing corrupt store: %w", err)
		}
		aside = "(removed)"
	}
	if s.warn != nil {
		s.warn(fmt.Sprintf("faultline: %v; moved it to %s and rebuilding it", cause, aside))
	}
	return nil
}

// fileEntry gives putAbsentTx the files' blocks.
func fileEntry(files []storedFile) func(i int) (string, string, any) {
	return func(i int) (string, string, any) {
		return fileKey(files[i].Path, files[i].Hash), "blocks of " + files[i].Path, files[i]
	}
}

func fileKey(path, hash string) string { return hash + " " + path }

// flowEntry gives putAbsentTx the files' control flow graphs.
func flowEntry(flows []storedFlow) func(i int) (string, string, any) {
	return func(i int) (string, string, any) {
		return flowKey(flows[i].Path, flows[i].Hash), "control flow of " + flows[i].Path, flows[i]
	}
}

// putAbsentTx stores n values under their keys in a bucket of
// content-keyed values, leaving those stored already alone.
func putAbsentTx(tx *bolt.Tx, bucket []byte, n int, entry func(i int) (key, what string, value any)) error {
	b := tx.Bucket(bucket)
	for i := range n {
		key, what, value := entry(i)
		if b.Get([]byte(key)) != nil {
			continue
		}
		data, err := gobEncode(value)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", what, err)
		}
		if err := b.Put([]byte(key), data); err != nil {
			return err
		}
	}
	return nil
}

// testChunkKey is the key of the chunk-th chunk of r's tests. It names the
// collection (by the time it began) as well as the package key: a package
// collected again under the same key (its edges wanted, or by another
// process sharing the store) writes new chunks while the stored record
// still counts the old ones, which readers must go on finding intact.
func testChunkKey(r *storedPackage, chunk int) []byte {
	return fmt.Appendf(nil, "%s %d %d", r.Key, r.Collected.UnixNano(), chunk)
}

// putTests stores r's tests so far as its next chunk, in a transaction of
// their own, and empties r.tests: the result's record, written last by
// putResult, counts the chunks.
func (s *store) putTests(r *storedPackage) error {
	if len(r.tests) == 0 {
		return nil
	}
	key, tests := takeChunk(r)
	data := appendTests(nil, tests)
	return s.transact(true, func(tx *bolt.Tx) error { return putChunk(tx, key, data) })
}

// takeChunk takes r's tests not stored yet as its next chunk, counted in
// r, and returns its key.
func takeChunk(r *storedPackage) (key []byte, tests []storedTest) {
	key, tests = testChunkKey(r, r.Chunks), r.tests
	r.Chunks++
	r.NumTests += len(tests)
	r.tests = nil
	return key, tests
}

// putChunk writes a chunk of tests encoded by appendTests.
func putChunk(tx *bolt.Tx, key, data []byte) error {
	return tx.Bucket(bucketTests).Put(key, data)
}

// eachTest calls each with every test of r: those not stored yet, then
// the stored ones, read one chunk per transaction so that only that
// chunk's pages of the store are mapped and decoded at a time. A nil
// store has only the tests in memory.
func (s *store) eachTest(r *storedPackage, each func(*storedTest)) error {
	for i := range r.tests {
		each(&r.tests[i])
	}
	if s == nil {
		return nil
	}
	for chunk := range r.Chunks {
		var tests []storedTest
		var err error
		err = s.transact(false, func(tx *bolt.Tx) error {
			if tx == nil {
				return fmt.Errorf("spectrum store %s: the tests of %s are gone", s.path, r.Package)
			}
			data := tx.Bucket(bucketTests).Get(testChunkKey(r, chunk))
			if data == nil {
				return fmt.Errorf("spectrum store %s: chunk %d of the tests of %s is missing", s.path, chunk, r.Package)
			}
			if tests, err = decodeTests(data); err != nil {
				return decodeError(s.path, r.Package, chunk, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i := range tests {
			each(&tests[i])
		}
	}
	return nil
}

// putResult stores what remains of r's tests as its last chunk, then its
// record, and makes it current; the chunks of the record it replaces go.
func (s *store) putResult(r *storedPackage) error {
	if err := s.putTests(r); err != nil {
		return err
	}
	data, err := encodeResult(r)
	if err != nil {
		return err
	}
	return s.transact(true, func(tx *bolt.Tx) error { return s.putRecord(tx, r, data) })
}

func encodeResult(r *storedPackage) ([]byte, error) {
	data, err := gobEncode(r)
	if err != nil {
		return nil, fmt.Errorf("encoding results of %s: %w", r.Package, err)
	}
	return data, nil
}

// putRecord writes r's record, encoded by encodeResult, and makes it
// current; the chunks of the record it replaces go.
func (s *store) putRecord(tx *bolt.Tx, r *storedPackage, data []byte) error {
	results := tx.Bucket(bucketResults)
	var old storedPackage
	if prev := results.Get([]byte(r.Key)); prev != nil && gobDecode(prev, &old) == nil && !old.Collected.Equal(r.Collected) {
		for chunk := range old.Chunks {
			if err := tx.Bucket(bucketTests).Delete(testChunkKey(&old, chunk)); err != nil {
				return err
			}
		}
	}
	if err := results.Put([]byte(r.Key), data); err != nil {
		return err
	}
	return s.updateState(tx, func(st *storedState) { st.Packages[r.Package] = r.Key })
}

func (s *store) updateState(tx *bolt.Tx, change func(*storedState)) error {
	st := storedState{Packages: map[string]string{}}
	if data := tx.Bucket(bucketState).Get(keyCurrent); data != nil {
		if err := gobDecode(data, &st); err != nil || st.Packages == nil {
			st = storedState{Packages: map[string]string{}}
		}
	}
	change(&st)
	st.Updated = time.Now()
	data, err := gobEncode(st)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketState).Put(keyCurrent, data)
}

// forget drops packages that no longer exist from the current state. It
// writes only when there is one to drop: a write transaction syncs the
// file to disk, which a collection should not wait for to change nothing.
func (s *store) forget(keep map[string]bool) error {
	st, err := s.current()
	if err != nil {
		return err
	}
	stale := false
	for pkg := range st.Packages {
		stale = stale || !keep[pkg]
	}
	if !stale {
		return nil
	}
	return s.transact(true, func(tx *bolt.Tx) error {
		return s.updateState(tx, func(st *storedState) {
			for pkg := range st.Packages {
				if !keep[pkg] {
					delete(st.Packages, pkg)
				}
			}
		})
	})
}

// storedFiles are the blocks and control-flow graphs of the file contents
// some results refer to, by file key and flow key.
type storedFiles struct {
	blocks map[string]*storedFile
	flows  map[string]*storedFlow
}

// results returns the stored results under the keys, with the blocks and
// graphs of their files; keys without a readable result are missing from
// the map. A result whose graphs are missing says it has no flow.
func (s *store) results(keys []string) (map[string]*storedPackage, storedFiles, error) {
	pkgs := map[string]*storedPackage{}
	files := map[string]*storedFile{}
	flows := map[string]*storedFlow{}
	err := s.transact(false, func(tx *bolt.Tx) error {
		if tx == nil {
			return nil
		}
		rb, fb, gb := tx.Bucket(bucketResults), tx.Bucket(bucketFiles), tx.Bucket(bucketFlows)
		for _, key := range keys {
			data := rb.Get([]byte(key))
			if data == nil {
				continue
			}
			var p storedPackage
			if gobDecode(data, &p) != nil {
				continue // unreadable: collected again
			}
			complete := true
			for _, f := range p.Files {
				fk := fileKey(f.Path, f.Hash)
				if files[fk] != nil {
					continue
				}
				var sf storedFile
				fdata := fb.Get([]byte(fk))
				if fdata == nil || gobDecode(fdata, &sf) != nil || len(sf.Blocks) != f.Blocks {
					complete = false
					break
				}
				files[fk] = &sf
			}
			if !complete {
				continue
			}
			pkgs[key] = &p
			if p.FlowVersion != edges.Version {
				p.Flow = false // made by another edge pass: collected again when wanted
			}
			for _, f := range p.FlowFiles {
				if !p.Flow {
					break
				}
				fk := flowKey(f.Path, f.Hash)
				if flows[fk] != nil {
					continue
				}
				var sf storedFlow
				var data []byte
				if gb != nil {
					data = gb.Get([]byte(fk))
				}
				if data == nil || gobDecode(data, &sf) != nil || countEdges(sf.Funcs) != f.Edges {
					p.Flow = false // collected again when edges are wanted
					break
				}
				flows[fk] = &sf
			}
		}
		return nil
	})
	return pkgs, storedFiles{blocks: files, flows: flows}, err
}

func countEdges(funcs []edges.Func) int {
	n := 0
	for _, f := range funcs {
		n += len(f.Edges)
	}
	return n
}

// current returns the current state.
func (s *store) current() (storedState, error) {
	st := storedState{Packages: map[string]string{}}
	err := s.transact(false, func(tx *bolt.Tx) error {
		if tx == nil {
			return nil
		}
		if data := tx.Bucket(bucketState).Get(keyCurrent); data != nil {
			if err := gobDecode(data, &st); err != nil || st.Packages == nil {
				st = storedState{Packages: map[string]string{}}
			}
		}
		return nil
	})
	return st, err
}

// packHits packs ascending block indices as varint gaps.
func packHits(hits []int32) []byte {
	// Sized exactly: a large module's packed hits are all held at once
	// until they are assembled.
	size, prev := 0, int32(-1)
	for _, h := range hits {
		size += uvarintLen(uint64(h - prev))
		prev = h
	}
	out := make([]byte, 0, size)
	prev = -1
	for _, h := range hits {
		out = binary.AppendUvarint(out, uint64(h-prev))
		prev = h
	}
	return out
}

// uvarintLen is the length of x written as a uvarint.
func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// packCounts packs counts as uvarints.
func packCounts(counts []uint64) []byte {
	out := make([]byte, 0, len(counts)*2)
	for _, n := range counts {
		out = binary.AppendUvarint(out, n)
	}
	return out
}

// unpackCounts reverses packCounts.
func unpackCounts(packed []byte) []uint64 {
	var out []uint64
	for len(packed) > 0 {
		n, k := binary.Uvarint(packed)
		if k <= 0 {
			return out // damaged: the rest is lost, not misread
		}
		packed = packed[k:]
		out = append(out, n)
	}
	return out
}

// unpackHits reverses packHits, calling f with each index.
func unpackHits(packed []byte, f func(int32)) {
	prev := int32(-1)
	for len(packed) > 0 {
		gap, n := binary.Uvarint(packed)
		if n <= 0 {
			return // damaged: the rest is lost, not misread
		}
		packed = packed[n:]
		prev += int32(gap)
		f(prev)
	}
}
