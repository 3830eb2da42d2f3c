package z3

/*
#include "z3api.h"
*/
import "C"

import (
	"fmt"
	"math/big"
	"unsafe"
)

// BV is a fixed-width bit-vector term. Bit-vectors carry no signedness:
// operations that depend on it come in signed and unsigned forms, and the
// Go* helpers take a signed flag naming the Go operand type's signedness.
// All arithmetic wraps, as in Go.
type BV struct{ Expr }

// BVConst declares a bit-vector constant of the given width.
func (ctx *Context) BVConst(name string, bits uint) BV { return BV{ctx.Const(name, ctx.BVSort(bits))} }

// BVUint is the numeral v reduced modulo 2^bits.
func (ctx *Context) BVUint(v uint64, bits uint) BV {
	if bits > 64 {
		return ctx.BVBig(new(big.Int).SetUint64(v), bits)
	}
	s := ctx.BVSort(bits)
	if err := ctx.ready(); err != nil {
		return BV{Expr{ctx: ctx, err: err}}
	}
	if s.err != nil {
		return BV{Expr{ctx: ctx, err: s.err}}
	}
	if bits < 64 {
		v &= 1<<bits - 1
	}
	return BV{ctx.wrap("BVUint", C.Z3_mk_unsigned_int64(ctx.c, C.uint64_t(v), s.sort()))}
}

// BVInt is the two's-complement numeral of v in the given width (v is
// sign-extended or truncated).
func (ctx *Context) BVInt(v int64, bits uint) BV {
	if bits > 64 {
		return ctx.BVBig(big.NewInt(v), bits)
	}
	return ctx.BVUint(uint64(v), bits)
}

// BVBig is the numeral v reduced modulo 2^bits (negative v wraps).
func (ctx *Context) BVBig(v *big.Int, bits uint) BV {
	s := ctx.BVSort(bits)
	if err := ctx.ready(); err != nil {
		return BV{Expr{ctx: ctx, err: err}}
	}
	if s.err != nil {
		return BV{Expr{ctx: ctx, err: s.err}}
	}
	mod := new(big.Int).Lsh(big.NewInt(1), bits)
	r := new(big.Int).Mod(v, mod) // Mod is Euclidean: result in [0, 2^bits)
	cs := C.CString(r.String())
	defer C.free(unsafe.Pointer(cs))
	return BV{ctx.wrap("BVBig", C.Z3_mk_numeral(ctx.c, cs, s.sort()))}
}

// Bits returns the width, or 0 if the term is invalid.
func (x BV) Bits() uint { return x.Sort().BVBits() }

type bvOp2 func(C.Z3_context, C.Z3_ast, C.Z3_ast) C.Z3_ast

func (x BV) bin(op string, y BV, f bvOp2) BV { return BV{x.ctx.apply2(op, x.Expr, y.Expr, f)} }

func (x BV) cmp(op string, y BV, f bvOp2) Bool { return Bool{x.ctx.apply2(op, x.Expr, y.Expr, f)} }

// Add is x + y.
func (x BV) Add(y BV) BV {
	return x.bin("BV.Add", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvadd(c, a, b) })
}

// Sub is x - y.
func (x BV) Sub(y BV) BV {
	return x.bin("BV.Sub", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvsub(c, a, b) })
}

// Mul is x * y.
func (x BV) Mul(y BV) BV {
	return x.bin("BV.Mul", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvmul(c, a, b) })
}

// Neg is -x.
func (x BV) Neg() BV {
	return BV{x.ctx.apply1("BV.Neg", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvneg(c, a) })}
}

// Not is bitwise complement (Go's unary ^).
func (x BV) Not() BV {
	return BV{x.ctx.apply1("BV.Not", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvnot(c, a) })}
}

// And is x & y.
func (x BV) And(y BV) BV {
	return x.bin("BV.And", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvand(c, a, b) })
}

// Or is x | y.
func (x BV) Or(y BV) BV {
	return x.bin("BV.Or", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvor(c, a, b) })
}

// Xor is x ^ y.
func (x BV) Xor(y BV) BV {
	return x.bin("BV.Xor", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvxor(c, a, b) })
}

// AndNot is Go's bit clear x &^ y.
func (x BV) AndNot(y BV) BV { return x.And(y.Not()) }

// SDiv is signed division truncated toward zero (bvsdiv); MinInt / -1
// wraps to MinInt as in Go. Division by zero is defined by SMT-LIB (-1 or
// 1 by the dividend's sign) where Go panics: guard it separately.
func (x BV) SDiv(y BV) BV {
	return x.bin("BV.SDiv", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvsdiv(c, a, b) })
}

// SRem is the signed remainder with the dividend's sign (bvsrem), Go's %.
func (x BV) SRem(y BV) BV {
	return x.bin("BV.SRem", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvsrem(c, a, b) })
}

// SMod is the signed modulo with the divisor's sign (bvsmod); Go has no
// such operator.
func (x BV) SMod(y BV) BV {
	return x.bin("BV.SMod", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvsmod(c, a, b) })
}

// UDiv is unsigned division (bvudiv).
func (x BV) UDiv(y BV) BV {
	return x.bin("BV.UDiv", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvudiv(c, a, b) })
}

// URem is unsigned remainder (bvurem).
func (x BV) URem(y BV) BV {
	return x.bin("BV.URem", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvurem(c, a, b) })
}

