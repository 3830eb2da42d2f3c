// Package specs owns the techniques that sharpen a ranking by improving
// the test data with a specification, where the specification is a Go
// fuzz target: its fuzz function's checks (t.Error and friends, testify
// assertions) and the panics it must not meet, over typed arguments.
//
//   - sfo and sfo_p (Landsberg, Sun and Kroening, FASE 2018): failing
//     inputs are added while some input fails without executing a line
//     that every failing run so far executes; the data is then single-fault
//     optimal, and no further failing input can improve a single-fault
//     optimal measure's ranking. sfo_p then adds up to 20 passing inputs
//     whose coverage no passing run has.
//   - SAT-TAR (Gopinath, Nokhbeh Zaeem and Khurshid, ASE 2012): the unsat
//     core of the failing run's violated checks is the suspect list; each
//     round adds the input with new coverage that executes the most
//     suspects, drops a failing one that violates other checks, and refines
//     the list; Rank orders lines by Tarantula plus a bonus for suspects.
//
// The solver's side reuses the angelic analysis: package analysis records
// a run of the failing entry and replays it with the fuzz function's
// integer, float and Boolean arguments as free inputs (strings and []byte
// keep the entry's values), so that flipping one path condition after a
// kept prefix gives a new input and the core comes from the same formula.
// Every input is run, and the run decides: a build of the target's test
// binary with Go's own coverage and a small edit that substitutes the fuzz
// function's arguments on entry (package faultlinein, injected through the
// instrumented-build layer) runs each input through the failing seed entry
// and reads which blocks of the spectra matrix it executed. Suggested
// inputs are written as Go's seed corpus (testdata/fuzz/FuzzX/NAME, "go
// test fuzz v1"), so that go test and every later collection run them.
package specs
