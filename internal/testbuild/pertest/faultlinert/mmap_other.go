//go:build !aix && !darwin && !dragonfly && !freebsd && !linux && !netbsd && !openbsd && !solaris

package faultlinert

import "errors"

// mapCounters is unavailable here: counters stay in process memory, and a
// test that kills its process loses its own spectrum (its verdict is kept).
func mapCounters(path string, n int) ([]uint64, error) {
	return nil, errors.New("shared counters are not supported on this system")
}

// mapClaims is unavailable here: shards claim tests with files.
func mapClaims(path string, n int) ([]uint64, error) {
	return nil, errors.New("shared claims are not supported on this system")
}
