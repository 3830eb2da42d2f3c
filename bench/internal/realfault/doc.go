// Package realfault owns what the benchmarks built on real faults share:
// the benchmark file of bench/realfaults (projects, faults, their commits
// and faulty lines), the projects' git histories on this machine, and the
// zero-context diff hunks both read, the code lines of a Go source and the
// tests a fix changed.
package realfault
