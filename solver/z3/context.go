package z3

/*
#include "z3api.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ErrClosed is returned by every operation on a closed Context.
var ErrClosed = errors.New("z3: context is closed")

// Error is an error reported by Z3 itself (a sort mismatch, an invalid
// argument, an unknown parameter...).
type Error struct {
	Op   string // the binding operation that failed
	Code int    // Z3_error_code
	Msg  string // Z3's message
}

func (e *Error) Error() string {
	return fmt.Sprintf("z3: %s: %s (error code %d)", e.Op, e.Msg, e.Code)
}

// Config configures a Context.
type Config struct {
	// Timeout bounds each Check of every Solver and Optimize made by the
	// context; zero means no bound. A check that runs out of time returns
	// Unknown.
	Timeout time.Duration
	// Work bounds the work of all the checks of the context together, in
	// Z3's resource units (see Context.Work); zero means no bound. A check
	// that reaches it returns Unknown, ReasonWorkSpent. Unlike Timeout it
	// gives the same answers however loaded the machine is.
	Work uint64
	// Hold keeps every object made through the context until Close,
	// rather than releasing those Go drops as it goes: Z3 reuses the ids
	// of released terms, and orders some of its work by id, so releases
	// timed by Go's garbage collector make the same checks do different
	// work, and find different models, from run to run.
	Hold bool
	// Params are Z3 context parameters (Z3_set_param_value), e.g.
	// {"model_validate": "true"}. Unknown names make NewContext fail.
	Params map[string]string
}

// Context owns every Z3 object made through it. A Context is not safe for
// concurrent use (Interrupt excepted): use one per goroutine (objects of different contexts must
// not be mixed). Close frees everything at once; before that, objects that
// become unreachable in Go are released by the context on its next
// operation, so a long-lived context does not accumulate garbage.
type Context struct {
	c       C.Z3_context
	timeout time.Duration
	work    uint64  // Config.Work
	hold    bool    // Config.Hold
	counter *Solver // whose statistics Work reads, made on first use
	rel     *releaseQueue
	// The references the binding holds, so that Close releases them
	// before it deletes the context: deleting a context that still holds
	// references into a deep term takes time that grows with the square
	// of its depth (a chain of 8,000 additions: 34 s), and released first,
	// the same terms go in milliseconds. A holding context keeps the
	// handles of its terms in chunks, which both allocate them (an analysis
	// takes millions) and list them for Close, and lists its other objects
	// apart; another context counts the references Go has not dropped yet.
	heldTerms [][]handle
	heldOther []pendingRelease
	refs      map[pendingRelease]int32
	// mu orders Close against Interrupt, the one method other goroutines
	// may call: Z3 must not be interrupted after the context is deleted.
	mu sync.Mutex
}

// objKind says which Z3 reference-counting function releases an object.
type objKind uint8

const (
	kindAST objKind = iota
	kindSolver
	kindOptimize
	kindModel
)

type pendingRelease struct {
	kind objKind
	ptr  unsafe.Pointer
}

// releaseQueue collects references dropped by Go's garbage collector.
// Cleanups run on a runtime goroutine while Z3 contexts are single-threaded,
// so they only enqueue; the owning goroutine decrements the counts in drain.
type releaseQueue struct {
	mu      sync.Mutex
	closed  bool
	items   []pendingRelease
	pending atomic.Int32
	live    atomic.Int64 // references held by the binding, for leak tests
}

func (q *releaseQueue) push(p pendingRelease) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.items = append(q.items, p)
	q.pending.Add(1)
}

// NewContext makes a reference-counted Z3 context with the binding's error
// handler installed, so Z3 errors become Go errors instead of exiting. It
// loads the library on first use and returns Available's error when it
// cannot.
func NewContext(cfg Config) (*Context, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("z3: negative timeout %v", cfg.Timeout)
	}
	conf := C.Z3_mk_config()
	defer C.Z3_del_config(conf)
	for name, value := range cfg.Params {
		if !knownContextParam[name] {
			return nil, fmt.Errorf("z3: unknown context parameter %q", name)
		}
		cn, cv := C.CString(name), C.CString(value)
		C.Z3_set_param_value(conf, cn, cv)
		C.free(unsafe.Pointer(cn))
		C.free(unsafe.Pointer(cv))
	}
	c := C.Z3_mk_context_rc(conf)
	if c == nil {
		return nil, errors.New("z3: Z3_mk_context_rc failed")
	}
	C.faultline_z3_install_error_handler(c)
	return &Context{c: c, timeout: cfg.Timeout, work: cfg.Work, hold: cfg.Hold, rel: &releaseQueue{}, refs: map[pendingRelease]int32{}}, nil
}

// knownContextParam lists the parameters Z3_set_param_value accepts on a
// configuration; Z3 only prints a warning for others, so they are checked
// here.
var knownContextParam = map[string]bool{
	"proof": true, "debug_ref_count": true, "trace": true, "trace_file_name": true,
	"timeout": true, "rlimit": true, "well_sorted_check": true, "auto_config": true,
	"model": true, "model_validate": true, "unsat_core": true, "encoding": true,
	"dump_models": true, "smtlib2_compliant": true, "stats": true, "type_check": true,
}

// Close releases the context and every object made through it. Using the
// context or its objects afterwards returns ErrClosed. Close is idempotent.
func (ctx *Context) Close() {
	if ctx.c == nil {
		return
	}
	ctx.drain()
	ctx.rel.mu.Lock()
	ctx.rel.closed = true
	ctx.rel.items = nil
	ctx.rel.mu.Unlock()
	for ref, n := range ctx.refs {
		for range n {
			ctx.release(ref)
		}
		ctx.rel.live.Add(-int64(n))
	}
	for _, ref := range ctx.heldOther {
		ctx.release(ref)
	}
	ctx.rel.live.Add(-int64(len(ctx.heldOther)))
	for _, chunk := range ctx.heldTerms {
		for _, h := range chunk {
			ctx.release(pendingRelease{kind: kindAST, ptr: h.ptr})
		}
		ctx.rel.live.Add(-int64(len(chunk)))
	}
	ctx.refs, ctx.heldTerms, ctx.heldOther = nil, nil, nil
	ctx.mu.Lock()
	C.Z3_del_context(ctx.c)
	ctx.c = nil
	ctx.mu.Unlock()
}

// Interrupt ends the check the context is running, if any, with Unknown
// (the reason "canceled", or "interrupted" from the finite-domain solver).
// Unlike every other method it may be called from any goroutine, also
// after Close (it then does nothing). Z3 does not remember it: a check
// that starts afterwards runs as usual, so a caller that means to stop a
// search interrupts until the search has seen it.
func (ctx *Context) Interrupt() {
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	if ctx.c != nil {
		C.Z3_interrupt(ctx.c)
	}
}

// enter is called at the start of every operation: it reports a closed
// context and releases the objects the garbage collector dropped.
func (ctx *Context) enter() error {
	if ctx.c == nil {
		return ErrClosed
	}
	if ctx.rel.pending.Load() > 0 {
		ctx.drain()
	}
	return nil
}

func (ctx *Context) drain() {
	q := ctx.rel
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.pending.Store(0)
	q.mu.Unlock()
	for _, it := range items {
		ctx.release(it)
		if ctx.refs[it]--; ctx.refs[it] <= 0 {
			delete(ctx.refs, it)
		}
	}
	q.live.Add(-int64(len(items)))
}

// release gives up one of the binding's references to ref.
func (ctx *Context) release(ref pendingRelease) {
	switch ref.kind {
	case kindAST:
		C.Z3_dec_ref(ctx.c, C.Z3_ast(ref.ptr))
	case kindSolver:
		C.Z3_solver_dec_ref(ctx.c, C.Z3_solver(ref.ptr))
	case kindOptimize:
		C.Z3_optimize_dec_ref(ctx.c, C.Z3_optimize(ref.ptr))
	case kindModel:
		C.Z3_model_dec_ref(ctx.c, C.Z3_model(ref.ptr))
	}
}

// liveRefs reports how many Z3 references the binding holds, after
// releasing those the garbage collector has dropped so far.
func (ctx *Context) liveRefs() int64 {
	if ctx.c != nil {
		ctx.drain()
	}
	return ctx.rel.live.Load()
}

// heldChunk is how many terms one chunk of Context.heldTerms lists.
const heldChunk = 8192

// handle owns one Z3 reference; its cleanup queues the release.
type handle struct {
	ptr unsafe.Pointer
}

func (ctx *Context) own(kind objKind, ptr unsafe.Pointer) *handle {
	ctx.rel.live.Add(1)
	ref := pendingRelease{kind: kind, ptr: ptr}
	switch {
	case ctx.hold && kind == kindAST:
		// Appended within its capacity, a chunk never moves: the
		// handles handed out stay where they are.
		if n := len(ctx.heldTerms); n == 0 || len(ctx.heldTerms[n-1]) == heldChunk {
			ctx.heldTerms = append(ctx.heldTerms, make([]handle, 0, heldChunk))
		}
		last := &ctx.heldTerms[len(ctx.heldTerms)-1]
		*last = append(*last, handle{ptr: ptr})
		return &(*last)[len(*last)-1]
	case ctx.hold:
		ctx.heldOther = append(ctx.heldOther, ref)
		return &handle{ptr: ptr}
	default:
		h := &handle{ptr: ptr}
		ctx.refs[ref]++
		runtime.AddCleanup(h, ctx.rel.push, ref)
		return h
	}
}

// lastError turns a pending Z3 error code into an *Error.
func (ctx *Context) lastError(op string) error {
	code := C.Z3_get_error_code(ctx.c)
	if code == C.Z3_OK {
		return nil
	}
	return &Error{Op: op, Code: int(code), Msg: C.GoString(C.Z3_get_error_msg(ctx.c, code))}
}

// params builds a Z3 parameter set. Values may be bool, int, uint,
// float64, string or time.Duration (converted to milliseconds).
func (ctx *Context) params(kv map[string]any) (C.Z3_params, error) {
	p := C.Z3_mk_params(ctx.c)
	C.Z3_params_inc_ref(ctx.c, p)
	for name, v := range kv {
		cn := C.CString(name)
		sym := C.Z3_mk_string_symbol(ctx.c, cn)
		C.free(unsafe.Pointer(cn))
		switch v := v.(type) {
		case bool:
			C.Z3_params_set_bool(ctx.c, p, sym, C.bool(v))
		case int:
			if v < 0 {
				C.Z3_params_dec_ref(ctx.c, p)
				return nil, fmt.Errorf("z3: parameter %s: negative value %d", name, v)
			}
			C.Z3_params_set_uint(ctx.c, p, sym, C.uint(v))
		case uint:
			C.Z3_params_set_uint(ctx.c, p, sym, C.uint(v))
		case float64:
			C.Z3_params_set_double(ctx.c, p, sym, C.double(v))
		case time.Duration:
			C.Z3_params_set_uint(ctx.c, p, sym, C.uint(durationMillis(v)))
		case string:
			cv := C.CString(v)
			C.Z3_params_set_symbol(ctx.c, p, sym, C.Z3_mk_string_symbol(ctx.c, cv))
			C.free(unsafe.Pointer(cv))
		default:
			C.Z3_params_dec_ref(ctx.c, p)
			return nil, fmt.Errorf("z3: parameter %s: unsupported value type %T", name, v)
		}
	}
	if err := ctx.lastError("params"); err != nil {
		C.Z3_params_dec_ref(ctx.c, p)
		return nil, err
	}
	return p, nil
}

// durationMillis converts a timeout to Z3's unsigned milliseconds, rounding
// up so that a tiny positive budget does not mean "no limit" (0).
func durationMillis(d time.Duration) uint32 {
	if d <= 0 {
		return 0
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	if ms > 1<<32-1 {
		return 1<<32 - 1
	}
	return uint32(ms)
}

// Version reports the version of the loaded Z3 library (major.minor.build),
// or "" when Available fails.
func Version() string {
	v, _ := loaded()
	return v
}

// EstimatedAllocBytes is Z3's estimate of the memory it holds, across all
// contexts of the process (0 when Available fails).
func EstimatedAllocBytes() uint64 {
	if Available() != nil {
		return 0
	}
	return uint64(C.Z3_get_estimated_alloc_size())
}

// Timeout is the per-check bound from the context's Config (0: none).
func (ctx *Context) Timeout() time.Duration { return ctx.timeout }
