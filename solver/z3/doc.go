// Package z3 is a small cgo binding of the Z3 SMT solver's C API, covering
// what fault localisation needs: Booleans, bit-vectors with Go's integer
// semantics, integers, reals, IEEE floats, arrays, sequences (Go's strings
// and byte slices as sequences of bytes), an incremental Solver
// (scopes, checks under assumptions, unsat cores, models) and Optimize
// (weighted soft constraints).
//
// # Loading Z3
//
// Building needs a C compiler but neither Z3's headers nor its library:
// the binding declares the part of the C API it uses itself (z3api.h,
// z3funcs.h) and opens the shared library on first use (libz3.so.4, else
// libz3.so, on Linux; libz3.dylib on macOS; the file named by
// FAULTLINE_LIBZ3 when that is set), refusing versions older than 4.8.12,
// the one it is tested with. Available reports whether that worked, with a
// message that says what is missing and how to install it (`apt-get
// install libz3-4` on Debian and Ubuntu); NewContext returns the same
// error, and nothing calls into Z3 before it succeeded. Without cgo the
// package has Available, which says so, and a Context no one can make.
//
// # Usage
//
//	ctx, err := z3.NewContext(z3.Config{Timeout: 2 * time.Second})
//	if err != nil { ... }
//	defer ctx.Close()
//	x := ctx.BVConst("x", 64)
//	s, err := ctx.NewSolver()
//	if err != nil { ... }
//	// x / 3 == -2 with Go's int64 semantics.
//	if err := s.Assert(x.Div(ctx.BVInt(3, 64), true).Eq(ctx.BVInt(-2, 64))); err != nil { ... }
//	if r, err := s.Check(); err == nil && r == z3.Sat {
//		m, _ := s.Model()
//		v, _ := m.Int64(x) // one of -8, -7, -6
//	}
//
// Typed terms (Bool, BV, Int, Real, Float, Array, Seq) embed Expr and satisfy
// Term, so they mix freely where any sort is allowed (Eq, Ite, Select).
// NewSolverForLogic("QF_FD") gives Z3's bit-blasting incremental SAT
// solver, much faster on Boolean and bit-vector constraints; MinimalCore
// shrinks an unsat core to an irreducible one.
//
// # Errors
//
// Terms are built without error returns. A construction Z3 rejects (say,
// adding bit-vectors of different widths) yields a term whose Err is set;
// terms built from it inherit the error, and Assert, Check and Eval return
// it. Z3's own error handler, which would exit the process, is replaced:
// every Z3 error becomes a *Error.
//
// # Memory and concurrency
//
// A Context is not safe for concurrent use: use one per goroutine and
// never mix objects of different contexts. Interrupt alone may be called
// from another goroutine, to end the check the context is running. Every object holds one Z3
// reference. When Go's garbage collector drops an object, its reference is
// queued and released by the owning context at its next operation, so long
// runs stay bounded; Close releases everything at once and makes later use
// return ErrClosed.
//
// # Go semantics
//
// Bit-vectors carry no signedness; the Go-level helpers take it as a flag:
// Div and Rem truncate like Go (bvsdiv/bvsrem or bvudiv/bvurem), GoShl and
// GoShr accept a count of any width and give 0 or the sign fill for counts
// at least the width, Convert truncates or extends by the source type.
// Division by zero and negative shift counts panic in Go but are defined
// in SMT-LIB: the caller must guard them. Int's Div and Mod are Euclidean,
// unlike Go's operators.
package z3
