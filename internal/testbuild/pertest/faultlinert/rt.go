// Package faultlinert is compiled into faultline's instrumented test
// binaries (its source is injected through go test -overlay as the package
// <module>/internal/faultlinert). It owns the counters of every pass and
// tells the collector which counters each test executed.
//
// A package's tests may run in several processes at once (shards): each
// top-level test is claimed by the first process to reach it, through a
// file in the directory FAULTLINE_CLAIMS names, and skipped by the others.
//
// Counters live in a file mapped into memory, so that the counters of a test
// that kills its process (panic, os.Exit, runtime abort, a hang the collector
// kills) are still readable after the process is gone. At every test
// boundary the counters executed since the previous boundary are written as
// one record to the collector's pipe and then reset; the collector
// reassembles the records into one spectrum per leaf test.
//
// Records are binary, so that a test's hundreds of counters cost a byte or
// two each to write and to read rather than a decimal number each: a
// record is its payload's length (4 bytes, little-endian) and the payload,
//
//	kind flags uvarint(len(name)) name counter...
//
// kind one byte: 'e' enter (the counters are those charged to the test
// running before this one started), 'x' exit (the test's own counters since
// the last boundary), 's' skip (a test finished by an earlier process,
// skipped again, no counters), '!' error (name is the message); flags one
// byte: '-', or on an exit record 'p' (the test is panicking), 'f' (it has
// failed so far) or 'k' (it skipped itself). An exit record's name is
// followed by uvarint(the test's run time in microseconds), so that a
// process run without -test.v, which reports only failures, still gives
// each test its verdict and time. Counters ascend; each is
// uvarint(gap<<1 | counted), gap the number of indices skipped since the
// previous counter (or since -1), followed by uvarint(count) when counted:
// a counter of a counting range carries its count (the layout file marks
// those ranges), a block counter only that it is not zero. A length prefix
// lets the collector drop the torn last record of a killed process.
//
// Tests run sequentially: the instrumentation turns t.Parallel into a no-op.
package faultlinert

import (
	"bufio"
	"fmt"
	"hash/fnv"
	//lint:ignore SA1019 written for the module's Go version (see T), which may predate os.ReadFile (Go 1.16)
	"io/ioutil"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// T is the part of *testing.T the hooks use; the package does not import
// testing so that instrumented non-test packages do not link it.
//
// This file is compiled at the language version of the module under test,
// which may be as old as Go 1.0: its syntax is that old (no 0o literals, no
// generics, no loop variable per iteration).
type T interface {
	Name() string
	SkipNow()
	Failed() bool
	Skipped() bool
}

type state struct {
	mu       sync.Mutex
	counters []uint32          // every registered counter, mapped from the counters file
	words    []uint64          // the same memory two counters a word, for scanning
	layout   map[string][2]int // registered name (a package path) -> offset, length
	linked   [][2]int          // ranges registered by this binary, by offset: first, end
	counting [][2]int          // ranges whose records carry counts, by offset: first, end
	out      *os.File          // the collector's pipe; nil when run outside a collection
	stack    []T               // the tests running, outermost first
	started  []time.Time       // when each test of stack started
	skip     map[string]bool   // tests finished by an earlier process of this collection
	claims   string            // directory of claimed top-level tests, when sharded
	table    []uint64          // the shards' claims table in the claims directory, when mapped
	split    map[string]bool   // top-level tests whose direct subtests are claimed one by one
	shard    string            // this process's shard
	buf      []byte
}

var rt state

var initOnce sync.Once

func setup() {
	rt.layout = map[string][2]int{}
	total := 0
	if path := os.Getenv("FAULTLINE_LAYOUT"); path != "" {
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				// name offset length [count]
				fields := strings.Fields(sc.Text())
				if len(fields) != 3 && len(fields) != 4 {
					continue
				}
				off, err1 := strconv.Atoi(fields[1])
				n, err2 := strconv.Atoi(fields[2])
				if err1 == nil && err2 == nil {
					rt.layout[fields[0]] = [2]int{off, n}
					if off+n > total {
						total = off + n
					}
					if len(fields) == 4 && fields[3] == "count" {
						rt.counting = append(rt.counting, [2]int{off, off + n})
					}
				}
			}
			f.Close()
		}
	}
	if fd := os.Getenv("FAULTLINE_FD"); fd != "" {
		if n, err := strconv.Atoi(fd); err == nil {
			rt.out = os.NewFile(uintptr(n), "faultline-records")
		}
	}
	rt.claims = os.Getenv("FAULTLINE_CLAIMS")
	rt.shard = os.Getenv("FAULTLINE_SHARD")
	if n, err := strconv.Atoi(rt.shard); rt.claims != "" && err == nil && n >= 0 && n < 255 {
		// Without the table every claim is a file: the claims go on.
		rt.table, _ = mapClaims(filepath.Join(rt.claims, "table"), claimSlots)
	}
	rt.split = readNames(os.Getenv("FAULTLINE_SPLIT"))
	rt.skip = readNames(os.Getenv("FAULTLINE_SKIP"))
	if path := os.Getenv("FAULTLINE_COUNTERS"); path != "" && total > 0 {
		if w, err := mapCounters(path, (total+1)/2); err == nil {
			rt.words = w
		} else {
			rt.emitError("mapping counters: " + err.Error())
		}
	}
	if rt.words == nil {
		rt.words = make([]uint64, (total+1)/2)
	}
	rt.counters = halves(rt.words, total)
}

