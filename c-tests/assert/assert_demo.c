/*
 * The debug macros of utf8validate.h at work, for tests/assert_macros.rs, which
 * builds this file as C99, C11, C++11 and C++17 with gcc and clang (-Wall -Wextra
 * -pedantic -Werror), with and without -DNDEBUG, and runs it once per mode:
 *
 *   valid            every macro on well-formed input: prints "passed" and how often
 *                    the side-effecting length argument was evaluated
 *   invalid          UTF8_ASSERT_VALID on a surrogate: aborts (not with NDEBUG)
 *   invalid_cstr     UTF8_ASSERT_VALID_CSTR on an overlong form: aborts (not with NDEBUG)
 *   null             UTF8_ASSERT_VALID on NULL with length 3: aborts (not with NDEBUG)
 *   side_effect      UTF8_ASSERT_VALID(bad, i++ + ...): with NDEBUG, i stays 0
 *   check_or_return  UTF8_CHECK_OR_RETURN(_VOID) on bad input: logs and returns
 *
 * The test finds the expected __LINE__ of each macro by the marker comment on it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "utf8validate.h"

/* "ok " then a surrogate ED A0 80 at byte 3. */
static const unsigned char bad[] = {'o', 'k', ' ', 0xED, 0xA0, 0x80, '!'};
/* "path" then the overlong C0 AF at byte 4. */
static const char bad_cstr[] = "path\xC0\xAF" "etc";
/* "Grüße" */
static const uint8_t good[] = {'G', 'r', 0xC3, 0xBC, 0xC3, 0x9F, 'e'};

static void store_name(const unsigned char *name, size_t len) {
  UTF8_ASSERT_VALID(name, len); /* @assert-buffer */
  /* Uses name outside the assertion too: with NDEBUG, a parameter used only in
     UTF8_ASSERT_VALID is unused (-Wunused-parameter), as with assert(). */
  printf("stored %u bytes%s\n", (unsigned)len, name == NULL ? " (none)" : "");
}

static void store_title(const char *title) {
  UTF8_ASSERT_VALID_CSTR(title); /* @assert-cstr */
  printf("stored %s\n", title);
}

static int parse_name(const unsigned char *name, size_t len) {
  UTF8_CHECK_OR_RETURN(name, len, -1); /* @check-or-return */
  return (int)len;
}

static void log_line(const uint8_t *line, size_t n) {
  UTF8_CHECK_OR_RETURN_VOID(line, n); /* @check-or-return-void */
  printf("logged %u bytes\n", (unsigned)n);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "valid") == 0) {
    size_t evaluated = 0;
    UTF8_ASSERT_VALID(good, (evaluated++, sizeof good));
    UTF8_ASSERT_VALID_CSTR("caf\xC3\xA9");
    UTF8_ASSERT_VALID((const char *)NULL, 0);
    store_name(good, sizeof good);
    store_title("na\xC3\xAFve");
    printf("parse_name returned %d\n", parse_name(good, sizeof good));
    log_line(good, sizeof good);
    printf("passed, length evaluated %u times\n", (unsigned)evaluated);
  } else if (strcmp(mode, "invalid") == 0) {
    store_name(bad, sizeof bad);
    puts("survived");
  } else if (strcmp(mode, "invalid_cstr") == 0) {
    store_title(bad_cstr);
    puts("survived");
  } else if (strcmp(mode, "null") == 0) {
    store_name(NULL, 3);
    puts("survived");
  } else if (strcmp(mode, "side_effect") == 0) {
    size_t i = 0;
    UTF8_ASSERT_VALID(bad, i++ + sizeof bad); /* @side-effect */
    printf("survived, i = %u\n", (unsigned)i);
  } else if (strcmp(mode, "check_or_return") == 0) {
    printf("parse_name returned %d\n", parse_name(bad, sizeof bad));
    log_line(bad, sizeof bad);
    puts("returned");
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  return 0;
}
