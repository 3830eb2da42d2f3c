// Package faultlineagx records and forces values for faultline's angelic
// analysis. It is injected into instrumented test binaries as
// <module>/internal/faultlineagx; nothing else imports it.
//
// Every instrumented site calls it with its site number; it counts dynamic
// instances per site and function activation, substitutes forced values and
// appends one line "site activation instance value" per event to the trace
// file (a float's value is its IEEE bits, which forced values carry too; a
// string's or byte slice's is its Go-quoted contents, or #n for one of n
// bytes too long to record).
// Its state is package level because instrumented code anywhere in the
// binary reaches it without plumbing; it lives only inside the test process.
//
// Instrumented code refers to types, builtins and constraints only through
// this package (Int, Len, Integer...), so that no identifier of the code
// under test can shadow what the instrumentation means.
package faultlineagx

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
)

type key struct{ site, act, local int32 }

// frame is one instrumented activation: instances count per activation.
type frame struct {
	fn, act int32
	counts  map[int32]int32
}

// Environment variables the runtime reads.
const (
	TraceEnv     = "FAULTLINE_AGX_TRACE"      // file to write the trace to
	ForceEnv     = "FAULTLINE_AGX_FORCE"      // JSON file of values to force
	MaxEventsEnv = "FAULTLINE_AGX_MAX_EVENTS" // events after which a run stops
)

var (
	mu        sync.Mutex
	maxEvents = 200000
	counts    = map[int32]int32{} // instances outside any activation
	acts      = map[int32]int32{} // activations per function
	stack     []*frame
	forced    map[key]int64
	forcedStr map[key]string
	out       *bufio.Writer
	depth     int
	events    int
	buf       []byte
	tags      = map[int32]int64{} // last value per switch tag site
	strBytes  int                 // string bytes recorded so far
	// testsStarted says the test binary's main has parsed its flags.
	// Package initialization before it can call instrumented code
	// thousands of times (tables built by helpers): its events are not
	// written, and the value summary waits for the first return after it
	// rather than rewriting its file at each one.
	testsStarted = flag.Parsed
)

// Strings longer than maxString bytes, and all strings once the trace has
// recorded maxStringBytes of them, are recorded by their length alone: the
// analysis treats such a value as unknown.
const (
	maxString      = 1024
	maxStringBytes = 16 << 20
)

func init() {
	if n, err := strconv.Atoi(os.Getenv(MaxEventsEnv)); err == nil && n > 0 {
		maxEvents = n
	}
	if p := os.Getenv(TraceEnv); p != "" {
		f, err := os.Create(p)
		if err != nil {
			cannotRecord("write the trace", err)
		}
		out = bufio.NewWriterSize(f, 1<<16)
	}
	if p := os.Getenv(ForceEnv); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			cannotRecord("read the forced values", err)
		}
		var list []forcedEntry
		if err := json.Unmarshal(data, &list); err != nil {
			fmt.Fprintln(os.Stderr, "faultline: bad forced values:", err)
			os.Exit(3)
		}
		forced, forcedStr, forcedPayload = forceMaps(list)
	}
	initValues()
}

func event(site int32, v int64) int64 {
	mu.Lock()
	defer mu.Unlock()
	return eventLocked(site, v)
}

func eventLocked(site int32, v int64) int64 {
	k := instanceLocked(site)
	if f, ok := forced[k]; ok {
		v = f
	} else if len(forced)+len(forcedPayload) > 0 {
		v = forceEvery(site, v)
	}
	if summary != nil {
		noteLocked(k, encodeEvent(v))
	}
	if startLocked(k) {
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, '\n')
		writeLocked(buf)
	}
	return v
}

// forceEvery is v forced by an entry for every instance of site: a value,
// a shift "+d" of an integer, or "!", which negates a Boolean (0 or 1).
func forceEvery(site int32, v int64) int64 {
	every := key{site, EveryInstance, EveryInstance}
	if f, ok := forced[every]; ok {
		return f
	}
	p, ok := forcedPayload[every]
	if ok && p == "!" {
		return 1 - v
	}
	if d, isShift, err := shiftOf(p); ok && isShift && err == nil {
		return v + d
	}
	return v
}

// instanceLocked counts a new dynamic instance of site.
func instanceLocked(site int32) key {
	if n := len(stack); n > 0 {
		f := stack[n-1]
		f.counts[site]++
		return key{site, f.act, f.counts[site]}
	}
	counts[site]++
	return key{site, 0, counts[site]}
}

// ExitCannotRecord is the exit status of a test process whose runtime
// could not read what it was given or write what it recorded: a failure
// of the machine's (a full disk), which the analysis must not take for the
// test's behaviour. The message on standard error starts "faultline:
// cannot ".
const ExitCannotRecord = 3

// cannotRecord ends the process for a failure of the runtime's own I/O.
func cannotRecord(what string, err error) {
	fmt.Fprintf(os.Stderr, "faultline: cannot %s: %v\n", what, err)
	os.Exit(ExitCannotRecord)
}

