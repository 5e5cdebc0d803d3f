/* The Conan package's test: the header and the library agree, and they tell valid
 * from invalid UTF-8, with the offset and kind of the error. */
#include <stdio.h>
#include <string.h>

#include <utf8validate.h>

int main(void) {
    static const char good[] = "caf\xC3\xA9", bad[] = "ok \xED\xA0\x80 surrogate";
    utf8_error err;
    if (strcmp(utf8validate_version(), UTF8VALIDATE_VERSION_STRING) != 0) {
        fprintf(stderr, "header %s, library %s\n", UTF8VALIDATE_VERSION_STRING, utf8validate_version());
        return 1;
    }
    if (!utf8_validate(good, sizeof good - 1) || utf8_check(bad, sizeof bad - 1, &err) ||
        err.offset != 3 || err.kind != UTF8_ERROR_SURROGATE) {
        fputs("wrong answers\n", stderr);
        return 1;
    }
    printf("utf8validate %s: ok (invalid at byte %zu: %s)\n", utf8validate_version(), err.offset,
           utf8_error_kind_name(err.kind));
    return 0;
}
