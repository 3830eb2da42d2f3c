//go:build cgo

// Opening libz3 at run time: see z3api.h and load.go.

#include <stdio.h>
#include <string.h>

#include "z3api.h"

struct faultline_z3_api faultline_z3_api;

#if defined(_WIN32)

void *faultline_z3_open(const char *path, char *err, size_t errlen) {
	(void)path;
	snprintf(err, errlen, "loading libz3 at run time is implemented for Unix-like systems only");
	return NULL;
}

bool faultline_z3_version(void *lib, unsigned version[4]) {
	(void)lib;
	(void)version;
	return false;
}

const char *faultline_z3_resolve(void *lib) {
	(void)lib;
	return "Z3_get_version";
}

void faultline_z3_close(void *lib) { (void)lib; }

#else

#include <dlfcn.h>

// POSIX guarantees that a function's address survives the trip through
// dlsym's void *; copying the bytes avoids the cast ISO C leaves undefined.

void *faultline_z3_open(const char *path, char *err, size_t errlen) {
	dlerror(); // clear a stale message
	// RTLD_LOCAL keeps Z3's symbols out of the global namespace: the
	// wrappers in z3api.h, which share their names, are static anyway.
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		const char *msg = dlerror();
		snprintf(err, errlen, "%s", msg != NULL ? msg : "dlopen failed");
	}
	return lib;
}

bool faultline_z3_version(void *lib, unsigned version[4]) {
	void *sym = dlsym(lib, "Z3_get_version");
	if (sym == NULL) {
		return false;
	}
	void (*get)(unsigned *, unsigned *, unsigned *, unsigned *);
	memcpy(&get, &sym, sizeof sym);
	get(&version[0], &version[1], &version[2], &version[3]);
	return true;
}

const char *faultline_z3_resolve(void *lib) {
	struct faultline_z3_api api;
#define FAULTLINE_Z3_RESOLVE(name) \
	do { \
		void *sym = dlsym(lib, #name); \
		if (sym == NULL) { \
			return #name; \
		} \
		memcpy(&api.name, &sym, sizeof sym); \
	} while (0);
#define FAULTLINE_Z3_RESOLVE_F(ret, name, params, args) FAULTLINE_Z3_RESOLVE(name)
#define FAULTLINE_Z3_RESOLVE_V(name, params, args) FAULTLINE_Z3_RESOLVE(name)
	FAULTLINE_Z3_FUNCTIONS(FAULTLINE_Z3_RESOLVE_F, FAULTLINE_Z3_RESOLVE_V)
	faultline_z3_api = api;
	return NULL;
}

void faultline_z3_close(void *lib) { dlclose(lib); }

#endif
