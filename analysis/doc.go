// Package analysis owns faultline's angelic fix localization: for each
// failing leaf test it finds minimal sets of source expressions which, had
// they produced other values, would make the test pass, and those values.
// It follows the incremental formula-based fix localization of AgxFaults
// (Phung and Lee, Applied Sciences 2021): an angelic trace formula of the
// failing run, minimal correction subsets enumerated with solver/mcs,
// refinement by running the test down the branches a candidate needs, and
// verification of every candidate by a forced run.
//
// The work is split along its seams:
//   - package instrument rewrites the test's package and the module
//     packages it imports so that a run records and forces values, and runs
//     the instrumented test binary;
//   - package formula replays a recorded run into the angelic trace formula
//     and searches it with Z3 (the only package that needs cgo), then falls
//     back to value replacement and predicate switching;
//   - package replace replaces one recorded value at a time with values
//     passing runs produced;
//   - package result holds what an analysis is given and gives back:
//     targets, options, candidates, results and why an analysis ended.
//
// This package is the front: Analyze and AnalyzeEach instrument and build
// each package once and analyse its failing tests, Verify forces a
// candidate again, and it keeps the names the rest of faultline uses.
//
// Combine merges the candidates into a spectrum ranking: lines that host a
// verified single-location candidate for more failing tests come first (the
// default order of faultline rank). ResultCache keeps each failing test's
// result on disk under the content of the packages the test runs.
package analysis
