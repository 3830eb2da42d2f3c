package z3

/*
#include "z3api.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Sort is a Z3 sort (type).
type Sort struct {
	ctx *Context
	h   *handle
	err error
}

// Err reports the error that occurred while making the sort, if any.
func (s Sort) Err() error { return s.err }

func (s Sort) sort() C.Z3_sort { return C.Z3_sort(s.h.ptr) }

// String prints the sort in SMT-LIB syntax.
func (s Sort) String() string {
	if s.err != nil || s.ctx == nil || s.ctx.c == nil {
		return "<invalid sort>"
	}
	return C.GoString(C.Z3_sort_to_string(s.ctx.c, s.sort()))
}

// BVBits returns the width of a bit-vector sort, or 0 for other sorts.
func (s Sort) BVBits() uint {
	if s.err != nil || s.ctx.enter() != nil || C.Z3_get_sort_kind(s.ctx.c, s.sort()) != C.Z3_BV_SORT {
		return 0
	}
	return uint(C.Z3_get_bv_sort_size(s.ctx.c, s.sort()))
}

func (ctx *Context) wrapSort(op string, s C.Z3_sort) Sort {
	if err := ctx.lastError(op); err != nil {
		return Sort{ctx: ctx, err: err}
	}
	if s == nil {
		return Sort{ctx: ctx, err: fmt.Errorf("z3: %s: no sort returned", op)}
	}
	a := C.Z3_sort_to_ast(ctx.c, s)
	C.Z3_inc_ref(ctx.c, a)
	return Sort{ctx: ctx, h: ctx.own(kindAST, unsafe.Pointer(a))}
}

func (ctx *Context) sortErr(err error) Sort { return Sort{ctx: ctx, err: err} }

// BoolSort is the Boolean sort.
func (ctx *Context) BoolSort() Sort {
	if err := ctx.enter(); err != nil {
		return ctx.sortErr(err)
	}
	return ctx.wrapSort("BoolSort", C.Z3_mk_bool_sort(ctx.c))
}

// BVSort is the sort of bit-vectors of the given width (> 0).
func (ctx *Context) BVSort(bits uint) Sort {
	if err := ctx.enter(); err != nil {
		return ctx.sortErr(err)
	}
	if bits == 0 {
		return ctx.sortErr(errors.New("z3: BVSort: zero width"))
	}
	return ctx.wrapSort("BVSort", C.Z3_mk_bv_sort(ctx.c, C.uint(bits)))
}

// IntSort is the sort of mathematical integers.
func (ctx *Context) IntSort() Sort {
	if err := ctx.enter(); err != nil {
		return ctx.sortErr(err)
	}
	return ctx.wrapSort("IntSort", C.Z3_mk_int_sort(ctx.c))
}

// RealSort is the sort of mathematical reals.
func (ctx *Context) RealSort() Sort {
	if err := ctx.enter(); err != nil {
		return ctx.sortErr(err)
	}
	return ctx.wrapSort("RealSort", C.Z3_mk_real_sort(ctx.c))
}

// FloatSort is the IEEE floating-point sort with the given exponent and
// significand widths (the significand counts the hidden bit).
func (ctx *Context) FloatSort(ebits, sbits uint) Sort {
	if err := ctx.enter(); err != nil {
		return ctx.sortErr(err)
	}
	return ctx.wrapSort("FloatSort", C.Z3_mk_fpa_sort(ctx.c, C.uint(ebits), C.uint(sbits)))
}

// Float32Sort is the sort of Go's float32 (IEEE binary32).
func (ctx *Context) Float32Sort() Sort { return ctx.FloatSort(8, 24) }

// Float64Sort is the sort of Go's float64 (IEEE binary64).
func (ctx *Context) Float64Sort() Sort { return ctx.FloatSort(11, 53) }

// ArraySort is the sort of arrays from domain to rng.
func (ctx *Context) ArraySort(domain, rng Sort) Sort {
	if err := ctx.enter(); err != nil {
		return ctx.sortErr(err)
	}
	if err := errors.Join(domain.err, rng.err); err != nil {
		return ctx.sortErr(err)
	}
	return ctx.wrapSort("ArraySort", C.Z3_mk_array_sort(ctx.c, domain.sort(), rng.sort()))
}

// Expr is a Z3 term of any sort. Terms are built without returning errors:
// a failed construction (ill-sorted operands, a closed context) yields an
// Expr carrying the error, every term built from it carries it too, and
// Solver.Assert, Model.Eval and friends return it. Check Err when in doubt.
type Expr struct {
	ctx *Context
	h   *handle
	err error
}

// Term is anything that is an Expr: Expr itself and the typed views
// (Bool, BV, Int, Real, Float, Array), which embed it.
type Term interface {
	term() Expr
}

func (e Expr) term() Expr { return e }

// Err reports why the term could not be built, or nil.
func (e Expr) Err() error {
	if e.ctx == nil && e.err == nil {
		return errors.New("z3: zero Expr")
	}
	return e.err
}

func (e Expr) ast() C.Z3_ast { return C.Z3_ast(e.h.ptr) }

// String prints the term in SMT-LIB syntax.
func (e Expr) String() string {
	if e.Err() != nil {
		return fmt.Sprintf("<invalid: %v>", e.Err())
	}
	if e.ctx.enter() != nil {
		return "<closed>"
	}
	return C.GoString(C.Z3_ast_to_string(e.ctx.c, e.ast()))
}

// ID is unique among the live terms of a context; structurally equal
// terms share it (Z3 hash-conses terms).
func (e Expr) ID() uint32 {
	if e.Err() != nil || e.ctx.enter() != nil {
		return 0
	}
	return uint32(C.Z3_get_ast_id(e.ctx.c, e.ast()))
}

// Sort returns the term's sort.
func (e Expr) Sort() Sort {
	if e.Err() != nil {
		return Sort{ctx: e.ctx, err: e.Err()}
	}
	if err := e.ctx.enter(); err != nil {
		return Sort{ctx: e.ctx, err: err}
	}
	return e.ctx.wrapSort("Sort", C.Z3_get_sort(e.ctx.c, e.ast()))
}

// Simplify rewrites the term with Z3's simplifier (constants fold).
func (e Expr) Simplify() Expr {
	return e.ctx.apply1("Simplify", e, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_simplify(c, a) })
}

// Eq is SMT equality of two terms of the same sort. For floats it is
// structural (NaN equals NaN, +0 differs from -0); use Float.IEEEEq for
// Go's ==.
func (e Expr) Eq(o Term) Bool {
	return Bool{e.ctx.apply2("Eq", e, o.term(), func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_eq(c, a, b) })}
}

// NotEq is the negation of Eq.
func (e Expr) NotEq(o Term) Bool { return e.Eq(o).Not() }

// AsBool views the term as a Bool, failing if its sort is not Boolean.
func (e Expr) AsBool() Bool { return Bool{e.checkKind("AsBool", C.Z3_BOOL_SORT)} }

// AsBV views the term as a BV, failing if its sort is not a bit-vector.
func (e Expr) AsBV() BV { return BV{e.checkKind("AsBV", C.Z3_BV_SORT)} }

// AsInt views the term as an Int, failing if its sort is not Int.
func (e Expr) AsInt() Int { return Int{e.checkKind("AsInt", C.Z3_INT_SORT)} }

// AsReal views the term as a Real, failing if its sort is not Real.
func (e Expr) AsReal() Real { return Real{e.checkKind("AsReal", C.Z3_REAL_SORT)} }

// AsFloat views the term as a Float, failing if its sort is not floating point.
func (e Expr) AsFloat() Float { return Float{e.checkKind("AsFloat", C.Z3_FLOATING_POINT_SORT)} }

// AsArray views the term as an Array, failing if its sort is not an array.
func (e Expr) AsArray() Array { return Array{e.checkKind("AsArray", C.Z3_ARRAY_SORT)} }

func (e Expr) checkKind(op string, want C.Z3_sort_kind) Expr {
	if e.Err() != nil {
		return e
	}
	if err := e.ctx.enter(); err != nil {
		return Expr{ctx: e.ctx, err: err}
	}
	if got := C.Z3_get_sort_kind(e.ctx.c, C.Z3_get_sort(e.ctx.c, e.ast())); got != want {
		return Expr{ctx: e.ctx, err: fmt.Errorf("z3: %s: term %s has the wrong sort", op, e)}
	}
	return e
}

// wrap takes ownership of a freshly returned term, or records the error.
func (ctx *Context) wrap(op string, a C.Z3_ast) Expr {
	if err := ctx.lastError(op); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	if a == nil {
		return Expr{ctx: ctx, err: fmt.Errorf("z3: %s: no term returned", op)}
	}
	C.Z3_inc_ref(ctx.c, a)
	return Expr{ctx: ctx, h: ctx.own(kindAST, unsafe.Pointer(a))}
}

// ready checks the context and the operands before a construction.
func (ctx *Context) ready(es ...Expr) error {
	if ctx == nil {
		return errors.New("z3: nil context")
	}
	for _, e := range es {
		if err := e.Err(); err != nil {
			return err
		}
		if e.ctx != ctx {
			return errors.New("z3: terms of different contexts mixed")
		}
	}
	return ctx.enter()
}

func (ctx *Context) apply1(op string, a Expr, f func(C.Z3_context, C.Z3_ast) C.Z3_ast) Expr {
	if ctx == nil {
		ctx = a.ctx
	}
	if err := ctx.ready(a); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	return ctx.wrap(op, f(ctx.c, a.ast()))
}

func (ctx *Context) apply2(op string, a, b Expr, f func(C.Z3_context, C.Z3_ast, C.Z3_ast) C.Z3_ast) Expr {
	if ctx == nil {
		ctx = a.ctx
	}
	if err := ctx.ready(a, b); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	return ctx.wrap(op, f(ctx.c, a.ast(), b.ast()))
}

func (ctx *Context) apply3(op string, a, b, x Expr, f func(C.Z3_context, C.Z3_ast, C.Z3_ast, C.Z3_ast) C.Z3_ast) Expr {
	if ctx == nil {
		ctx = a.ctx
	}
	if err := ctx.ready(a, b, x); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	return ctx.wrap(op, f(ctx.c, a.ast(), b.ast(), x.ast()))
}

// applyN calls a Z3 n-ary constructor; Z3 copies the argument array.
func (ctx *Context) applyN(op string, es []Expr, f func(C.Z3_context, C.uint, *C.Z3_ast) C.Z3_ast) Expr {
	if err := ctx.ready(es...); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	if len(es) == 0 {
		return Expr{ctx: ctx, err: fmt.Errorf("z3: %s: no arguments", op)}
	}
	args := C.malloc(C.size_t(len(es)) * C.size_t(unsafe.Sizeof(C.Z3_ast(nil))))
	defer C.free(args)
	arr := unsafe.Slice((*C.Z3_ast)(args), len(es))
	for i, e := range es {
		arr[i] = e.ast()
	}
	return ctx.wrap(op, f(ctx.c, C.uint(len(es)), (*C.Z3_ast)(args)))
}

// Const declares an uninterpreted constant of any sort.
func (ctx *Context) Const(name string, s Sort) Expr {
	if err := ctx.ready(); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	if s.err != nil {
		return Expr{ctx: ctx, err: s.err}
	}
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	return ctx.wrap("Const", C.Z3_mk_const(ctx.c, C.Z3_mk_string_symbol(ctx.c, cn), s.sort()))
}

// FreshConst makes a constant with a name no other constant has.
func (ctx *Context) FreshConst(prefix string, s Sort) Expr {
	if err := ctx.ready(); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	if s.err != nil {
		return Expr{ctx: ctx, err: s.err}
	}
	cp := C.CString(prefix)
	defer C.free(unsafe.Pointer(cp))
	return ctx.wrap("FreshConst", C.Z3_mk_fresh_const(ctx.c, cp, s.sort()))
}

// Ite is if-then-else over terms of the same sort.
func (ctx *Context) Ite(cond Bool, then, els Term) Expr {
	return ctx.apply3("Ite", cond.Expr, then.term(), els.term(), func(c C.Z3_context, a, b, x C.Z3_ast) C.Z3_ast { return C.Z3_mk_ite(c, a, b, x) })
}

// Distinct states that all terms differ pairwise.
func (ctx *Context) Distinct(ts ...Term) Bool {
	es := make([]Expr, len(ts))
	for i, t := range ts {
		es[i] = t.term()
	}
	return Bool{ctx.applyN("Distinct", es, func(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_distinct(c, n, a) })}
}

// Bool is a Boolean term.
type Bool struct{ Expr }

// BoolConst declares a Boolean constant.
func (ctx *Context) BoolConst(name string) Bool { return Bool{ctx.Const(name, ctx.BoolSort())} }

// FreshBool makes a Boolean constant with a fresh name.
func (ctx *Context) FreshBool(prefix string) Bool {
	return Bool{ctx.FreshConst(prefix, ctx.BoolSort())}
}

// BoolVal is the constant true or false.
func (ctx *Context) BoolVal(v bool) Bool {
	if err := ctx.ready(); err != nil {
		return Bool{Expr{ctx: ctx, err: err}}
	}
	if v {
		return Bool{ctx.wrap("True", C.Z3_mk_true(ctx.c))}
	}
	return Bool{ctx.wrap("False", C.Z3_mk_false(ctx.c))}
}

// True is the constant true.
func (ctx *Context) True() Bool { return ctx.BoolVal(true) }

// False is the constant false.
func (ctx *Context) False() Bool { return ctx.BoolVal(false) }

// Not is negation.
func (b Bool) Not() Bool {
	return Bool{b.ctx.apply1("Not", b.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_not(c, a) })}
}

// Implies is b → o.
func (b Bool) Implies(o Bool) Bool {
	return Bool{b.ctx.apply2("Implies", b.Expr, o.Expr, func(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast { return C.Z3_mk_implies(c, x, y) })}
}

// Iff is b ↔ o.
func (b Bool) Iff(o Bool) Bool {
	return Bool{b.ctx.apply2("Iff", b.Expr, o.Expr, func(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast { return C.Z3_mk_iff(c, x, y) })}
}

// Xor is exclusive or.
func (b Bool) Xor(o Bool) Bool {
	return Bool{b.ctx.apply2("Xor", b.Expr, o.Expr, func(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast { return C.Z3_mk_xor(c, x, y) })}
}

// And is conjunction; the empty conjunction is true.
func (ctx *Context) And(bs ...Bool) Bool {
	if len(bs) == 0 {
		return ctx.True()
	}
	return Bool{ctx.applyN("And", boolExprs(bs), func(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_and(c, n, a) })}
}

// Or is disjunction; the empty disjunction is false.
func (ctx *Context) Or(bs ...Bool) Bool {
	if len(bs) == 0 {
		return ctx.False()
	}
	return Bool{ctx.applyN("Or", boolExprs(bs), func(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_or(c, n, a) })}
}

// AtMost states that at most k of bs are true (a native pseudo-Boolean
// constraint, no encoding blow-up).
func (ctx *Context) AtMost(bs []Bool, k uint) Bool {
	if len(bs) == 0 {
		return ctx.True()
	}
	return Bool{ctx.applyN("AtMost", boolExprs(bs), func(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_atmost(c, n, a, C.uint(k)) })}
}

// AtLeast states that at least k of bs are true.
func (ctx *Context) AtLeast(bs []Bool, k uint) Bool {
	if len(bs) == 0 {
		return ctx.BoolVal(k == 0)
	}
	return Bool{ctx.applyN("AtLeast", boolExprs(bs), func(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_atleast(c, n, a, C.uint(k)) })}
}

func boolExprs(bs []Bool) []Expr {
	es := make([]Expr, len(bs))
	for i, b := range bs {
		es[i] = b.Expr
	}
	return es
}