// writeLocked appends a line to the trace; a trace that cannot be written
// ends the run, which would otherwise pass for one that recorded less.
func writeLocked(line []byte) {
	if _, err := out.Write(line); err != nil {
		cannotRecord("write the trace", err)
	}
}

// flushLocked writes the trace buffered so far.
func flushLocked() {
	if err := out.Flush(); err != nil {
		cannotRecord("write the trace", err)
	}
}

// startLocked begins the trace line of an instance in buf, reporting false
// when there is no trace or the tests have not started: package
// initialization (a test table built by helpers, say) can make most of a
// run's events, which the failing check cannot read (the formula keeps
// globals concrete) but every run would write and the analysis parse.
// Its instances are still counted, so that the tests' instances keep
// their numbers.
func startLocked(k key) bool {
	if out == nil || !testsStarted() {
		return false
	}
	if events >= maxEvents {
		// A run this long is a forced value sent astray: stop it now
		// rather than at its timeout.
		flushLocked()
		os.Exit(86)
	}
	events++
	buf = strconv.AppendInt(buf[:0], int64(k.site), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(k.act), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(k.local), 10)
	buf = append(buf, ' ')
	return true
}

// stringEvent records a string value at a site and returns it, or the
// forced string and true.
func stringEvent(site int32, s string) (string, bool) {
	mu.Lock()
	defer mu.Unlock()
	k := instanceLocked(site)
	f, isForced := forcedStr[k]
	if isForced {
		s = f
	}
	if summary != nil {
		noteLocked(k, "s"+strconv.Quote(s))
	}
	if startLocked(k) {
		if len(s) > maxString || strBytes+len(s) > maxStringBytes {
			buf = append(buf, '#')
			buf = strconv.AppendInt(buf, int64(len(s)), 10)
		} else {
			strBytes += len(s)
			buf = strconv.AppendQuote(buf, s)
		}
		buf = append(buf, '\n')
		writeLocked(buf)
	}
	return s, isForced
}

// Integer is the constraint of the integer recorders.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// BoolKind, Float32Kind, Float64Kind, StringKind and BytesKind constrain
// the other recorders.
type (
	BoolKind    interface{ ~bool }
	Float32Kind interface{ ~float32 }
	Float64Kind interface{ ~float64 }
	StringKind  interface{ ~string }
	BytesKind   interface{ ~[]byte }
)

// The predeclared types under names the code under test cannot shadow.
type (
	Bool    = bool
	Int     = int
	Int8    = int8
	Int16   = int16
	Int32   = int32
	Int64   = int64
	Uint    = uint
	Uint8   = uint8
	Uint16  = uint16
	Uint32  = uint32
	Uint64  = uint64
	Uintptr = uintptr
	Float32 = float32
	Float64 = float64
)

// Len and Cap are len and cap of a slice, and LenString len of a string,
// under names the code under test cannot shadow.
func Len[S ~[]E, E any](s S) int   { return len(s) }
func Cap[S ~[]E, E any](s S) int   { return cap(s) }
func LenString[S ~string](s S) int { return len(s) }

// Limit is a guard's length or capacity read from an operand that indexes
// (a[i] of a[i][j]): -1, which no check fails against, when reading it
// panics. Read again, the operand does not see the value a forced run gave
// its index, and must not panic where the forced operand does not.
func Limit(read func() int) (n int) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	return read()
}

// S records a string at a site and returns it, or the forced string.
func S[T ~string](site int32, v T) T {
	s, _ := stringEvent(site, string(v))
	return T(s)
}

// Y records the contents of a byte slice at a site and returns it, or a
// new slice holding the forced contents.
func Y[T ~[]byte](site int32, v T) T {
	s, isForced := stringEvent(site, string(v))
	if !isForced {
		return v
	}
	return T(s)
}

// ErrorKind constrains the error recorder: its type argument is error.
type ErrorKind interface{ error }

// Error is error under a name the code under test cannot shadow.
type Error = error

// errForced is the error a forced non-nil error value is when the run had
// nil there.
var errForced = errors.New("faultline: forced error")

// E records an error at a site as its code (0 nil, the code of the first
// sentinel errors.Is matches, else 1; see Sentinel) and returns it, or,
// forced, nil, the sentinel of the code forced, or another non-nil error
// (the one it had, else errForced).
func E[T ErrorKind](site int32, v T) T {
	var was int64
	if any(v) != nil {
		was = errorCode(v)
	}
	got := event(site, was)
	switch {
	case got == was:
		return v
	case got == 0:
		var zero T
		return zero
	case got >= 2:
		if s := sentinelOf(got); s != nil {
			return any(s).(T)
		}
	}
	if was == 1 {
		return v
	}
	return any(errForced).(T)
}

