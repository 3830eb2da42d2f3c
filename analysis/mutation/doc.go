// Package mutation owns mutation-based fault localization: it mutates the
// lines failing tests execute (arithmetic and relational operators,
// boundaries, && and ||, negated conditions, integer constants ±1,
// op-assignments, removed statements; true ↔ false only to find fixes),
// compiles every mutant into one test binary per package through the
// build layer (mutant schemata: the active mutant is chosen at run time
// by the runtime package faultlinemut), runs each mutant against the
// tests that cover its line, and scores lines with Metallaxis-FL and
// MUSE. A mutant that makes the covering failing tests pass and keeps the
// covering passing tests passing is a verified operator fix.
package mutation
