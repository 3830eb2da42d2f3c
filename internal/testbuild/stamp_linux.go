//go:build linux

package testbuild

import (
	"io/fs"
	"syscall"
)

func sysStamp(info fs.FileInfo) (change int64, inode uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec, st.Ino
}
