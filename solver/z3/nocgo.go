//go:build !cgo

package z3

// This file exists to turn a cgo-less build into a readable error: package
// z3 wraps the Z3 C library and needs cgo plus the system package libz3-dev
// (apt-get install libz3-dev), with CGO_ENABLED=1 and a C compiler.
var _ = z3_needs_cgo_enabled_and_the_libz3_dev_package
