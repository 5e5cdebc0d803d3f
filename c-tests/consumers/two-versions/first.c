/* A library built against utf8validate 0.1 (linked with its libutf8validate.so). */
#include <utf8validate.h>

const char *first_utf8validate_version(void) { return utf8validate_version(); }
