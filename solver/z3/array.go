package z3

/*
#include "z3api.h"
*/
import "C"

// Array is a term of an array sort (a total map from domain to range).
type Array struct{ Expr }

// ArrayConst declares an array constant.
func (ctx *Context) ArrayConst(name string, domain, rng Sort) Array {
	return Array{ctx.Const(name, ctx.ArraySort(domain, rng))}
}

// ConstArray is the array mapping every index of sort domain to v.
func (ctx *Context) ConstArray(domain Sort, v Term) Array {
	if domain.err != nil {
		return Array{Expr{ctx: ctx, err: domain.err}}
	}
	return Array{ctx.apply1("ConstArray", v.term(), func(c C.Z3_context, a C.Z3_ast) C.Z3_ast { return C.Z3_mk_const_array(c, domain.sort(), a) })}
}

// Select is a[i].
func (a Array) Select(i Term) Expr {
	return a.ctx.apply2("Array.Select", a.Expr, i.term(), func(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast { return C.Z3_mk_select(c, x, y) })
}

// Store is the array a with a[i] = v.
func (a Array) Store(i, v Term) Array {
	return Array{a.ctx.apply3("Array.Store", a.Expr, i.term(), v.term(), func(c C.Z3_context, x, y, z C.Z3_ast) C.Z3_ast { return C.Z3_mk_store(c, x, y, z) })}
}

// Context is the context a term belongs to, for building the terms that
// read it (the indices of an array, say).
func (e Expr) Context() *Context { return e.ctx }
