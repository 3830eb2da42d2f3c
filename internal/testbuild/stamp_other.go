//go:build !linux

package testbuild

import "io/fs"

func sysStamp(info fs.FileInfo) (change int64, inode uint64) { return 0, 0 }
