// Compiled by TestDeclarationsMatchZ3Header where Z3's development headers
// are installed: every prototype in z3funcs.h must have the type z3.h gives
// the function. (The enumeration values are checked against the library
// itself, in TestDeclaredEnumValues.)
#include <z3.h>

#include "../z3funcs.h"

#define CHECK(ret, name, params, args) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params), #name " is declared differently in z3.h");
#define CHECK_VOID(name, params, args) CHECK(void, name, params, args)
FAULTLINE_Z3_FUNCTIONS(CHECK, CHECK_VOID)
