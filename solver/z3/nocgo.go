//go:build !cgo

package z3

// Available reports that this build cannot use Z3: the binding calls the
// Z3 C library through cgo, and this faultline was built without it. The
// rest of the package exists only in builds with cgo.
func Available() error {
	return &unavailableError{"this faultline was built without cgo (CGO_ENABLED=0), so it cannot use the Z3 library: " +
		"rebuild it with a C compiler present (CGO_ENABLED=1 go install ./cmd/faultline) and install Z3 with " + installCommand()}
}

// Context cannot be made without cgo (NewContext needs the binding); the
// type exists so that code which interrupts one builds either way.
type Context struct{}

// Interrupt does nothing: without cgo no check runs.
func (ctx *Context) Interrupt() {}
