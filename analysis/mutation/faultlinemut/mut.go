// Package faultlinemut is the runtime of mutant schemata, injected into
// the module under test: every mutant of a build is compiled in, and the
// one named by the environment variable FAULTLINE_MUTANT (read once, at
// start) is active; with none, every helper computes what the original
// expression did.
package faultlinemut

import (
	"os"
	"strconv"
)

// Env names the active mutant's id.
const Env = "FAULTLINE_MUTANT"

var active = activeMutant()

func activeMutant() int {
	n, err := strconv.Atoi(os.Getenv(Env))
	if err != nil {
		return -1
	}
	return n
}

// On reports whether mutant id is active.
func On(id int) bool { return active == id }

// pick returns ops[0], the original operator, or ops[k+1] when mutant
// first+k is active.
func pick(ops string, first int) byte {
	if k := active - first; k >= 0 && k < len(ops)-1 {
		return ops[k+1]
	}
	return ops[0]
}

// Integer is every integer type.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// Float is every floating-point type.
type Float interface{ ~float32 | ~float64 }

// Ordered is every type < applies to.
type Ordered interface{ Integer | Float | ~string }

// Int is a op b on integers, op being ops[0] (one of + - * / %) or, when
// mutant first+k is active, ops[k+1].
func Int[T Integer](a, b T, ops string, first int) T {
	switch op := pick(ops, first); op {
	case '+', '-', '*', '/':
		return arith(a, b, op)
	}
	return a % b
}

// Flt is Int on floating-point numbers (no %).
func Flt[T Float](a, b T, ops string, first int) T {
	return arith(a, b, pick(ops, first))
}

// number is every type the operators + - * / apply to.
type number interface{ Integer | Float }

// arith is a op b for the operators integers and floats share, op being
// one of + - * (anything else is /): Int and Flt differ only in %.
func arith[T number](a, b T, op byte) T {
	switch op {
	case '+':
		return a + b
	case '-':
		return a - b
	case '*':
		return a * b
	}
	return a / b
}

// Rel compares a and b with ops[0] or a mutant's: '<', 'l' (<=), '>', 'g'
// (>=).
func Rel[T Ordered](a, b T, ops string, first int) bool {
	switch pick(ops, first) {
	case '<':
		return a < b
	case 'l':
		return a <= b
	case '>':
		return a > b
	}
	return a >= b
}

// Const is v, or v+1 when mutant first is active and v-1 when first+1 is.
func Const[T Integer](v T, first int) T {
	switch active - first {
	case 0:
		return v + 1
	case 1:
		return v - 1
	}
	return v
}