// Shl is bvshl: both operands have the same width; counts >= width give 0.
func (x BV) Shl(n BV) BV {
	return x.bin("BV.Shl", n, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvshl(c, a, b) })
}

// LShr is the logical right shift bvlshr (same widths).
func (x BV) LShr(n BV) BV {
	return x.bin("BV.LShr", n, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvlshr(c, a, b) })
}

// AShr is the arithmetic right shift bvashr (same widths).
func (x BV) AShr(n BV) BV {
	return x.bin("BV.AShr", n, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvashr(c, a, b) })
}

// SLT is signed <.
func (x BV) SLT(y BV) Bool {
	return x.cmp("BV.SLT", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvslt(c, a, b) })
}

// SLE is signed <=.
func (x BV) SLE(y BV) Bool {
	return x.cmp("BV.SLE", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvsle(c, a, b) })
}

// ULT is unsigned <.
func (x BV) ULT(y BV) Bool {
	return x.cmp("BV.ULT", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvult(c, a, b) })
}

// ULE is unsigned <=.
func (x BV) ULE(y BV) Bool {
	return x.cmp("BV.ULE", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_bvule(c, a, b) })
}

// ZeroExt widens by n zero bits.
func (x BV) ZeroExt(n uint) BV {
	return BV{x.ctx.apply1("BV.ZeroExt", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_zero_ext(c, C.uint(n), a) })}
}

// SignExt widens by n copies of the sign bit.
func (x BV) SignExt(n uint) BV {
	return BV{x.ctx.apply1("BV.SignExt", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_sign_ext(c, C.uint(n), a) })}
}

// Extract is bits hi..lo inclusive.
func (x BV) Extract(hi, lo uint) BV {
	return BV{x.ctx.apply1("BV.Extract", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast {
		return C.Z3_mk_extract(c, C.uint(hi), C.uint(lo), a)
	})}
}

// Concat puts x in the high bits and y in the low bits.
func (x BV) Concat(y BV) BV {
	return x.bin("BV.Concat", y, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_concat(c, a, b) })
}

// Div is Go's / for an integer type of x's width and the given signedness.
func (x BV) Div(y BV, signed bool) BV {
	if signed {
		return x.SDiv(y)
	}
	return x.UDiv(y)
}

// Rem is Go's % for an integer type of x's width and the given signedness.
func (x BV) Rem(y BV, signed bool) BV {
	if signed {
		return x.SRem(y)
	}
	return x.URem(y)
}

// Less is Go's < for the given signedness.
func (x BV) Less(y BV, signed bool) Bool {
	if signed {
		return x.SLT(y)
	}
	return x.ULT(y)
}

// LessEq is Go's <= for the given signedness.
func (x BV) LessEq(y BV, signed bool) Bool {
	if signed {
		return x.SLE(y)
	}
	return x.ULE(y)
}

// GoShl is Go's x << n. The count may have any width and is read as
// unsigned (Go panics on a negative signed count: guard that separately);
// counts >= x's width give 0.
func (x BV) GoShl(n BV) BV {
	return x.goShift("BV.GoShl", n, BV.Shl)
}

// GoShr is Go's x >> n for x of the given signedness: counts >= width give
// 0, or -1 for a negative signed x (sign fill). The count is read as
// unsigned, as in GoShl.
func (x BV) GoShr(n BV, signed bool) BV {
	if signed {
		return x.goShift("BV.GoShr", n, BV.AShr)
	}
	return x.goShift("BV.GoShr", n, BV.LShr)
}

// goShift brings the count to x's width. Z3's shifts already give Go's
// result for counts >= width, so a wider count is clamped to the width
// before truncation instead of being allowed to wrap.
func (x BV) goShift(op string, n BV, shift func(BV, BV) BV) BV {
	if err := x.ctx.ready(x.Expr, n.Expr); err != nil {
		return BV{Expr{ctx: x.ctx, err: fmt.Errorf("%s: %w", op, err)}}
	}
	w, cw := x.Bits(), n.Bits()
	switch {
	case cw == w:
		return shift(x, n)
	case cw < w:
		return shift(x, n.ZeroExt(w-cw))
	default:
		tooBig := x.ctx.BVUint(uint64(w), cw).ULE(n)
		count := BV{x.ctx.Ite(tooBig, x.ctx.BVUint(uint64(w), w).Expr, n.Extract(w-1, 0).Expr)}
		return shift(x, count)
	}
}

// Convert is Go's integer conversion T(x) to a type of toBits bits, where
// signed is the signedness of x's type: narrowing truncates, widening
// sign- or zero-extends by the source type.
func (x BV) Convert(toBits uint, signed bool) BV {
	w := x.Bits()
	switch {
	case x.Err() != nil:
		return x
	case w == 0:
		return BV{Expr{ctx: x.ctx, err: fmt.Errorf("z3: BV.Convert: %s is not a bit-vector", x)}}
	case toBits == 0:
		return BV{Expr{ctx: x.ctx, err: fmt.Errorf("z3: BV.Convert: zero target width")}}
	case toBits < w:
		return x.Extract(toBits-1, 0)
	case toBits == w:
		return x
	case signed:
		return x.SignExt(toBits - w)
	default:
		return x.ZeroExt(toBits - w)
	}
}