// halves is words seen as n uint32 counters (at most two per word).
func halves(words []uint64, n int) []uint32 {
	if n == 0 {
		return nil
	}
	// Not unsafe.Slice: this file must compile at old language versions.
	return (*[1 << 28]uint32)(unsafe.Pointer(&words[0]))[:n:n]
}

// Register moves the counters of package pkg into the shared counters
// file and returns where they now are. A package counts from the start of
// the program in early, its own array, which needs no initialization:
// code that package variables' initializers reach before Register runs (in
// the package's init) is counted there, and those counts move too. The
// collector's layout file assigns each package its place in the shared
// file; a package missing from the layout keeps counting in early, and
// those counts are never reported.
func Register(pkg string, early []uint32) unsafe.Pointer {
	n := len(early)
	if n == 0 {
		return nil
	}
	initOnce.Do(setup)
	rt.mu.Lock()
	defer rt.mu.Unlock()
	place, ok := rt.layout[pkg]
	if !ok || place[1] != n || place[0]+n > len(rt.counters) {
		rt.emitError("no counter layout for package " + pkg)
		return unsafe.Pointer(&early[0])
	}
	rt.link(place[0], place[0]+n)
	shared := rt.counters[place[0] : place[0]+n : place[0]+n]
	for i := range early {
		if c := atomic.LoadUint32(&early[i]); c != 0 {
			atomic.AddUint32(&shared[i], c)
		}
	}
	return unsafe.Pointer(&shared[0])
}

// Enter is deferred at the start of every function that takes a *testing.T:
//
//	defer faultlinert.Enter(t)()
//
// It starts a new test unless t is already running (a helper called with
// the test's own t), and returns the function that ends it.
func Enter(t T) func() {
	initOnce.Do(setup)
	rt.mu.Lock()
	for _, running := range rt.stack {
		if running == t {
			rt.mu.Unlock()
			return func() {}
		}
	}
	name := t.Name()
	if rt.skip[name] || rt.claims != "" && !rt.mine(name) {
		rt.emit(recordSkip, name)
		rt.mu.Unlock()
		t.SkipNow()
		return func() {}
	}
	rt.boundary(recordEnter, name, '-', 0)
	rt.stack = append(rt.stack, t)
	rt.started = append(rt.started, time.Now())
	rt.mu.Unlock()
	return func() { exit(t, name, recover()) }
}

