/* A C program linking two Rust staticlibs: libutf8validate.a and libother_rust_lib.a. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <utf8validate.h>

uint32_t other_rust_describe(uint32_t n);

int main(void) {
    const char valid[] = "h\xc3\xa9llo";
    const char invalid[] = "ok \xed\xa0\x80"; /* ED A0 80 encodes a surrogate */
    /* "word0".."word11": 10 * 5 + 2 * 6 bytes */
    uint32_t described = other_rust_describe(12);
    int ok = utf8_validate(valid, strlen(valid)) && !utf8_validate(invalid, strlen(invalid)) &&
             utf8_first_error(invalid, strlen(invalid)) == 3 && described == 62;
    printf("%s: utf8validate %s, other_rust_describe(12) = %u\n", ok ? "ok" : "FAILED",
           utf8validate_version(), (unsigned)described);
    return ok ? 0 : 1;
}
