// Package instrument owns the record-and-replay side of the angelic
// analysis: it rewrites a test's package and the module packages it
// imports, builds and runs the instrumented test binary, and reads back
// what a run recorded (sites, events, values and the summaries value
// replacement asks for). It also recognises what the formula models
// (assertions, errors.Is and sentinels, lists, maps, records, string
// functions), since each of those is instrumented where it is met.
//
// The test's package, its test files and the module packages it imports are
// instrumented through go test -overlay (the user's files are never
// touched): each site calls a runtime injected at
// <module>/internal/faultlineagx that counts dynamic instances per site
// and function activation (so that a forced value making one loop run
// longer does not renumber the instances of later calls), appends
// "site activation instance value" to a trace file named by
// FAULTLINE_AGX_TRACE and substitutes the values listed in the JSON file
// named by FAULTLINE_AGX_FORCE (a float as its IEEE bits, a string or byte
// slice as its Go-quoted bytes, or #n when longer than 1 KiB, an error as
// its code, in both files: 0 nil, the number of the first sentinel
// errors.Is matches, else 1; a forced sentinel's code is that sentinel, a
// forced non-nil error that was nil a runtime error value). Sentinels are
// the package-level error variables the module declares and those of
// other packages its code names as the target of errors.Is, testify's
// ErrorIs and NotErrorIs or quicktest's ErrorIs; each file registers those it declares or names
// with the runtime. A slice of integers or records, a record (a struct of
// integer and Boolean fields) or a map from integers is recorded and
// forced as the Go-quoted string of 8 little-endian bytes per integer,
// field, or map key and value, the entries ordered by key. Sites are
// integer, float, Boolean, string, byte slice, error, list, record and
// map right-hand sides of assignments and
// var specs, x++/x--, if and for conditions, the
// case expressions and tags of expression switches, the case types of
// type switches (the switched value passes through the runtime's
// TypeSwitch, which tests the cases in order and, forced, returns a value
// of the case chosen: the value converted to that type where Go converts
// it, else its zero value; nil for the nil case and, beside no nil case,
// for the default), the ok of v, ok := x.(T) (x.(T) becomes the runtime's
// Assert[T], which returns the forced ok with the value converted or
// zero), returned values,
// arguments of calls to instrumented functions and the values those calls
// return (a call with several results passes them through a generic helper
// generated in the file, which records each modelled
// one), parameter values on entry,
// operands of testify and quicktest assertions, and the operands the formula does not
// model (recorded so that they enter as constants). Index, slice and integer division
// operations of non-test code pass their index, bounds or divisor through a
// guard that records the length, capacity or zero divisor only when the
// operation is about to panic; dereferences of a pointer (p.f, *p, a value
// method called through p) and writes to a map element pass the pointer or
// map through a guard that records it only when nil, and each call of the
// builtin panic its value through one that records that it is reached
// (an expression Go does not evaluate, a constant such as len of an
// array or the array a range with one variable ranges over, gets none: a
// call would have it evaluated). One leaf test runs per process, selected
// with a fully anchored -test.run pattern.
package instrument