func exit(t T, name string, panicked interface{}) {
	rt.mu.Lock()
	flags := byte('-')
	switch {
	case panicked != nil:
		flags = 'p'
	case t.Failed():
		flags = 'f'
	case t.Skipped():
		flags = 'k'
	}
	var elapsed time.Duration
	n := len(rt.stack)
	if n > 0 && rt.stack[n-1] == t {
		elapsed = time.Since(rt.started[n-1])
	}
	rt.boundary(recordExit, name, flags, elapsed)
	if n > 0 && rt.stack[n-1] == t {
		rt.stack = rt.stack[:n-1]
		rt.started = rt.started[:n-1]
	}
	rt.mu.Unlock()
	if panicked == nil {
		return
	}
	// A panic in the test's own goroutine ends the test, not the process:
	// the trace goes to its output as the runtime would print it, and the
	// test fails as t.FailNow fails it, so that the tests after it run on
	// in this process (as a testify suite's do) rather than in a new one
	// per panic. A test of hundreds of cases that all panic after one bad
	// change would otherwise start hundreds of processes.
	if f, ok := t.(interface{ FailNow() }); ok {
		traceOut.WriteString("panic: " + panicText(panicked) + " [recovered]\n\n" + panickingStack())
		f.FailNow()
	}
	panic(panicked) // keep the test's own verdict and trace
}

// traceOut is where a test's panic is printed: the process's standard
// error, as the runtime prints one, even when the test has replaced
// os.Stdout or os.Stderr to capture what it prints.
var traceOut = os.NewFile(2, "stderr")

// panickingStack is the goroutine's trace from the call to panic on, as
// the runtime prints a panic's: without the frames of this hook, which
// runs in a deferred call.
func panickingStack() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	// A header line, then two lines a frame: the function, then its file.
	for i := 1; i+1 < len(lines); i += 2 {
		if strings.HasPrefix(lines[i], "panic(") {
			return lines[0] + "\n" + strings.Join(lines[i:], "\n")
		}
	}
	return strings.Join(lines, "\n")
}

// panicText is a panic's value as the runtime prints it, near enough for
// a reader and for the collector, which reads the trace that follows.
func panicText(v interface{}) string {
	switch v := v.(type) {
	case error:
		return v.Error()
	case interface{ String() string }:
		return v.String()
	case string:
		return v
	}
	return fmt.Sprintf("%v", v)
}

// EnterSuite is deferred at the start of every test method of a testify
// suite, s the method's receiver:
//
//	defer faultlinert.EnterSuite(s)()
//
// testify runs the method as a subtest whose T the suite's T method
// returns. Found by reflection, so that a suite whose T is not testify's
// still compiles; without a T the method stays its parent's.
func EnterSuite(s interface{}) func() {
	m := reflect.ValueOf(s).MethodByName("T")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return func() {}
	}
	v := m.Call(nil)[0]
	if v.Kind() == reflect.Ptr && v.IsNil() || v.Kind() == reflect.Interface && v.IsNil() {
		return func() {}
	}
	t, ok := v.Interface().(T)
	if !ok {
		return func() {}
	}
	return Enter(t)
}

// EnterExample is deferred at the start of every Example function.
func EnterExample(name string) func() {
	initOnce.Do(setup)
	rt.mu.Lock()
	rt.boundary(recordEnter, name, '-', 0)
	rt.mu.Unlock()
	started := time.Now()
	return func() {
		p := recover()
		flags := byte('-')
		if p != nil {
			flags = 'p'
		}
		// An example's output is compared after it returns: it fails
		// there, not here, and a process without -test.v says so.
		rt.mu.Lock()
		rt.boundary(recordExit, name, flags, time.Since(started))
		rt.mu.Unlock()
		if p != nil {
			panic(p)
		}
	}
}

