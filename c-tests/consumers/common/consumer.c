/*
 * The program every C consumer project builds, each in its own way (CMake
 * find_package, add_subdirectory, pkg-config, static or shared): it reads its standard
 * input and says whether it is well-formed UTF-8, using only the installed header.
 *
 * Output and exit status: "valid: N bytes" and 0; "invalid at byte K" and 1;
 * 2 on a read error or input over 64 KiB; 3 when the library loaded is not the version
 * of the header compiled against, or, if the environment variable
 * CONSUMER_EXPECT_LIBRARY is set, not that version (the packaging tests run a program
 * built against one release with a later one of the same major version).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utf8validate.h>

int main(void) {
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, stdin);
    if (ferror(stdin) || !feof(stdin)) {
        fputs("consumer: read error or input too long\n", stderr);
        return 2;
    }
    const char *want = getenv("CONSUMER_EXPECT_LIBRARY");
    if (want == NULL) {
        want = UTF8VALIDATE_VERSION_STRING;
    }
    if (strcmp(utf8validate_version(), want) != 0) {
        fprintf(stderr, "consumer: header %s, library %s, want %s\n",
                UTF8VALIDATE_VERSION_STRING, utf8validate_version(), want);
        return 3;
    }
    if (utf8_validate(buf, len)) {
        printf("valid: %zu bytes\n", len);
        return 0;
    }
    printf("invalid at byte %zu\n", utf8_first_error(buf, len));
    return 1;
}
