//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package faultlinert

import (
	"os"
	"syscall"
	"unsafe"
)

// mapCounters maps the collector's counters file (n words of two uint32
// counters) shared, so that the collector can read it after this process
// dies.
func mapCounters(path string, n int) ([]uint64, error) {
	return mapWords(path, os.O_RDWR, n)
}

// mapClaims maps the shards' claims table (n words), creating it zeroed
// if it is not there: every shard truncates it to the same size, which
// keeps the claims another has made.
func mapClaims(path string, n int) ([]uint64, error) {
	return mapWords(path, os.O_RDWR|os.O_CREATE, n)
}

// mapWords maps the file at path, opened with flag and sized to n words,
// shared.
func mapWords(path string, flag, n int) ([]uint64, error) {
	f, err := os.OpenFile(path, flag, 0644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.Truncate(int64(n) * 8); err != nil {
		return nil, err
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	// Not unsafe.Slice: this file must compile at old language versions.
	return (*[1 << 27]uint64)(unsafe.Pointer(&mem[0]))[:n:n], nil
}
