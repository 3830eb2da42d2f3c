// Package formula owns the angelic trace formula and its search, the only
// part of the analysis that needs the Z3 binding and so cgo: without cgo
// its entry points (Search, FailingRun.Cause, InputSession.Formula...) say
// so through Available (nocgo.go). Search runs the formula first and then
// the fallbacks, value replacement (package replace) and predicate
// switching (switch.go).
//
// # The formula
//
// The recorded trace is replayed over the typed AST (go/packages): each
// site instance gets a variable; in non-test code the constraint
// "ab_site or variable = expression" is hard and "not ab_site" soft, one ab
// literal per static site shared by its instances; test code is hard. A
// condition instance's direction guards the path; when control leaves an
// if, for or switch statement each local it may assign gets a join variable equal to
// its current value only under the directions taken (the phi as an
// implication), so an unexplored direction leaves it free. A statement
// left by a return or a panic binds no join: no code after it runs. An if
// condition whose other direction is a return statement alone (if err !=
// nil { return 0, err }) binds the function's results under that direction
// to the returned expressions, evaluated where the condition was (except in
// a function that defers a call), so a change that only makes an error
// non-nil does not leave the caller's results free. A function's
// result equals its return value under the path that reached the return,
// and is bound to the call that returned it (recorded as it returns), so a
// result ignored never stands for a later call's;
// arguments of calls between instrumented functions flow into the callee's
// parameters. The specification: each instance of a test-code if condition
// whose branch calls t.Error, t.Errorf, t.Fatal, t.Fatalf, t.Fail or
// t.FailNow takes the other direction; inside such a condition
// reflect.DeepEqual(x, y) and go-cmp's cmp.Equal(x, y) on integers, floats,
// Booleans, lists and records of one type are modelled as x == y, and cmp.Diff(x, y) != ""
// (the call in place or assigned in the if's init) as x != y. Each instance
// of a testify assertion statement (package assert or require, function or
// method: Equal, Exactly, NotEqual, Greater, GreaterOrEqual, Less,
// LessOrEqual, True, False, Zero, NotZero, Positive, Negative) on integer,
// float, Boolean or string operands of one type (Equal, Exactly, NotEqual
// also on lists, records and maps, Zero and NotZero on records), InDelta
// on float64 operands, Empty, NotEmpty, Contains, NotContains and Len on
// strings, Empty, NotEmpty, Contains, NotContains and Len on lists, and
// NoError, Error, Nil, NotNil on errors and ErrorIs, NotErrorIs against a
// sentinel must hold: the call is the check, since it
// reports failure inside testify. So must each instance of a quicktest
// assertion statement (c.Assert or c.Check on a *quicktest.C,
// quicktest.Assert or quicktest.Check, with only comments after the
// checker's arguments) whose checker is Equals (Go's == on interfaces:
// not on lists, maps or byte slices; err == nil is NoError), DeepEquals or
// CmpEquals() without options (go-cmp: not on byte slices, nor on
// records with an unexported field), IsNil or IsNotNil on an error,
// IsTrue, IsFalse, HasLen with an int, Contains or ErrorIs against a
// sentinel, or Not of one: one table maps testify's functions and
// quicktest's checkers onto the same checks (a kind and its negation),
// each recognised by the object it resolves to, so a test's own Equals is
// not quicktest's. A run that fails by a panic at a
// guarded operation gets "under the path that reached it, the operation
// does not panic": 0 <= index < len and
// 0 <= lo <= hi <= max <= cap (bounds modelled when their expressions are,
// the length or capacity taken from the run), divisor != 0; when an
// operand is not modelled, and always for a nil pointer dereferenced, a
// nil map written and an explicit panic call (pointers and maps are the
// run's), the path itself must change: the operation is not reached. The
// guard counts when the output shows a panic of its kind (a runtime
// error; assignment to entry in nil map; any other for a panic call) and
// it is the last guard the run recorded. Checks met only in
// a forced run are added once the replay ends, and only those the formula
// can meet: one that fails whatever the locations' values compares
// recorded operands, which hold only under that run's forced values.
//
// Modelled: integer types of every width as bit-vectors with Go's wrapping,
// truncating division and remainder, shifts (counts of any width),
// conversions between integer types; float32 and float64 in the IEEE
// floating-point theory: + - * / rounding to nearest even, unary minus,
// comparisons (false on NaN, -0 == +0), math.Abs, conversions between
// float types and to and from integers (a float truncated toward zero; out
// of range, NaN included, the integer with only the sign bit set, as on
// amd64); strings and byte slices in the sequence theory over bytes: len,
// s[i], s[lo:hi], + and +=, == != < <= > >= (bytes compared unsigned),
// conversions between strings and byte slices and from an integer (the
// rune's UTF-8 encoding), b[i] = v on a byte slice local, and Index,
// IndexByte, Contains, HasPrefix, HasSuffix, TrimPrefix, TrimSuffix,
// Repeat (counts up to 64, and the recorded one) and Compare of strings
// and bytes, bytes.Equal, strconv.Itoa, FormatInt and FormatUint in base
// 10 and FormatBool (only with Options.Strings, and for a test whose failing run reached a check
// on a string or byte slice, or panicked indexing one: sequences need
// Z3's general solver, much slower than the finite-domain one the rest
// allows, so otherwise they and what is computed from them are the run's
// values); an error as its code, a 16-bit vector (errors.New and
// fmt.Errorf non-nil, nil nil, == and != nil as code != 0, errors.Is(x, S)
// against a sentinel as code(x) == S's; an error matching several
// sentinels has the least one's code, so a check on another of them
// contradicts the run and takes the run's value; err == S and err != S
// with S a sentinel compare codes the same way, a wrapped sentinel having
// its code too; other errors compared with == stay concrete);
// records, structs of at most 16
// integer and Boolean fields, as one bit-vector of their fields: field
// reads (of a local, of a list element, of a literal), field stores r.f =
// v and r.f op= v, composite literals keyed or not, == and != (Go's and
// reflect.DeepEqual's comparison of such structs); lists, slices of
// integers (not []byte) or of records, as arrays from 64-bit indices to
// elements holding their length at the last index (only for a test whose
// failing run reached a check on one, else they are the run's values):
// indexing, element stores s[i] = v and s[i] op= v (in multi-assignments
// too), append of elements, and of a list spread for the run's number of
// its elements, slice expressions for the run's number of elements (a
// free list for another; capacity is not modelled), len, composite
// literals, and comparison as reflect.DeepEqual, cmp.Equal, cmp.Diff and
// testify's Equal make it (element by element up to the longer recorded
// length; two empty lists, equal or not by nil-ness, which lists do not
// carry, are left to the verifying run), testify's Len, Empty and
// NotEmpty; a list or record local is followed only while no other
// reference to it is made in its function (no copy of a list, no slicing,
// no call but len, append onto itself, printing and the checks' own; no
// address, pointer method, ++ or -- on an element or field; no closure),
// and what aliases made elsewhere change is caught by the check of each
// site's modelled value against the recorded one; maps from integers to
// integers or Booleans (with lists: only for a test whose failing run
// reached a check on one) as arrays from keys to a value and a presence
// bit, holding their length at a key no Go key reaches: lookups m[k] (the
// zero value when absent), stores m[k] = v and m[k] op= v, len, and the
// checks' comparison (the same length and entries at every key either
// side's recorded value has), for a map local used only so (no comma-ok
// lookup, delete, range, copy or other call); Booleans, comparisons, && and ||, locals and parameters assigned
// only by plain assignments in their own function and never addressed;
// calls between instrumented functions: each modelled
// result, whether the callee has one result or several (v, err := f(),
// v, err = f(), var v, err = f(), return f(), g(f())), equals the callee's
// returned expression under the path that reached the return, its other
// results (structs, slices...) staying concrete; the assertions above; expression
// switches as the if/else-if chains they are, with an init statement and
// fallthrough: each case expression evaluated is a condition (in a tagged
// switch on an integer, tag == value against the tag, itself a site,
// evaluated once), so a forced run can take another clause; type switches
// and v, ok := x.(T) as branches: each case type tested and each ok is a
// condition whose value is the run's (the dynamic type is not modelled),
// with its own ab literal, so a correction chooses the branch and a forced
// run takes it (a case of an interface type, which no value is made for,
// or the default beside a nil case, cannot be forced: the forced run goes
// where the value sends it and the candidate is not verified). Concretised (the
// recorded value is a constant in the formula): other structs and their
// fields, lists and records that are not followed locals (a field of a
// global, say: its element or field read is recorded), slices of other
// elements, arrays, other maps, pointers, globals, captured variables, range
// variables (range loops are replayed as executed), locals assigned
// by comma-ok forms other than type assertions, the value of v, ok :=
// x.(T), locals assigned from multi-value calls to code outside the module
// (strconv.Atoi), calls to code outside the module or through function
// values and interfaces (math functions other than Abs among them),
// strings longer than 1 KiB, complex numbers. Not modelled at all:
// fused multiply-add (Go may fuse x*y + z where the machine has the
// instruction, arm64 for one: the formula rounds each operation, and the
// forced run decides),
// type switches in test code or with a case type written over several
// lines, select statements, tagged switches on a non-integer tag
// (or one of another package's named type) or with a case value that calls
// a function (their bodies are replayed as executed), goroutines other than the test's, panics
// in non-test code other than index, slice, integer division, nil
// pointer, nil map write and panic-call ones (conversions, single-value
// type assertions, a nil pointer reached through an embedded pointer
// field, panics in code outside the module: such a test gets no
// specification), a nil pointer or map that reaches its use through data
// rather than control (assigned under a condition, used after the join:
// the path to the use holds in any case, so only a correction that
// avoids the use helps, and such a test usually falls back), assertions on other types (strings, structs, slices,
// errors other than by nil-ness and sentinels, operands of different types: testify's Equal and quicktest's Equals fail on int(1) and
// int64(1), and an operand of an interface type) and other testify functions and quicktest checkers (ErrorMatches, Satisfies...), cmp options, assertions written as
// expressions rather than statements: such a test falls back to predicate
// switching.
//
// # The search
//
// MCSs are enumerated smallest first up to Options.MaxSize. For each the
// model gives angelic values for every encoded instance of its sites; the
// test is run with them forced. A passing run makes the candidate verified.
// A failing run that reaches site instances, branch directions or a panic
// the formula lacks is replayed into the formula (refinement, keeping the
// solver state); a failing run that does not, or that fails a check on
// unmodelled operands, excludes its values (with every other location
// correct) so that the next nearest values are tried. After a bounded
// number of such rounds per location set the candidate is blocked as
// unverified. Time, runs and candidate size are bounded, and a cut is
// reported in TestResult.Notes; so is Z3's memory (Options.SolverMemory,
// solvermemory.go: past it the checks are interrupted, the search stops
// and the fallbacks below run as if the formula had not reached the check).
package formula
