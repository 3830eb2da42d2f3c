package z3

/*
#include "z3api.h"
*/
import "C"

import "fmt"

// Float is an IEEE-754 floating-point term. Arithmetic rounds to nearest,
// ties to even (RNE), as Go does.
type Float struct{ Expr }

// FloatConst declares a floating-point constant of sort s (Float32Sort,
// Float64Sort or FloatSort).
func (ctx *Context) FloatConst(name string, s Sort) Float { return Float{ctx.Const(name, s)} }

// Float64Val is the binary64 numeral v (NaN and infinities included).
func (ctx *Context) Float64Val(v float64) Float {
	s := ctx.Float64Sort()
	if err := ctx.ready(); err != nil {
		return Float{Expr{ctx: ctx, err: err}}
	}
	if s.err != nil {
		return Float{Expr{ctx: ctx, err: s.err}}
	}
	return Float{ctx.wrap("Float64Val", C.Z3_mk_fpa_numeral_double(ctx.c, C.double(v), s.sort()))}
}

// Float32Val is the binary32 numeral v.
func (ctx *Context) Float32Val(v float32) Float {
	s := ctx.Float32Sort()
	if err := ctx.ready(); err != nil {
		return Float{Expr{ctx: ctx, err: err}}
	}
	if s.err != nil {
		return Float{Expr{ctx: ctx, err: s.err}}
	}
	return Float{ctx.wrap("Float32Val", C.Z3_mk_fpa_numeral_float(ctx.c, C.float(v), s.sort()))}
}

// rne makes the rounding-mode term; it is cheap and hash-consed by Z3.
func (ctx *Context) rne() Expr {
	if err := ctx.ready(); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	return ctx.wrap("RNE", C.Z3_mk_fpa_rne(ctx.c))
}

// rtz is round toward zero, Go's float-to-integer conversion.
func (ctx *Context) rtz() Expr {
	if err := ctx.ready(); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	return ctx.wrap("RTZ", C.Z3_mk_fpa_rtz(ctx.c))
}

type fpRounded func(C.Z3_context, C.Z3_ast, C.Z3_ast, C.Z3_ast) C.Z3_ast

func (x Float) rounded(op string, y Float, f fpRounded) Float {
	if x.ctx == nil {
		return Float{Expr{err: x.Err()}}
	}
	return Float{x.ctx.apply3(op, x.ctx.rne(), x.Expr, y.Expr, f)}
}

// Add is x + y.
func (x Float) Add(y Float) Float {
	return x.rounded("Float.Add", y, func(c C.Z3_context, r, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_add(c, r, a, b) })
}

// Sub is x - y.
func (x Float) Sub(y Float) Float {
	return x.rounded("Float.Sub", y, func(c C.Z3_context, r, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_sub(c, r, a, b) })
}

// Mul is x * y.
func (x Float) Mul(y Float) Float {
	return x.rounded("Float.Mul", y, func(c C.Z3_context, r, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_mul(c, r, a, b) })
}

// Div is x / y (IEEE: division by zero gives an infinity or NaN, as in Go).
func (x Float) Div(y Float) Float {
	return x.rounded("Float.Div", y, func(c C.Z3_context, r, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_div(c, r, a, b) })
}

// Neg is -x.
func (x Float) Neg() Float {
	return Float{x.ctx.apply1("Float.Neg", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_neg(c, a) })}
}

// Abs is |x|.
func (x Float) Abs() Float {
	return Float{x.ctx.apply1("Float.Abs", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_abs(c, a) })}
}

// IEEEEq is IEEE equality, Go's == on floats (NaN differs from itself, +0
// equals -0).
func (x Float) IEEEEq(y Float) Bool {
	return Bool{x.ctx.apply2("Float.IEEEEq", x.Expr, y.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_eq(c, a, b) })}
}

// LT is Go's < (false when either operand is NaN).
func (x Float) LT(y Float) Bool {
	return Bool{x.ctx.apply2("Float.LT", x.Expr, y.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_lt(c, a, b) })}
}

// LE is Go's <=.
func (x Float) LE(y Float) Bool {
	return Bool{x.ctx.apply2("Float.LE", x.Expr, y.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_leq(c, a, b) })}
}

// IsNaN holds when x is NaN.
func (x Float) IsNaN() Bool {
	return Bool{x.ctx.apply1("Float.IsNaN", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_is_nan(c, a) })}
}

// IsInf holds when x is an infinity of either sign.
func (x Float) IsInf() Bool {
	return Bool{x.ctx.apply1("Float.IsInf", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_is_infinite(c, a) })}
}

// ToIEEEBV reinterprets x's bits (math.Float64bits); NaN has one fixed
// pattern.
func (x Float) ToIEEEBV() BV {
	return BV{x.ctx.apply1("Float.ToIEEEBV", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_fpa_to_ieee_bv(c, a) })}
}

// Convert rounds x to another float sort (Go's float32(x) / float64(x)).
func (x Float) Convert(s Sort) Float {
	if x.ctx == nil || s.err != nil {
		return Float{Expr{ctx: x.ctx, err: firstErr(x.Err(), s.err)}}
	}
	return Float{x.ctx.apply2("Float.Convert", x.ctx.rne(), x.Expr, func(c C.Z3_context, r, a C.Z3_ast) C.Z3_ast {
		return C.Z3_mk_fpa_to_fp_float(c, r, a, s.sort())
	})}
}

// ToBV is Go's conversion of a float to an integer type of the given width
// and signedness: it truncates toward zero. Out-of-range values (where Go's
// result is implementation-defined) are unspecified.
func (x Float) ToBV(bits uint, signed bool) BV {
	if x.ctx == nil {
		return BV{Expr{err: x.Err()}}
	}
	return BV{x.ctx.apply2("Float.ToBV", x.ctx.rtz(), x.Expr, func(c C.Z3_context, r, a C.Z3_ast) C.Z3_ast {
		if signed {
			return C.Z3_mk_fpa_to_sbv(c, r, a, C.uint(bits))
		}
		return C.Z3_mk_fpa_to_ubv(c, r, a, C.uint(bits))
	})}
}

// FloatFromBV is Go's conversion of an integer of the given signedness to
// the float sort s, rounding to nearest even.
func (ctx *Context) FloatFromBV(x BV, signed bool, s Sort) Float {
	if s.err != nil {
		return Float{Expr{ctx: ctx, err: s.err}}
	}
	return Float{ctx.apply2("FloatFromBV", ctx.rne(), x.Expr, func(c C.Z3_context, r, a C.Z3_ast) C.Z3_ast {
		if signed {
			return C.Z3_mk_fpa_to_fp_signed(c, r, a, s.sort())
		}
		return C.Z3_mk_fpa_to_fp_unsigned(c, r, a, s.sort())
	})}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("z3: zero value used")
}
