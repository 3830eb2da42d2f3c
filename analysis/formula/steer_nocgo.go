//go:build !cgo

package formula

// checkReach needs the failed check of a run, which is found by code that
// needs cgo; without it no fix is marked as steering around the check
// (nor is any found: the analysis needs Z3).
type checkReach struct{}

func checkReachOf(*program, *runResult) checkReach { return checkReach{} }

func (checkReach) steers([]forcedValue, *runResult) bool { return false }
