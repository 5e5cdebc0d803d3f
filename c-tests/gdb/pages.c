/*
 * A program for the tests of utf8-check on input larger than any chunk it reads at
 * once (tests/gdb.rs, .ci/lldb_tests.py): it places the buffers a test describes in
 * a file where the test says, relative to page boundaries, and stops in checkpoint()
 * for the debugger. The bytes come from the test, which also holds the oracle.
 *
 * Usage: pages CASES-FILE
 *
 * The file is a sequence of buffers, each of native-endian 64-bit words:
 *   place offset length flags npatches, then npatches times: at size BYTES (size bytes)
 * - place: 0 on the heap, in a mapping of its own followed by an unmapped page; 1 in
 *   stack_area, main()'s page-aligned array of 1 MiB (on the stack, so in lldb's
 *   stack-only core files), at the next page boundary after the previous one there,
 *   plus `offset` (the rest of stack_area is zeros);
 * - offset: where its byte 0 goes after a 4096-aligned address (a page boundary);
 * - length: its bytes, then a NUL unless flags has NO_NUL;
 * - flags: NO_NUL 1, ASCII 2 (filled with 'a' rather than with PATTERN), SPLIT 4
 *   (on the heap, its pages from the first page boundary after its middle are made
 *   read-only: a mapping of their own, and a section of their own in a core file);
 * - the bytes are the filler (byte i is PATTERN[i % 10], or 'a'), then each patch's
 *   BYTES copied over it at `at`.
 * Buffer i is bufs[i] in main(); on the heap, the first unreadable byte after it is
 * the first page boundary (of the system's page size) after its bytes and NUL.
 *
 * Build: cc -std=c99 -g -O0 c-tests/gdb/pages.c -o pages
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c99 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_BUFFERS 4096
#define ALIGN 4096
#define STACK_AREA (1 << 20)

enum { ON_HEAP = 0, ON_STACK = 1 };
enum { NO_NUL = 1, ASCII = 2, SPLIT = 4 };

/* Valid UTF-8 of 1, 2, 3 and 4 bytes ("aé€😀"): 10 bytes, so page boundaries (4096
   apart) cut its characters at every place in turn. */
static const unsigned char PATTERN[10] = {'a', 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80};

/* The system's page size, for the tests (where the unmapped page after a heap
   buffer starts). */
long page_size;
/* How many buffers the file described. */
size_t buffer_count;

__attribute__((noinline)) void checkpoint(void) {}

static void fail(const char *what) {
  perror(what);
  exit(2);
}

static uint64_t word(FILE *f) {
  uint64_t w;
  if (fread(&w, sizeof w, 1, f) != 1) {
    fprintf(stderr, "pages: the cases file ends inside a buffer\n");
    exit(2);
  }
  return w;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* The filler: PATTERN repeated from byte 0, or 'a'. Doubling copies keep the period
   of 10 (each copy is 10 * 2^k bytes long). */
static void fill(unsigned char *p, size_t n, int ascii) {
  size_t done;
  if (ascii) {
    memset(p, 'a', n);
    return;
  }
  done = n < sizeof PATTERN ? n : sizeof PATTERN;
  memcpy(p, PATTERN, done);
  while (done < n) {
    size_t step = done < n - done ? done : n - done;
    memcpy(p + done, p, step);
    done += step;
  }
}

/* A mapping of `span` bytes from a page boundary, followed by an unmapped page. */
static unsigned char *heap_pages(size_t span) {
  size_t page = (size_t)page_size;
  size_t mapped = round_up(span, page);
  unsigned char *p = mmap(NULL, mapped + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    fail("mmap");
  }
  if (munmap(p + mapped, page) != 0) {
    fail("munmap");
  }
  return p;
}

int main(int argc, char **argv) {
  /* Page-aligned, in main()'s frame (as is bufs, so both are in a stack-only core). */
  unsigned char stack_area[STACK_AREA] __attribute__((aligned(ALIGN)));
  unsigned char *bufs[MAX_BUFFERS];
  size_t stack_used = 0;
  FILE *f;
  int c;

  if (argc != 2) {
    fprintf(stderr, "usage: pages CASES-FILE\n");
    return 2;
  }
  memset(stack_area, 0, sizeof stack_area);
  page_size = sysconf(_SC_PAGESIZE);
  if (page_size < ALIGN || page_size % ALIGN != 0 || (uintptr_t)stack_area % ALIGN != 0) {
    fprintf(stderr, "pages: page size %ld or stack alignment unexpected\n", page_size);
    return 2;
  }
  f = fopen(argv[1], "rb");
  if (f == NULL) {
    fail(argv[1]);
  }
  while ((c = getc(f)) != EOF) {
    uint64_t place, offset, length, flags, patches, i;
    size_t span;
    unsigned char *base;
    ungetc(c, f);
    if (buffer_count == MAX_BUFFERS) {
      fprintf(stderr, "pages: more than %d buffers\n", MAX_BUFFERS);
      return 2;
    }
    place = word(f);
    offset = word(f);
    length = word(f);
    flags = word(f);
    patches = word(f);
    span = (size_t)(offset + length + (flags & NO_NUL ? 0 : 1));
    if (place == ON_STACK) {
      size_t at = round_up(stack_used, ALIGN);
      if (span > sizeof stack_area - at) {
        fprintf(stderr, "pages: stack_area is full\n");
        return 2;
      }
      base = stack_area + at;
      stack_used = at + span;
    } else {
      base = heap_pages(span);
    }
    bufs[buffer_count] = base + offset;
    fill(base + offset, (size_t)length, (flags & ASCII) != 0);
    if (!(flags & NO_NUL)) {
      base[offset + length] = '\0';
    }
    for (i = 0; i < patches; i++) {
      uint64_t at = word(f), size = word(f);
      if (at > length || size > length - at || fread(base + offset + at, 1, (size_t)size, f) != size) {
        fprintf(stderr, "pages: buffer %zu: bad patch at %llu\n", buffer_count, (unsigned long long)at);
        return 2;
      }
    }
    if (place != ON_STACK && (flags & SPLIT)) {
      size_t page = (size_t)page_size;
      size_t from = round_up((size_t)(offset + length / 2), page), to = round_up(span, page);
      if (from < to && mprotect(base + from, to - from, PROT_READ) != 0) {
        fail("mprotect");
      }
    }
    buffer_count++;
  }
  fclose(f);

  checkpoint(); /* the tests stop here and run utf8-check on bufs[i] */
  printf("%zu buffers, %zu bytes of stack_area, first byte %d\n", buffer_count, stack_used,
         buffer_count ? bufs[0][0] : 0);
  return 0;
}
