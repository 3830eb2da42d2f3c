// Package replace owns value replacement, the fallback that follows the
// formula (see package formula).
//
// When the formula finds no verified candidate, value replacement (after
// Jeffrey, Gupta and Gupta, ISSTA 2008) follows. Non-test code carries
// value sites besides the formula's: every right-hand side, returned value,
// switch tag, call argument, index and slice bound (of a string, slice or
// array), operand of && and ||, and integer literal operand of a
// non-constant binary expression
// no other site records passes through the
// runtime's V, which, only when a run asks, records its values as text
// (strings, other slices, structs and maps, pointers, errors as their message) and
// forces one. The failing run and up to three passing runs of the same
// package (Target.Passing, the tests whose coverage is closest, else the
// top-level tests of the most similar names) are recorded; then one site at
// a time, latest executed first, the failing test runs with the site's
// value replaced by one the site produced in the passing runs or by a
// simple neighbour (the empty string, nil, the zero value, ±1; a slice,
// struct or map the formula records is replaced by the values its site
// had in passing runs, or an empty one). An integer site is first moved
// by one at every instance and a condition negated at every instance (the
// runtime's EveryInstance entry: a "+1" or "+-1" shift, or "!"), which
// reaches the instances after the recorded run stopped at a panic or
// t.Fatal too. A
// replacement that makes the test pass, confirmed by a run of its own, is a
// verified single-location candidate with Found FoundByReplacement.
// Replacements run up to 40 per process (-test.count, each repetition
// numbering instances as a fresh process would); a test whose repetitions
// overlap, or whose unforced closing repetition passes, gets one process
// per replacement. Instrumented func(t *testing.T) defer the runtime's
// Recover, which during trials fails a repetition that panics instead of
// ending the process. When the formula reached the failing check (and was
// not cut by its share of time or runs before it verified anything) only value
// sites (and string sites, which it takes as recorded unless
// Options.Strings) are tried; when it could not (no recognised check failed, or no
// correction of the allowed size exists because the check compares values
// that are not modelled), every executed site is, within two thirds of the
// time left, and then predicate switching follows: each recorded Boolean of
// non-test code, latest first, is flipped alone in a forced run, and the
// flips that make the test pass are reported as verified single-location
// candidates with Found FoundBySwitching (TestResult.Switched counts
// them). When the formula verified a candidate, replacement still tries
// the integer value sites on lines that host none. Replacement is bounded
// by the budget, Options.MaxRuns and 400 replacements per test.
package replace
