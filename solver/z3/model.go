package z3

/*
#include "z3api.h"
*/
import "C"

import (
	"fmt"
	"math"
	"math/big"
	"unsafe"
)

// Model is a satisfying assignment; Eval computes the value of any term in
// it. The typed accessors complete the model (unconstrained constants get
// a default value) and convert the value to Go.
type Model struct {
	ctx *Context
	h   *handle
}

func (m *Model) ptr() C.Z3_model { return C.Z3_model(m.h.ptr) }

func (ctx *Context) wrapModel(op string, p C.Z3_model) (*Model, error) {
	if err := ctx.lastError(op); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("z3: %s: no model", op)
	}
	C.Z3_model_inc_ref(ctx.c, p)
	return &Model{ctx: ctx, h: ctx.own(kindModel, unsafe.Pointer(p))}, nil
}

// String prints the model.
func (m *Model) String() string {
	if m.ctx.enter() != nil {
		return ErrClosed.Error()
	}
	return C.GoString(C.Z3_model_to_string(m.ctx.c, m.ptr()))
}

// Eval evaluates e; with completion, constants the model leaves free get
// a default value so the result is a value, not a term.
func (m *Model) Eval(t Term, completion bool) (Expr, error) {
	e := t.term()
	if err := m.ctx.ready(e); err != nil {
		return Expr{}, fmt.Errorf("z3: Model.Eval: %w", err)
	}
	var out C.Z3_ast
	ok := C.Z3_model_eval(m.ctx.c, m.ptr(), e.ast(), C.bool(completion), &out)
	if err := m.ctx.lastError("Model.Eval"); err != nil {
		return Expr{}, err
	}
	if !ok || out == nil {
		return Expr{}, fmt.Errorf("z3: Model.Eval: cannot evaluate %s", e)
	}
	r := m.ctx.wrap("Model.Eval", out)
	if r.err == nil && completion && !bool(C.Z3_is_numeral_ast(m.ctx.c, r.ast())) && C.Z3_get_bool_value(m.ctx.c, r.ast()) == C.Z3_L_UNDEF {
		// The evaluator leaves some sequence operations on constants
		// unreduced (an ite over their comparison, say); the simplifier
		// finishes them.
		r = r.Simplify()
	}
	return r, r.err
}

// Bool is the value of b.
func (m *Model) Bool(b Bool) (bool, error) {
	v, err := m.Eval(b, true)
	if err != nil {
		return false, err
	}
	switch C.Z3_get_bool_value(m.ctx.c, v.ast()) {
	case C.Z3_L_TRUE:
		return true, nil
	case C.Z3_L_FALSE:
		return false, nil
	}
	return false, fmt.Errorf("z3: Model.Bool: %s is not a Boolean value", v)
}

// Big is the value of an Int term, or the unsigned value of a BV term.
func (m *Model) Big(t Term) (*big.Int, error) {
	v, err := m.Eval(t, true)
	if err != nil {
		return nil, err
	}
	return v.bigValue()
}

func (v Expr) bigValue() (*big.Int, error) {
	if !C.Z3_is_numeral_ast(v.ctx.c, v.ast()) {
		return nil, fmt.Errorf("z3: %s is not a numeral", v)
	}
	text := C.GoString(C.Z3_get_numeral_string(v.ctx.c, v.ast()))
	n, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return nil, fmt.Errorf("z3: %s is not an integer numeral", text)
	}
	return n, nil
}

// Uint64 is the unsigned value of a BV term of at most 64 bits.
func (m *Model) Uint64(x BV) (uint64, error) {
	n, err := m.Big(x)
	if err != nil {
		return 0, err
	}
	if !n.IsUint64() {
		return 0, fmt.Errorf("z3: Model.Uint64: %s does not fit in 64 bits", n)
	}
	return n.Uint64(), nil
}

// Int64 is the two's-complement (signed) value of a BV term of at most 64
// bits.
func (m *Model) Int64(x BV) (int64, error) {
	u, err := m.Uint64(x)
	if err != nil {
		return 0, err
	}
	w := x.Bits()
	if w < 64 && u&(1<<(w-1)) != 0 {
		u |= ^uint64(0) << w // sign-extend to 64 bits
	}
	return int64(u), nil
}

// Rat is the value of a Real or Int term.
func (m *Model) Rat(t Term) (*big.Rat, error) {
	v, err := m.Eval(t, true)
	if err != nil {
		return nil, err
	}
	if !C.Z3_is_numeral_ast(v.ctx.c, v.ast()) {
		return nil, fmt.Errorf("z3: Model.Rat: %s is not a rational numeral", v)
	}
	text := C.GoString(C.Z3_get_numeral_string(v.ctx.c, v.ast()))
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, fmt.Errorf("z3: Model.Rat: cannot parse %q", text)
	}
	return r, nil
}

// Float64 is the value of a binary64 term.
func (m *Model) Float64(f Float) (float64, error) {
	bits, nan, err := m.floatBits(f)
	if err != nil || nan {
		return math.NaN(), err
	}
	return math.Float64frombits(bits), nil
}

// Float32 is the value of a binary32 term.
func (m *Model) Float32(f Float) (float32, error) {
	bits, nan, err := m.floatBits(f)
	if err != nil || nan {
		return float32(math.NaN()), err
	}
	return math.Float32frombits(uint32(bits)), nil
}

// floatBits evaluates the IEEE encoding; NaN is tested first because its
// encoding is not unique.
func (m *Model) floatBits(f Float) (bits uint64, nan bool, err error) {
	nan, err = m.Bool(f.IsNaN())
	if err != nil || nan {
		return 0, nan, err
	}
	bits, err = m.Uint64(f.ToIEEEBV())
	return bits, false, err
}