// ByteSlice is []byte under a name the code under test cannot shadow.
type ByteSlice = []byte

// String is string under a name the code under test cannot shadow.
type String = string

// I records an integer value at a site and returns it, or the forced value.
func I[T Integer](site int32, v T) T { return T(event(site, int64(v))) }

// B records a Boolean value at a site and returns it, or the forced value.
func B[T BoolKind](site int32, v T) T {
	var x int64
	if v {
		x = 1
	}
	return event(site, x) != 0
}

// F32 records a float32 value at a site as its IEEE bits and returns it, or
// the forced value (bits too).
func F32[T Float32Kind](site int32, v T) T {
	return T(math.Float32frombits(uint32(event(site, int64(math.Float32bits(float32(v)))))))
}

// F64 records a float64 value at a site as its IEEE bits and returns it, or
// the forced value (bits too).
func F64[T Float64Kind](site int32, v T) T {
	return T(math.Float64frombits(uint64(event(site, int64(math.Float64bits(float64(v)))))))
}

// Tag records the tag of an expression switch at a site and returns it, or
// the forced value; the switch's cases compare with the value returned.
func Tag[T Integer](site int32, v T) T {
	mu.Lock()
	defer mu.Unlock()
	r := T(eventLocked(site, int64(v)))
	tags[site] = int64(r)
	return r
}

// Case records at a site whether the tag last recorded at site tag equals
// the case value v, and returns a value the switch's own comparison with
// the tag agrees with: v itself, or under a forced outcome the tag (equal)
// or the tag plus one (different).
func Case[T Integer](site, tag int32, v T) T {
	mu.Lock()
	defer mu.Unlock()
	t := T(tags[tag])
	var eq int64
	if v == t {
		eq = 1
	}
	switch got := eventLocked(site, eq); {
	case got != 0:
		return t
	case v == t:
		return t + 1
	}
	return v
}

// Index returns i, first recording the length n at a guard site when i is
// out of range, so that the indexing about to panic is in the trace.
func Index[T Integer](site int32, i T, n int) T {
	if uint64(i) >= uint64(n) {
		event(site, int64(n))
	}
	return i
}

// Slice returns the last bound of a slice expression, first recording the
// limit (capacity, or length without a high bound) at a guard site when
// lo <= mid <= last <= limit fails, so that the slicing about to panic is
// in the trace.
func Slice[T Integer](site int32, last T, lo, mid Int64, limit Int) T {
	if uint64(lo) > uint64(mid) || uint64(mid) > uint64(last) || uint64(last) > uint64(limit) {
		event(site, int64(limit))
	}
	return last
}

// Div returns a divisor, first recording it at a guard site when it is zero.
func Div[T Integer](site int32, y T) T {
	if y == 0 {
		event(site, 0)
	}
	return y
}

// Mark records that control reached a point.
func Mark(site int32) { event(site, 0) }

// Enter records a function entry.
func Enter(site int32) {
	mu.Lock()
	defer mu.Unlock()
	if site == trialSite {
		beginTrialLocked()
	}
	acts[site]++
	stack = append(stack, &frame{fn: site, act: acts[site], counts: map[int32]int32{}})
	eventLocked(site, 0)
	depth++
}

// Recover, deferred by every func(t *testing.T) of the tests, turns a
// panic during a trial into a failure of that trial: a panic would end the
// process, and with it the trials after it, and a failing test that panics
// would get one trial per process. Outside trials it leaves the panic be,
// having written the trace: a panic in a subtest ends the process from
// the subtest's goroutine, so Leave never gets back to the test function
// whose return writes it, and the run would have recorded nothing.
func Recover(t interface {
	Helper()
	Errorf(string, ...any)
}) {
	if len(trials) == 0 {
		mu.Lock()
		defer mu.Unlock()
		if out != nil {
			flushLocked()
		}
		return
	}
	if r := recover(); r != nil {
		t.Helper()
		t.Errorf("panic: %v", r)
	}
}

// Leave records a function exit. The trace is flushed whenever control is
// back in a test function (or above), which runs even when the test fails
// by t.Fatal or a panic (Leave is deferred), and after which a crashing
// test binary writes no more. The value summary is rewritten whenever
// control leaves the outermost instrumented function once the tests run.
// The leave site of a function is numbered right after its enter site;
// the activation left is the innermost of that function (with parallel
// subtests it need not be the top one).
func Leave(site int32) {
	mu.Lock()
	defer mu.Unlock()
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].fn == site-1 {
			f := stack[i]
			stack = append(stack[:i], stack[i+1:]...)
			stack = append(stack, f)
			break
		}
	}
	eventLocked(site, 0)
	if n := len(stack); n > 0 && stack[n-1].fn == site-1 {
		stack = stack[:n-1]
	}
	depth--
	if depth <= 1 && out != nil {
		flushLocked()
	}
	if depth == 0 && summary != nil && testsStarted() {
		writeValuesLocked()
	}
}
