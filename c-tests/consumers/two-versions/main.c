/*
 * One process, two major releases of libutf8validate (two sonames, e.g.
 * libutf8validate.so.0 and libutf8validate.so.1), each needed by a different library
 * (libfirst.so and libsecond.so, as happens when two dependencies were built at
 * different times). Each library must reach its own release's functions: the exported
 * symbols are versioned with the soname, so the dynamic linker cannot bind libsecond's
 * reference to libfirst's copy, which comes first in the search order.
 *
 * Usage: main FIRST_VERSION SECOND_VERSION (the versions each library was built with).
 */
#include <stdio.h>
#include <string.h>

const char *first_utf8validate_version(void);
const char *second_utf8validate_version(void);

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("usage: main FIRST_VERSION SECOND_VERSION\n", stderr);
        return 2;
    }
    const char *first = first_utf8validate_version();
    const char *second = second_utf8validate_version();
    printf("libfirst sees %s, libsecond sees %s\n", first, second);
    return strcmp(first, argv[1]) == 0 && strcmp(second, argv[2]) == 0 ? 0 : 1;
}
