/*
 * A program for the gdb and lldb tests (tests/gdb.rs, .ci/lldb_tests.py) and the
 * README's "Debugging" sessions: it holds buffers of every shape utf8-check reads and
 * hands four requests to handle_request(), two of them ill-formed (ids 2 and 4).
 *
 * Build: cc -g -O0 -I include c-tests/gdb/requests.c target/release/libutf8validate.a -o requests
 * (utf8-check loads target/release/libutf8validate.so into the debugger itself).
 * The bytes here are repeated in tests/gdb.rs and .ci/lldb_tests.py, whose oracles
 * (Rust's std::str::from_utf8, utf8check) give the expected reports.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c99 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "utf8validate.h"

struct request {
  int id;
  const char *body;
  size_t len;
};

/* Valid: "Grüße, Zürich\n€ 5" (umlauts, sharp s, euro sign over two lines). */
static const char greeting[] = "Gr\xC3\xBC\xC3\x9F" "e, Z\xC3\xBCrich\n\xE2\x82\xAC 5";
/* Invalid: line 2 holds a surrogate (ED A0 80) after "caf\xC3\xA9 ". */
static const unsigned char surrogate[] = "ok\ncaf\xC3\xA9 \xED\xA0\x80 end";
/* Invalid: a truncated 4-byte sequence (F0 9F 98) at the very end. */
static const uint8_t truncated[] = {'e', 'm', 'o', 'j', 'i', ':', ' ', 0xF0, 0x9F, 0x98};

static int handled;
static int rejected;

/* Rejects a request whose body is not UTF-8; noinline so that a breakpoint on it is
   hit once per call at any optimisation level. */
__attribute__((noinline)) int handle_request(const struct request *req) {
  handled++;
  if (!utf8_validate(req->body, req->len)) {
    rejected++;
    return -1;
  }
  return req->id;
}

__attribute__((noinline)) void checkpoint(void) {}

/* 16 bytes of 'a' without a NUL, right before an unmapped page: reading on up to a
   NUL must stop with an error there. */
static char *before_unmapped_page(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED || munmap(p + page, page) != 0) {
    perror("mmap");
    exit(1);
  }
  memset(p, 'a', page);
  return p + page - 16;
}

int main(void) {
  /* A char[N] array: "naïve" then NULs up to its 16 bytes (all valid). */
  char name[16] = "na\xC3\xAFve";
  /* A NUL-terminated string with an overlong encoding (C0 AF) at byte 4. */
  const char *cstr = "path\xC0\xAF" "etc";
  /* A valid NUL-terminated string. */
  const char *word = "\xCE\xBA\xCF\x8C\xCF\x83\xCE\xBC\xCE\xB5";
  struct request requests[4] = {
      {1, greeting, sizeof greeting - 1},
      {2, (const char *)surrogate, sizeof surrogate - 1},
      {3, word, 10},
      {4, (const char *)truncated, sizeof truncated},
  };
  const char *edge = before_unmapped_page();
  /* A NUL-terminated string longer than utf8-check searches for its NUL (1 MiB). */
  size_t big_size = (size_t)2 << 20;
  char *big = malloc(big_size);
  size_t i;
  int total = 0;

  if (big == NULL) {
    return 1;
  }
  memset(big, 'a', big_size - 1);
  big[big_size - 1] = '\0';

  checkpoint(); /* the tests stop here and run utf8-check */
  for (i = 0; i < sizeof requests / sizeof requests[0]; i++) {
    total += handle_request(&requests[i]);
  }
  printf("handled %d requests, rejected %d (%d) %s %s %s %c %u\n", handled, rejected, total,
         name, cstr, word, edge[0], (unsigned)strlen(big));
  free(big);
  return 0;
}

/* char[8] arrays with a NUL inside, for $utf8_valid and $utf8_first_error in
   breakpoint conditions (file scope: visible in every frame): "id", NUL, an
   ill-formed byte (FF) at byte 3 and "ok"; and "id", NUL, "ok\xC3\xA9" (valid). Up
   to their first NUL both are valid. Here at the end so that the lines above, which
   docs/debugging.md shows, keep their numbers; `used`: nothing reads them. */
__attribute__((used)) static char record[8] = "id\0\xFF" "ok";
__attribute__((used)) static char record_ok[8] = "id\0" "ok\xC3\xA9";
