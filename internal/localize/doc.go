// Package localize is faultline's one localization service: given a
// module's spectra it decides which failing tests to analyse, runs the
// angelic analysis on them through one result cache, and puts every
// executed line in one order, so that faultline rank, faultline fix and the
// language server show the same thing.
//
// The order: lines hosting a verified single-location angelic fix for more
// of the analysed failing tests come first, the formula orders the rest and
// breaks ties among them; tie groups are recomputed once, here.
//
// Analyses run in worker processes (the faultline executable, started
// again in its worker mode): a worker is stopped when it passes its memory
// or time bound, its memory goes back to the system when it ends, and a
// crash inside the solver cannot take the caller down. A worker that dies
// loses only the failing test it was on: a new one takes the others. The
// solver's search stops at half the memory bound, so that the fallbacks
// still run before the worker's bound is reached. Results stream back one
// failing test at a time, so callers can show them as they come.
package localize
