/* check.c: counters, failure reporting and the guarded-copy wrappers of check.h. */
#define _DEFAULT_SOURCE /* guard.h on POSIX systems: MAP_ANONYMOUS */

#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

/* Failures beyond this many are counted but not printed, to keep logs readable. */
#define MAX_PRINTED_FAILURES 200

static unsigned long passed;
static unsigned long failed;

static void print_failure(const char *file, int line, const char *expr, const char *fmt,
                          va_list args)
{
    if (failed > MAX_PRINTED_FAILURES) {
        return;
    }
    if (failed == MAX_PRINTED_FAILURES) {
        printf("(further failures are counted but not printed)\n");
        return;
    }
    printf("FAIL %s:%d: %s: ", file, line, expr);
    vprintf(fmt, args);
    printf("\n");
}

void check_record(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
{
    if (ok) {
        passed++;
        return;
    }
    {
        va_list args;
        va_start(args, fmt);
        print_failure(file, line, expr, fmt, args);
        va_end(args);
    }
    failed++;
}

void check_fail(const char *file, int line, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    print_failure(file, line, "(wrapper)", fmt, args);
    va_end(args);
    failed++;
}

int check_summary(void)
{
    printf("%lu passed, %lu failed\n", passed, failed);
    fflush(stdout);
    return failed == 0 ? 0 : 1;
}

const char *hex(const void *bytes, size_t len)
{
    /* A few rotating buffers, so one message can format several byte strings. */
    static char buffers[4][3 * 64 + 8];
    static unsigned next;
    char *out = buffers[next++ % 4];
    const unsigned char *b = (const unsigned char *)bytes;
    size_t i, pos = 0;
    for (i = 0; i < len && i < 64; i++) {
        pos += (size_t)sprintf(out + pos, i ? " %02X" : "%02X", b[i]);
    }
    if (i < len) {
        strcpy(out + pos, " ...");
    } else {
        out[pos] = '\0';
    }
    return out;
}

const char *state_name(utf8_state state)
{
    static const char *const names[] = {"START", "A", "B", "C", "D", "E", "F", "G", "ERROR"};
    unsigned raw = (unsigned)state;
    return raw < sizeof names / sizeof names[0] ? names[raw] : "(out of range)";
}

/*
 * Where the wrappers put their copies: [no-access page][GUARDED_CAPACITY bytes,
 * rounded up to pages][no-access page] (guard.h). A copy either ends at the last
 * readable byte or starts at the first one (a pseudo-random choice, so that no function
 * is tied to one edge by the order of calls), so a read just outside it faults.
 */
#define GUARDED_CAPACITY 4096
static unsigned char *guarded;      /* the first readable byte */
static size_t guarded_size;         /* readable bytes */
static unsigned long edge_bits = 0x2545F491UL; /* xorshift32 state: picks the edge */

static void map_guarded_area(void)
{
    size_t page = guard_page_size();
    guarded_size = (GUARDED_CAPACITY + page - 1) / page * page;
    guarded = guard_alloc(guarded_size);
}

/* A copy of bytes[0..len) against a no-access page, with continuation bytes (0x80)
   on its other side, so reading them would also change a truncated input's answer. */
static unsigned char *guarded_copy(const void *bytes, size_t len)
{
    unsigned char *copy;
    size_t pad;
    if (guarded == NULL) {
        map_guarded_area();
    }
    if (len > GUARDED_CAPACITY) {
        fprintf(stderr, "c-tests: input of %lu bytes exceeds GUARDED_CAPACITY\n",
                (unsigned long)len);
        exit(2);
    }
    pad = len + 16 <= guarded_size ? 16 : 0;
    edge_bits ^= (edge_bits << 13) & 0xFFFFFFFFUL;
    edge_bits ^= edge_bits >> 17;
    edge_bits ^= (edge_bits << 5) & 0xFFFFFFFFUL;
    if (edge_bits & 1) {
        copy = guarded + guarded_size - len; /* ends where the no-access page begins */
        memset(copy - pad, 0x80, pad);
    } else {
        copy = guarded; /* starts where the no-access page ends */
        memset(copy + len, 0x80, pad);
    }
    if (len) {
        memcpy(copy, bytes, len);
    }
    return copy;
}

/* Fails the suite if the library changed its const input. */
static void check_unchanged(const unsigned char *copy, const void *bytes, size_t len,
                            const char *fn)
{
    if (len && memcmp(copy, bytes, len) != 0) {
        check_fail(__FILE__, __LINE__, "%s modified its input [%s]", fn, hex(bytes, len));
    }
}

bool t_validate(const void *bytes, size_t len)
{
    const unsigned char *copy = guarded_copy(bytes, len);
    bool result = utf8_validate((const char *)copy, len);
    check_unchanged(copy, bytes, len, "utf8_validate");
    return result;
}

size_t t_first_error(const void *bytes, size_t len)
{
    const unsigned char *copy = guarded_copy(bytes, len);
    size_t result = utf8_first_error((const char *)copy, len);
    check_unchanged(copy, bytes, len, "utf8_first_error");
    return result;
}

const char *t_guarded(const void *bytes, size_t len)
{
    return (const char *)guarded_copy(bytes, len);
}

utf8_state t_chunk(utf8_state state, const void *bytes, size_t len)
{
    const unsigned char *copy = guarded_copy(bytes, len);
    utf8_state result = utf8_validate_chunk(state, (const char *)copy, len);
    check_unchanged(copy, bytes, len, "utf8_validate_chunk");
    return result;
}
