/*
 * The program every C consumer project builds, each in its own way (CMake
 * find_package, add_subdirectory, pkg-config, static or shared): it reads its standard
 * input and says whether it is well-formed UTF-8, using only the installed header.
 *
 * Output and exit status: "valid: N bytes" and 0; "invalid at byte K" and 1;
 * 2 on a read error or input over 64 KiB; 3 when the library linked is not the version
 * of the header compiled against.
 */
#include <stdio.h>
#include <string.h>

#include <utf8validate.h>

int main(void) {
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, stdin);
    if (ferror(stdin) || !feof(stdin)) {
        fputs("consumer: read error or input too long\n", stderr);
        return 2;
    }
    if (strcmp(utf8validate_version(), UTF8VALIDATE_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: header %s, library %s\n", UTF8VALIDATE_VERSION_STRING,
                utf8validate_version());
        return 3;
    }
    if (utf8_validate(buf, len)) {
        printf("valid: %zu bytes\n", len);
        return 0;
    }
    printf("invalid at byte %zu\n", utf8_first_error(buf, len));
    return 1;
}
