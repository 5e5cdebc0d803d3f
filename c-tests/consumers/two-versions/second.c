/* A library built against another utf8validate release, with another soname. */
#include <utf8validate.h>

const char *second_utf8validate_version(void) { return utf8validate_version(); }
