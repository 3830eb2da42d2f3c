// Shared cgo preamble of package z3: includes the Z3 C API and fails the
// build with an actionable message when the development files are missing.
#ifndef FAULTLINE_Z3_SHIM_H
#define FAULTLINE_Z3_SHIM_H

#if defined(__has_include)
#if !__has_include(<z3.h>)
#error "z3.h not found: package faultline/solver/z3 needs the Z3 C library and headers; install them with: apt-get install libz3-dev"
#endif
#endif

#include <stdlib.h>
#include <z3.h>

// Z3's default error handler exits the process. This one does nothing: the
// binding reads Z3_get_error_code after each call and returns a Go error.
static void faultline_z3_ignore_error(Z3_context c, Z3_error_code e) {
	(void)c;
	(void)e;
}

static void faultline_z3_install_error_handler(Z3_context c) {
	Z3_set_error_handler(c, faultline_z3_ignore_error);
}

#endif