// Parallel replaces t.Parallel in instrumented tests: per-test attribution
// needs tests to run one at a time.
func Parallel(T) {}

// The kinds of records (see the package comment).
const (
	recordEnter = 'e'
	recordExit  = 'x'
	recordSkip  = 's'
	recordError = '!'
)

// boundary writes the counters executed since the previous boundary and
// resets them. The caller holds rt.mu.
func (s *state) boundary(kind byte, name string, flags byte, elapsed time.Duration) {
	if s.out == nil {
		s.take(nil, false)
		return
	}
	b := s.header(kind, name, flags)
	if kind == recordExit {
		b = appendUvarint(b, uint64(elapsed/time.Microsecond))
	}
	b = s.take(b, true)
	s.send(b)
}

// header starts a record in s.buf: the length, filled in by send, then
// kind, flags and name.
func (s *state) header(kind byte, name string, flags byte) []byte {
	b := append(s.buf[:0], 0, 0, 0, 0, kind, flags)
	b = appendUvarint(b, uint64(len(name)))
	return append(b, name...)
}

// send fills in the length of the record b and writes it whole.
func (s *state) send(b []byte) {
	n := len(b) - 4
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	s.out.Write(b)
	s.buf = b
}

// emit writes a record without counters. The caller holds rt.mu, or runs
// before any test.
func (s *state) emit(kind byte, name string) {
	if s.out != nil {
		s.send(s.header(kind, name, '-'))
	}
}

// take resets the registered counters that are not zero and, when record
// is set, appends them to b. Counters are scanned a word (two of them) at
// a time, and eight words at once while all eight are zero: a test runs a
// few hundred of a binary's thousands of counters.
func (s *state) take(b []byte, record bool) []byte {
	// Atomic accesses: other goroutines of the test may still be counting,
	// and a build with the race detector must not report faultline itself.
	prev := -1
	next := 0 // the first counting range not yet passed
	for _, r := range s.linked {
		w, end := r[0]/2, (r[1]+1)/2
		for w < end {
			if end-w >= 8 && zero8(s.words[w:w+8]) {
				w += 8
				continue
			}
			if atomic.LoadUint64(&s.words[w]) == 0 {
				w++
				continue
			}
			for i := 2 * w; i < 2*w+2; i++ {
				if i < r[0] || i >= r[1] {
					continue // a neighbouring range's
				}
				c := atomic.LoadUint32(&s.counters[i])
				if c == 0 {
					continue
				}
				for next < len(s.counting) && s.counting[next][1] <= i {
					next++
				}
				counted := next < len(s.counting) && s.counting[next][0] <= i
				if counted {
					// Counts executed meanwhile by other goroutines go to
					// the next record rather than being lost.
					c = atomic.SwapUint32(&s.counters[i], 0)
				} else {
					atomic.StoreUint32(&s.counters[i], 0)
				}
				if !record {
					continue
				}
				field := uint64(i-prev-1) << 1
				if counted {
					field |= 1
				}
				b = appendUvarint(b, field)
				if counted {
					b = appendUvarint(b, uint64(c))
				}
				prev = i
			}
			w++
		}
	}
	return b
}

// zero8 reports whether the 8 words of ws are all zero.
func zero8(ws []uint64) bool {
	_ = ws[7] // one bounds check for the eight loads
	return atomic.LoadUint64(&ws[0])|atomic.LoadUint64(&ws[1])|atomic.LoadUint64(&ws[2])|atomic.LoadUint64(&ws[3])|
		atomic.LoadUint64(&ws[4])|atomic.LoadUint64(&ws[5])|atomic.LoadUint64(&ws[6])|atomic.LoadUint64(&ws[7]) == 0
}

