//go:build race

package faultlinert

// raceBuild says the binary is built with the race detector, whose
// counters are incremented atomically: the scan then reads them atomically
// too.
const raceBuild = true
