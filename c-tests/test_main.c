/*
 * test_main.c: the C test suite of libutf8validate, run against the built library
 * (static and shared) by tests/c_suite.rs.
 *
 * Usage: c_suite [--expect-version X.Y.Z]
 * Prints failing checks, then exactly one last line "N passed, M failed"; exits 0
 * iff M == 0.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"

/* The version three ways: the linked library, the header's string, its numbers. */
static void test_version(const char *expected)
{
    const char *linked = utf8validate_version();
    char from_macros[64];

    CHECK(linked != NULL, "utf8validate_version() returned NULL");
    if (linked == NULL) {
        return;
    }
    printf("library version: %s, header version: %s\n", linked, UTF8VALIDATE_VERSION_STRING);
    CHECK(strcmp(linked, UTF8VALIDATE_VERSION_STRING) == 0,
          "library says \"%s\", header says \"%s\"", linked, UTF8VALIDATE_VERSION_STRING);
    sprintf(from_macros, "%d.%d.%d", UTF8VALIDATE_VERSION_MAJOR, UTF8VALIDATE_VERSION_MINOR,
            UTF8VALIDATE_VERSION_PATCH);
    CHECK(strcmp(from_macros, UTF8VALIDATE_VERSION_STRING) == 0,
          "MAJOR.MINOR.PATCH macros give \"%s\", UTF8VALIDATE_VERSION_STRING is \"%s\"",
          from_macros, UTF8VALIDATE_VERSION_STRING);
    CHECK(linked == utf8validate_version(), "the version string is not one static string");
    if (expected != NULL) {
        CHECK(strcmp(linked, expected) == 0, "library says \"%s\", Cargo.toml says \"%s\"",
              linked, expected);
        CHECK(strcmp(UTF8VALIDATE_VERSION_STRING, expected) == 0,
              "header says \"%s\", Cargo.toml says \"%s\"", UTF8VALIDATE_VERSION_STRING,
              expected);
    }
}

int main(int argc, char **argv)
{
    const char *expected_version = NULL;
    int i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect-version") == 0 && i + 1 < argc) {
            expected_version = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--expect-version X.Y.Z]\n", argv[0]);
            return 2;
        }
    }

    /* Line-buffered, so that a crash leaves the failures and the group it was in. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("== version\n");
    test_version(expected_version);
    printf("== state machine: byte classes, transitions\n");
    test_state_machine();
    printf("== examples: RFC 3629, RFC 2279, offsets, NULL\n");
    test_examples();
    printf("== the draft's never-used bytes and pairs\n");
    test_never_used();
    printf("== chunks: every split of multilingual text\n");
    test_chunks();
    printf("== a server's entry check: short strings, %%-encoded text, log lines\n");
    test_server();
    printf("== a request in pieces: queries, body windows, log-line fields\n");
    test_server_pieces();
    return check_summary();
}
