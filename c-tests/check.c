/* check.c: counters, failure reporting and the exact-copy wrappers of check.h. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* An exact-size heap copy of bytes[0..len): one byte past it is outside the block. */
static unsigned char *exact_copy(const void *bytes, size_t len)
{
    unsigned char *copy = (unsigned char *)malloc(len ? len : 1);
    if (copy == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (len) {
        memcpy(copy, bytes, len);
    }
    return copy;
}

/* Fails the suite if the library changed its const input; then frees the copy. */
static void release_copy(unsigned char *copy, const void *bytes, size_t len, const char *fn)
{
    if (len && memcmp(copy, bytes, len) != 0) {
        check_fail(__FILE__, __LINE__, "%s modified its input [%s]", fn, hex(bytes, len));
    }
    free(copy);
}

bool t_validate(const void *bytes, size_t len)
{
    unsigned char *copy = exact_copy(bytes, len);
    bool result = utf8_validate((const char *)copy, len);
    release_copy(copy, bytes, len, "utf8_validate");
    return result;
}

size_t t_first_error(const void *bytes, size_t len)
{
    unsigned char *copy = exact_copy(bytes, len);
    size_t result = utf8_first_error((const char *)copy, len);
    release_copy(copy, bytes, len, "utf8_first_error");
    return result;
}

utf8_state t_chunk(utf8_state state, const void *bytes, size_t len)
{
    unsigned char *copy = exact_copy(bytes, len);
    utf8_state result = utf8_validate_chunk(state, (const char *)copy, len);
    release_copy(copy, bytes, len, "utf8_validate_chunk");
    return result;
}
