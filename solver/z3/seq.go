package z3

/*
#include "z3api.h"
*/
import "C"

import (
	"fmt"
	"math/big"
)

// Seq is a term of a sequence sort. Go's strings and byte slices are
// sequences of 8-bit bit-vectors (ByteSeqSort): Z3's String sort holds
// Unicode characters, which is not Go's byte semantics. Lengths, offsets
// and indices are Int terms, as in SMT-LIB's sequence theory; Int.ToBV and
// BV.ToInt convert them to and from Go's bit-vector integers.
type Seq struct{ Expr }

// SeqSort is the sort of sequences of elem.
func (ctx *Context) SeqSort(elem Sort) Sort {
	if err := ctx.enter(); err != nil {
		return ctx.sortErr(err)
	}
	if elem.err != nil {
		return ctx.sortErr(elem.err)
	}
	return ctx.wrapSort("SeqSort", C.Z3_mk_seq_sort(ctx.c, elem.sort()))
}

// ByteSeqSort is the sort of sequences of bytes (8-bit bit-vectors).
func (ctx *Context) ByteSeqSort() Sort { return ctx.SeqSort(ctx.BVSort(8)) }

// AsSeq views the term as a Seq, failing if its sort is not a sequence.
func (e Expr) AsSeq() Seq { return Seq{e.checkKind("AsSeq", C.Z3_SEQ_SORT)} }

// SeqConst declares a sequence constant of sort s.
func (ctx *Context) SeqConst(name string, s Sort) Seq { return Seq{ctx.Const(name, s)} }

// SeqEmpty is the empty sequence of sort s.
func (ctx *Context) SeqEmpty(s Sort) Seq {
	if err := ctx.ready(); err != nil {
		return Seq{Expr{ctx: ctx, err: err}}
	}
	if s.err != nil {
		return Seq{Expr{ctx: ctx, err: s.err}}
	}
	return Seq{ctx.wrap("SeqEmpty", C.Z3_mk_seq_empty(ctx.c, s.sort()))}
}

// SeqUnit is the sequence of the one element e.
func (ctx *Context) SeqUnit(e Term) Seq {
	return Seq{ctx.apply1("SeqUnit", e.term(), func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_seq_unit(c, a) })}
}

// BytesVal is the byte sequence b.
func (ctx *Context) BytesVal(b []byte) Seq {
	if len(b) == 0 {
		return ctx.SeqEmpty(ctx.ByteSeqSort())
	}
	units := make([]Seq, len(b))
	for i, c := range b {
		units[i] = ctx.SeqUnit(ctx.BVUint(uint64(c), 8))
	}
	return ctx.SeqConcat(units...)
}

// SeqConcat is the concatenation of seqs (at least one, all of one sort).
func (ctx *Context) SeqConcat(seqs ...Seq) Seq {
	if len(seqs) == 1 {
		return seqs[0]
	}
	es := make([]Expr, len(seqs))
	for i, s := range seqs {
		es[i] = s.Expr
	}
	return Seq{ctx.applyN("SeqConcat", es, func(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_seq_concat(c, n, a) })}
}

// Concat is s followed by t.
func (s Seq) Concat(t Seq) Seq { return s.ctx.SeqConcat(s, t) }

// Len is the length of s.
func (s Seq) Len() Int {
	return Int{s.ctx.apply1("Seq.Len", s.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_seq_length(c, a) })}
}

// Extract is the subsequence of s of length n starting at off, clipped to
// s; it is empty when off is negative or not below len(s), or n is not
// positive.
func (s Seq) Extract(off, n Int) Seq {
	return Seq{s.ctx.apply3("Seq.Extract", s.Expr, off.Expr, n.Expr, func(c C.Z3_context, a, b, x C.Z3_ast) C.Z3_ast {
		return C.Z3_mk_seq_extract(c, a, b, x)
	})}
}

// At is the unit sequence of the element at i, empty out of range.
func (s Seq) At(i Int) Seq {
	return Seq{s.ctx.apply2("Seq.At", s.Expr, i.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_seq_at(c, a, b) })}
}

// Nth is the element at i; out of range it is unspecified (any value).
func (s Seq) Nth(i Int) Expr {
	return s.ctx.apply2("Seq.Nth", s.Expr, i.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_seq_nth(c, a, b) })
}

// HasPrefix reports whether p is a prefix of s.
func (s Seq) HasPrefix(p Seq) Bool {
	return Bool{s.ctx.apply2("Seq.HasPrefix", p.Expr, s.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_seq_prefix(c, a, b) })}
}

// HasSuffix reports whether p is a suffix of s.
func (s Seq) HasSuffix(p Seq) Bool {
	return Bool{s.ctx.apply2("Seq.HasSuffix", p.Expr, s.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_seq_suffix(c, a, b) })}
}

// Contains reports whether t occurs in s.
func (s Seq) Contains(t Seq) Bool {
	return Bool{s.ctx.apply2("Seq.Contains", s.Expr, t.Expr, func(c C.Z3_context, a, b C.Z3_ast) C.Z3_ast { return C.Z3_mk_seq_contains(c, a, b) })}
}

// IndexFrom is the first position at or after off where t occurs in s, or
// -1. For an empty t it is off when 0 <= off <= len(s).
func (s Seq) IndexFrom(t Seq, off Int) Int {
	return Int{s.ctx.apply3("Seq.IndexFrom", s.Expr, t.Expr, off.Expr, func(c C.Z3_context, a, b, x C.Z3_ast) C.Z3_ast {
		return C.Z3_mk_seq_index(c, a, b, x)
	})}
}

// Replace replaces the first occurrence of src in s by dst.
func (s Seq) Replace(src, dst Seq) Seq {
	return Seq{s.ctx.apply3("Seq.Replace", s.Expr, src.Expr, dst.Expr, func(c C.Z3_context, a, b, x C.Z3_ast) C.Z3_ast {
		return C.Z3_mk_seq_replace(c, a, b, x)
	})}
}

// ToBV is the integer x modulo 2^bits as a bit-vector (int2bv).
func (x Int) ToBV(bits uint) BV {
	return BV{x.ctx.apply1("Int.ToBV", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_int2bv(c, C.uint(bits), a) })}
}

// ToInt is the integer value of x, read as two's complement when signed
// (bv2int).
func (x BV) ToInt(signed bool) Int {
	return Int{x.ctx.apply1("BV.ToInt", x.Expr, func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_bv2int(c, a, C.bool(signed)) })}
}

// maxModelSeq bounds the sequences Model.Bytes reads.
const maxModelSeq = 1 << 20

// Bytes is the value of a byte sequence: its length, then each element,
// evaluated with completion (an element the model leaves free reads as 0).
func (m *Model) Bytes(s Seq) ([]byte, error) {
	n, err := m.Big(s.Len())
	if err != nil {
		return nil, err
	}
	if n.Sign() < 0 || n.Cmp(big.NewInt(maxModelSeq)) > 0 {
		return nil, fmt.Errorf("z3: Model.Bytes: length %s out of range", n)
	}
	out := make([]byte, n.Int64())
	for i := range out {
		v, err := m.Uint64(s.Nth(m.ctx.IntVal(int64(i))).AsBV())
		if err != nil {
			return nil, err
		}
		out[i] = byte(v)
	}
	return out, nil
}
