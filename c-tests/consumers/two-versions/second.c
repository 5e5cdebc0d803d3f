/* A library built against the next major release of utf8validate (another soname). */
#include <utf8validate.h>

const char *second_utf8validate_version(void) { return utf8validate_version(); }
