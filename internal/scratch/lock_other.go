//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package scratch

// hold does nothing where there is no flock: the directory is not marked,
// and RemoveStale leaves it.
func hold(dir string) (unlock func(), err error) { return func() {}, nil }

// removeIfAbandoned cannot tell an abandoned directory here.
func removeIfAbandoned(dir string) (bool, error) { return false, nil }
