package spectra

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// A chunk of stored tests is written by hand, not by gob: a large
// module's tens of thousands of tests went through gob's reflection
// twice per collection (written, then read back into the matrix), a
// tenth of a collection's own CPU on expr. The layout (store schema 5):
//
//	chunk := uvarint(count) test*
//	test  := package name verdict varint(elapsed) output uvarint(sites) site* hits edges edgeCounts
//	site  := string(file) varint(line)
//
// Strings and byte strings are a uvarint length and the bytes, except a
// test's package and verdict, written as uvarint(0) when they are the
// previous test's (every test of a chunk shares them, mostly) and as
// uvarint(len+1) and the bytes otherwise. A test's TestRun.Hits is not
// written: a stored test's hits are storedTest.Hits.

// errDamagedChunk says a chunk of stored tests does not decode.
var errDamagedChunk = errors.New("damaged chunk of stored tests")

// appendTests appends the encoding of tests to buf.
func appendTests(buf []byte, tests []storedTest) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(tests)))
	var prevPackage, prevVerdict string
	for i := range tests {
		t := &tests[i]
		buf = appendRepeated(buf, t.Package, prevPackage, i > 0)
		buf = appendBytes(buf, t.Name)
		buf = appendRepeated(buf, string(t.Verdict), prevVerdict, i > 0)
		prevPackage, prevVerdict = t.Package, string(t.Verdict)
		buf = binary.AppendVarint(buf, int64(t.Elapsed))
		buf = appendBytes(buf, t.Output)
		buf = binary.AppendUvarint(buf, uint64(len(t.FailSites)))
		for _, s := range t.FailSites {
			buf = appendBytes(buf, s.File)
			buf = binary.AppendVarint(buf, int64(s.Line))
		}
		buf = appendBytes(buf, t.Hits)
		buf = appendBytes(buf, t.Edges)
		buf = appendBytes(buf, t.EdgeCounts)
	}
	return buf
}

func appendBytes[S string | []byte](buf []byte, s S) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

func appendRepeated(buf []byte, s, prev string, hasPrev bool) []byte {
	if hasPrev && s == prev {
		return append(buf, 0)
	}
	buf = binary.AppendUvarint(buf, uint64(len(s))+1)
	return append(buf, s...)
}

// decodeTests reads what appendTests wrote. The data may be the store's
// memory, valid only in its transaction: the tests keep copies, their
// byte strings all in one copy of the chunk.
func decodeTests(data []byte) ([]storedTest, error) {
	d := chunkDecoder{data: bytes.Clone(data)}
	n := d.uvarint()
	if n > uint64(len(d.data)) { // every test takes bytes
		return nil, errDamagedChunk
	}
	tests := make([]storedTest, 0, n)
	var pkg, verdict string
	for i := uint64(0); i < n && d.err == nil; i++ {
		var t storedTest
		pkg = d.repeated(pkg, i > 0)
		t.Package = pkg
		t.Name = string(d.bytes())
		verdict = d.repeated(verdict, i > 0)
		t.Verdict = Verdict(verdict)
		t.Elapsed = time.Duration(d.varint())
		t.Output = string(d.bytes())
		sites := d.uvarint()
		if sites > uint64(len(d.data)) {
			return nil, errDamagedChunk
		}
		for range sites {
			file := string(d.bytes())
			t.FailSites = append(t.FailSites, Site{File: file, Line: int(d.varint())})
		}
		t.Hits, t.Edges, t.EdgeCounts = d.bytes(), d.bytes(), d.bytes()
		tests = append(tests, t)
	}
	if d.err != nil || len(d.data) > 0 {
		return nil, errDamagedChunk
	}
	return tests, nil
}

// chunkDecoder reads a chunk's fields; after the first error it reads
// only zeros and empty strings.
type chunkDecoder struct {
	data []byte
	err  error
}

func (d *chunkDecoder) uvarint() uint64 { return next(d, binary.Uvarint) }

func (d *chunkDecoder) varint() int64 { return next(d, binary.Varint) }

// next reads one varint of d with read.
func next[T uint64 | int64](d *chunkDecoder, read func([]byte) (T, int)) T {
	x, k := read(d.data)
	if k <= 0 {
		d.err, d.data = errDamagedChunk, nil
		return 0
	}
	d.data = d.data[k:]
	return x
}

// bytes returns the next byte string, nil when empty, capped at its end.
func (d *chunkDecoder) bytes() []byte {
	n := d.uvarint()
	return d.take(n)
}

func (d *chunkDecoder) take(n uint64) []byte {
	if n > uint64(len(d.data)) {
		d.err, d.data = errDamagedChunk, nil
		return nil
	}
	if n == 0 {
		return nil
	}
	b := d.data[:n:n]
	d.data = d.data[n:]
	return b
}

// repeated reads a string written by appendRepeated.
func (d *chunkDecoder) repeated(prev string, hasPrev bool) string {
	n := d.uvarint()
	if n == 0 {
		if !hasPrev {
			d.err, d.data = errDamagedChunk, nil
		}
		return prev
	}
	return string(d.take(n - 1))
}

// decodeError wraps a chunk's decoding error with where it was.
func decodeError(path, pkg string, chunk int, err error) error {
	return fmt.Errorf("spectrum store %s: reading chunk %d of the tests of %s: %w", path, chunk, pkg, err)
}