// appendUvarint appends x as encoding/binary's uvarint, which this file
// does not import to keep the instrumented binary's imports few.
func appendUvarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// link adds the counters [first, end) to those a boundary scans: the layout
// covers every package of the build, a binary links only some of them, and
// the counters of the others stay zero. Ranges stay sorted by offset, so
// that records list counters in increasing order. The caller holds rt.mu.
func (s *state) link(first, end int) {
	i := len(s.linked)
	for i > 0 && s.linked[i-1][0] > first {
		i--
	}
	if i > 0 && s.linked[i-1][0] == first {
		return // registered again
	}
	s.linked = append(s.linked, [2]int{})
	copy(s.linked[i+1:], s.linked[i:])
	s.linked[i] = [2]int{first, end}
}

func (s *state) emitError(msg string) {
	s.emit(recordError, msg)
}

// readNames reads a file of quoted test names, one per line.
func readNames(path string) map[string]bool {
	names := map[string]bool{}
	if path == "" {
		return names
	}
	if data, err := ioutil.ReadFile(path); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if name, err := strconv.Unquote(line); err == nil {
				names[name] = true
			}
		}
	}
	return names
}

// mine reports whether this shard runs the test about to start: every
// shard runs a split test and claims its direct subtests one by one; any
// other top-level test is claimed whole. The caller holds rt.mu.
func (s *state) mine(name string) bool {
	switch len(s.stack) {
	case 0:
		return s.split[name] || claim(name)
	case 1:
		return !s.split[s.stack[0].Name()] || claim(name)
	}
	return true
}

// claim reports whether this process runs a top-level test: it does when it
// is the first shard to claim it, or claimed it before a restart. The claim
// is a file written whole under a temporary name and linked into place,
// which fails when another process's claim is there already.
func claim(name string) bool {
	h := fnv.New64a()
	h.Write([]byte(name))
	if mine, ok := claimInTable(rt.table, h.Sum64(), rt.shard); ok {
		return mine
	}
	path := filepath.Join(rt.claims, strconv.FormatUint(h.Sum64(), 16))
	tmp := path + ".shard" + rt.shard
	if err := ioutil.WriteFile(tmp, []byte(rt.shard+"\n"+name), 0644); err != nil {
		rt.emitError("claiming " + name + ": " + err.Error())
		return true // a test run twice is dropped once; one never run is lost
	}
	err := os.Link(tmp, path)
	os.Remove(tmp)
	if err == nil {
		return true
	}
	data, err := ioutil.ReadFile(path)
	if err != nil {
		return true
	}
	owner := string(data)
	if i := strings.Index(owner, "\n"); i >= 0 {
		owner = owner[:i]
	}
	return owner == rt.shard
}

// The claims table: claimSlots words shared by every shard's process (a
// file mapped by each), a claim a word holding the test name's hash with
// its low byte replaced by the claiming shard plus one, placed by linear
// probing. A claim is one compare-and-swap in shared memory where a file
// took seven system calls, and a shard skipping every subtest another
// claimed made that twice per subtest. Words are only ever set, so the
// probe window of a hash holds its claim or, once full of others, never
// will: such a name is claimed by file by every shard alike.
const (
	claimSlots  = 1 << 17
	claimWindow = 64
)

// claimInTable claims the test of hash h for shard in table, and reports
// whether shard owns it; ok is false when the table cannot hold it.
func claimInTable(table []uint64, h uint64, shard string) (mine, ok bool) {
	n, err := strconv.Atoi(shard)
	if len(table) == 0 || err != nil || n < 0 || n >= 255 {
		return false, false
	}
	key := h &^ 0xff
	word := key | uint64(n+1)
	start := int((h >> 32) % uint64(len(table)))
	for i := 0; i < claimWindow; i++ {
		slot := &table[(start+i)%len(table)]
		for {
			v := atomic.LoadUint64(slot)
			if v == 0 {
				if atomic.CompareAndSwapUint64(slot, 0, word) {
					return true, true
				}
				continue // another claim took the word: read it
			}
			if v&^0xff == key {
				return v == word, true
			}
			break
		}
	}
	return false, false
}
