/* A library built against this release of utf8validate (soname libutf8validate.so.<major>). */
#include <utf8validate.h>

const char *first_utf8validate_version(void) { return utf8validate_version(); }
