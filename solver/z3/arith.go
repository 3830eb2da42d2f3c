package z3

/*
#include "z3api.h"
*/
import "C"

import (
	"math/big"
	"unsafe"
)

// Int is a mathematical (unbounded) integer term. Note that Z3's Div and
// Mod are Euclidean and differ from Go's / and % for negative operands;
// Go integers are modelled with BV.
type Int struct{ Expr }

// Real is a mathematical real term.
type Real struct{ Expr }

// IntConst declares an integer constant.
func (ctx *Context) IntConst(name string) Int { return Int{ctx.Const(name, ctx.IntSort())} }

// RealConst declares a real constant.
func (ctx *Context) RealConst(name string) Real { return Real{ctx.Const(name, ctx.RealSort())} }

// IntVal is the integer numeral v.
func (ctx *Context) IntVal(v int64) Int {
	s := ctx.IntSort()
	if err := ctx.ready(); err != nil {
		return Int{Expr{ctx: ctx, err: err}}
	}
	if s.err != nil {
		return Int{Expr{ctx: ctx, err: s.err}}
	}
	return Int{ctx.wrap("IntVal", C.Z3_mk_int64(ctx.c, C.int64_t(v), s.sort()))}
}

// IntBig is the integer numeral v.
func (ctx *Context) IntBig(v *big.Int) Int {
	return Int{ctx.numeral("IntBig", v.String(), ctx.IntSort())}
}

// RealVal is the rational numeral num/den (den must not be zero).
func (ctx *Context) RealVal(num, den int64) Real {
	return ctx.RealRat(big.NewRat(1, 1).SetFrac(big.NewInt(num), big.NewInt(den)))
}

// RealRat is the rational numeral v.
func (ctx *Context) RealRat(v *big.Rat) Real {
	return Real{ctx.numeral("RealRat", v.RatString(), ctx.RealSort())}
}

func (ctx *Context) numeral(op, text string, s Sort) Expr {
	if err := ctx.ready(); err != nil {
		return Expr{ctx: ctx, err: err}
	}
	if s.err != nil {
		return Expr{ctx: ctx, err: s.err}
	}
	cs := C.CString(text)
	defer C.free(unsafe.Pointer(cs))
	return ctx.wrap(op, C.Z3_mk_numeral(ctx.c, cs, s.sort()))
}

type arithOpN func(C.Z3_context, C.uint, *C.Z3_ast) C.Z3_ast
type arithOp2 func(C.Z3_context, C.Z3_ast, C.Z3_ast) C.Z3_ast

func arithN(op string, a, b Expr, f arithOpN) Expr {
	if a.ctx == nil {
		return Expr{err: a.Err()}
	}
	return a.ctx.applyN(op, []Expr{a, b}, f)
}

func mkAdd(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_add(c, n, a) }
func mkSub(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_sub(c, n, a) }
func mkMul(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_mul(c, n, a) }
func mkDiv(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast         { return C.Z3_mk_div(c, a, b) }
func mkLT(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast          { return C.Z3_mk_lt(c, a, b) }
func mkLE(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast          { return C.Z3_mk_le(c, a, b) }
func mkNeg(c C.Z3_context, a C.Z3_ast) C.Z3_ast            { return C.Z3_mk_unary_minus(c, a) }

// Add is x + y.
func (x Int) Add(y Int) Int { return Int{arithN("Int.Add", x.Expr, y.Expr, mkAdd)} }

// Sub is x - y.
func (x Int) Sub(y Int) Int { return Int{arithN("Int.Sub", x.Expr, y.Expr, mkSub)} }

// Mul is x * y.
func (x Int) Mul(y Int) Int { return Int{arithN("Int.Mul", x.Expr, y.Expr, mkMul)} }

// Neg is -x.
func (x Int) Neg() Int { return Int{x.ctx.apply1("Int.Neg", x.Expr, mkNeg)} }

// Div is Euclidean integer division (SMT-LIB div), not Go's /.
func (x Int) Div(y Int) Int { return Int{x.ctx.apply2("Int.Div", x.Expr, y.Expr, mkDiv)} }

// Mod is the Euclidean remainder (always >= 0), not Go's %.
func (x Int) Mod(y Int) Int {
	return Int{x.ctx.apply2("Int.Mod", x.Expr, y.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_mod(c, a, b) })}
}

// LT is x < y.
func (x Int) LT(y Int) Bool { return Bool{x.ctx.apply2("Int.LT", x.Expr, y.Expr, mkLT)} }

// LE is x <= y.
func (x Int) LE(y Int) Bool { return Bool{x.ctx.apply2("Int.LE", x.Expr, y.Expr, mkLE)} }

// ToReal converts to a real.
func (x Int) ToReal() Real {
	return Real{x.ctx.apply1("Int.ToReal", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_int2real(c, a) })}
}

// Add is x + y.
func (x Real) Add(y Real) Real { return Real{arithN("Real.Add", x.Expr, y.Expr, mkAdd)} }

// Sub is x - y.
func (x Real) Sub(y Real) Real { return Real{arithN("Real.Sub", x.Expr, y.Expr, mkSub)} }

// Mul is x * y.
func (x Real) Mul(y Real) Real { return Real{arithN("Real.Mul", x.Expr, y.Expr, mkMul)} }

// Div is x / y (unspecified when y is 0, as in SMT-LIB).
func (x Real) Div(y Real) Real { return Real{x.ctx.apply2("Real.Div", x.Expr, y.Expr, mkDiv)} }

// Neg is -x.
func (x Real) Neg() Real { return Real{x.ctx.apply1("Real.Neg", x.Expr, mkNeg)} }

// LT is x < y.
func (x Real) LT(y Real) Bool { return Bool{x.ctx.apply2("Real.LT", x.Expr, y.Expr, mkLT)} }

// LE is x <= y.
func (x Real) LE(y Real) Bool { return Bool{x.ctx.apply2("Real.LE", x.Expr, y.Expr, mkLE)} }
