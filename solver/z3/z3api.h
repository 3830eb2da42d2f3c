// The part of Z3's C API the binding uses, declared here from Z3's
// documentation so that building needs neither z3.h nor libz3: load.c opens
// the library at run time and fills faultline_z3_api with its functions.
//
// Each function keeps its Z3 name as a static inline wrapper that calls
// through the table, so the Go files call C.Z3_mk_bvadd as with a linked
// library. Calling any of them before faultline_z3_resolve succeeded
// dereferences a null pointer: the Go side reaches them only through a
// Context, and NewContext fails unless the library was loaded.
#ifndef FAULTLINE_Z3_API_H
#define FAULTLINE_Z3_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

// Opaque handles: pointers to structures only Z3 knows.
typedef struct _Z3_config *Z3_config;
typedef struct _Z3_context *Z3_context;
typedef struct _Z3_symbol *Z3_symbol;
typedef struct _Z3_ast *Z3_ast;
typedef struct _Z3_sort *Z3_sort;
typedef struct _Z3_params *Z3_params;
typedef struct _Z3_solver *Z3_solver;
typedef struct _Z3_optimize *Z3_optimize;
typedef struct _Z3_model *Z3_model;
typedef struct _Z3_ast_vector *Z3_ast_vector;
typedef struct _Z3_stats *Z3_stats;

typedef const char *Z3_string;
typedef bool Z3_bool; // C99 bool since Z3 4.8

// The enumerations, with only the values the binding reads. They are C
// enums in Z3 as well, so they are passed and returned as the same integer.
typedef enum {
	Z3_L_FALSE = -1,
	Z3_L_UNDEF = 0,
	Z3_L_TRUE = 1,
} Z3_lbool;

typedef enum {
	Z3_BOOL_SORT = 1,
	Z3_INT_SORT = 2,
	Z3_REAL_SORT = 3,
	Z3_BV_SORT = 4,
	Z3_ARRAY_SORT = 5,
	Z3_FLOATING_POINT_SORT = 9,
	Z3_SEQ_SORT = 11,
} Z3_sort_kind;

typedef enum {
	Z3_OK = 0,
} Z3_error_code;

typedef void Z3_error_handler(Z3_context c, Z3_error_code e);

#include "z3funcs.h"

// The table of resolved functions, one pointer per entry of the list.
#define FAULTLINE_Z3_FIELD(ret, name, params, args) ret(*name) params;
#define FAULTLINE_Z3_VOID_FIELD(name, params, args) void(*name) params;
struct faultline_z3_api {
	FAULTLINE_Z3_FUNCTIONS(FAULTLINE_Z3_FIELD, FAULTLINE_Z3_VOID_FIELD)
};
extern struct faultline_z3_api faultline_z3_api;

#define FAULTLINE_Z3_WRAPPER(ret, name, params, args) \
	static inline ret name params { return faultline_z3_api.name args; }
#define FAULTLINE_Z3_VOID_WRAPPER(name, params, args) \
	static inline void name params { faultline_z3_api.name args; }
FAULTLINE_Z3_FUNCTIONS(FAULTLINE_Z3_WRAPPER, FAULTLINE_Z3_VOID_WRAPPER)

// faultline_z3_open opens the shared library at path. On failure it
// returns NULL and writes why into err.
void *faultline_z3_open(const char *path, char *err, size_t errlen);

// faultline_z3_version reads the version of an opened library; it returns
// false when the library has no Z3_get_version (it is not Z3).
bool faultline_z3_version(void *lib, unsigned version[4]);

// faultline_z3_resolve fills the table with every function of the list,
// all or none: it returns NULL, or the name of the first function the
// library lacks (the table is then left as it was).
const char *faultline_z3_resolve(void *lib);

// faultline_z3_close closes a library that failed the checks.
void faultline_z3_close(void *lib);

// Z3's default error handler exits the process. This one does nothing: the
// binding reads Z3_get_error_code after each call and returns a Go error.
static inline void faultline_z3_ignore_error(Z3_context c, Z3_error_code e) {
	(void)c;
	(void)e;
}

static inline void faultline_z3_install_error_handler(Z3_context c) {
	Z3_set_error_handler(c, faultline_z3_ignore_error);
}

#endif
