// Package realfault owns what the benchmarks built on real faults share:
// the benchmark file of bench/realfaults (projects, faults, their commits
// and faulty lines), the projects' git histories on this machine, and the
// zero-context diff hunks both read.
package realfault
