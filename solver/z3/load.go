package z3

/*
#cgo linux LDFLAGS: -ldl
#include "z3api.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"
)

// LibraryEnv names an environment variable that, when set, is the path of
// the Z3 shared library to load instead of the system's. Setting it to a
// file that does not exist shows how faultline behaves without Z3.
const LibraryEnv = "FAULTLINE_LIBZ3"

// minVersion is the oldest Z3 the binding accepts: the one it is tested
// with (Debian bookworm's and Ubuntu 22.04's libz3-4).
var minVersion = [3]uint{4, 8, 12}

// libraryNames are tried in order when LibraryEnv is unset. On Linux the
// runtime package's soname comes first: the unversioned libz3.so comes only
// with the development package. Homebrew's prefix on Apple silicon is not
// on the default search path.
func libraryNames() []string {
	if runtime.GOOS == "darwin" {
		return []string{"libz3.dylib", "/opt/homebrew/lib/libz3.dylib", "/usr/local/lib/libz3.dylib"}
	}
	return []string{"libz3.so.4", "libz3.so"}
}

// loaded is the outcome of the one attempt to load the library.
var loaded = sync.OnceValues(func() (string, error) { return loadLibrary(os.Getenv(LibraryEnv)) })

// Available loads the Z3 library on first use and reports whether the
// binding can work: nil, or an error (matching ErrUnavailable) that says
// what is missing and how to install it. Later calls return the first
// answer at the cost of an atomic load. Nothing else in the package calls
// Z3 unless Available returned nil: NewContext returns this same error.
func Available() error {
	_, err := loaded()
	return err
}

// loadLibrary opens the library (path, or the system's when path is
// empty), checks its version and resolves every function the binding
// calls. It returns the library's version.
func loadLibrary(path string) (string, error) {
	names := libraryNames()
	if path != "" {
		names = []string{path}
	}
	var lib unsafe.Pointer
	var name, why string
	for _, name = range names {
		var msg string
		if lib, msg = openLibrary(name); lib != nil {
			break
		}
		if why == "" {
			why = msg
		}
	}
	switch {
	case lib == nil && path != "":
		return "", unavailable("the Z3 library named by %s cannot be loaded (%s); install Z3 with %s", LibraryEnv, why, installCommand())
	case lib == nil:
		return "", unavailable("the Z3 library is not installed (%s); install it with %s", why, installCommand())
	}
	var v [4]C.uint
	if !C.faultline_z3_version(lib, &v[0]) {
		C.faultline_z3_close(lib)
		return "", unavailable("%s is not the Z3 library (it has no Z3_get_version); install Z3 with %s", name, installCommand())
	}
	version := fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	if older([3]uint{uint(v[0]), uint(v[1]), uint(v[2])}, minVersion) {
		C.faultline_z3_close(lib)
		return "", unavailable("the Z3 library %s is version %s; faultline needs %d.%d.%d or newer: install it with %s",
			name, version, minVersion[0], minVersion[1], minVersion[2], installCommand())
	}
	if missing := C.faultline_z3_resolve(lib); missing != nil {
		C.faultline_z3_close(lib)
		return "", unavailable("the Z3 library %s (version %s) lacks %s, which faultline needs; install Z3 with %s",
			name, version, C.GoString(missing), installCommand())
	}
	return version, nil
}

// openLibrary opens a shared library, or says why it could not.
func openLibrary(name string) (unsafe.Pointer, string) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var msg [512]C.char
	lib := C.faultline_z3_open(cname, &msg[0], C.size_t(len(msg)))
	if lib == nil {
		return nil, C.GoString(&msg[0])
	}
	return lib, ""
}

func older(v, min [3]uint) bool {
	for i := range v {
		if v[i] != min[i] {
			return v[i] < min[i]
		}
	}
	return false
}

func unavailable(format string, args ...any) error {
	return &unavailableError{fmt.Sprintf(format, args...)}
}
