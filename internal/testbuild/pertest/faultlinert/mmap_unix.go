//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package faultlinert

import (
	"os"
	"syscall"
	"unsafe"
)

// mapCounters maps the collector's counters file (n uint32 counters) shared,
// so that the collector can read it after this process dies.
func mapCounters(path string, n int) ([]uint32, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.Truncate(int64(n) * 4); err != nil {
		return nil, err
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, n*4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	// Not unsafe.Slice: this file must compile at old language versions.
	return (*[1 << 30]uint32)(unsafe.Pointer(&mem[0]))[:n:n], nil
}
