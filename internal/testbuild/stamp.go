package testbuild

import (
	"io/fs"
	"os"
	"time"
)

// stamp is what the file system says of a file without reading it. A file
// whose stamp is unchanged is taken to be unchanged, as the go command takes
// it for its own cache, except for stamps taken too close to a change (see
// trusted).
type stamp struct {
	Size    int64
	ModTime int64 // nanoseconds
	Change  int64 // inode change time in nanoseconds, where the system has one
	Inode   uint64
	Mode    fs.FileMode
}

// statStamp stats path.
func statStamp(path string) (stamp, error) {
	info, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	return stampOf(info), nil
}

func stampOf(info fs.FileInfo) stamp {
	s := stamp{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Mode: info.Mode().Type()}
	s.Change, s.Inode = sysStamp(info)
	return s
}

// modTimeSlack is how recent a modification may be for its stamp to be
// trusted: a file written twice within the file system's timestamp
// granularity can keep its stamp while its content changes, so a stamp is
// only recorded once the file has been left alone this long. (The change
// time is part of the stamp, so a file whose modification time was set
// back still shows a new stamp.)
const modTimeSlack = 2 * time.Second

// trusted reports whether a stamp taken at now may stand for the content
// read with it.
func (s stamp) trusted(now time.Time) bool {
	return s.ModTime < now.Add(-modTimeSlack).UnixNano()
}
