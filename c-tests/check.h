/*
 * check.h: the C test suite's tiny assertion layer, shared by every test file.
 *
 * CHECK(cond, fmt, ...) counts one check; when `cond` is false it prints
 * "FAIL file:line: cond: <message>" to stdout. check_summary() prints the suite's
 * last line, exactly "N passed, M failed", and returns the process exit status.
 *
 * The t_* wrappers call the library on a copy of the input placed against a page that
 * cannot be read (guard.h): the copy ends just before such a page or starts just after
 * one, so that every call in the suite is also an over-read test: a read just outside
 * the input faults. They fail the suite if the library wrote to its input.
 */
#ifndef C_TESTS_CHECK_H
#define C_TESTS_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "utf8validate.h"

/* MinGW-w64: the format style of its printf (C99's, with %zu, in C99 mode). */
#if defined(__MINGW_PRINTF_FORMAT)
#define CHECK_PRINTF(fmt_index, first_arg)                                                 \
    __attribute__((format(__MINGW_PRINTF_FORMAT, fmt_index, first_arg)))
#elif defined(__GNUC__)
#define CHECK_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CHECK_PRINTF(fmt_index, first_arg)
#endif

/* Records one check; prints the failing case (with file:line) when ok is 0. */
void check_record(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
    CHECK_PRINTF(5, 6);

/* A failure found outside a CHECK (e.g. by a wrapper): always counts as failed. */
void check_fail(const char *file, int line, const char *fmt, ...) CHECK_PRINTF(3, 4);

#define CHECK(cond, ...) check_record((cond) ? 1 : 0, __FILE__, __LINE__, #cond, __VA_ARGS__)

/* Prints "N passed, M failed" and returns 0 if M == 0, 1 otherwise. */
int check_summary(void);

/* Formats bytes as "41 E2 89" into a static buffer (for failure messages only). */
const char *hex(const void *bytes, size_t len);

/* The public functions, called on a guarded copy of bytes[0..len) (at most 4096). */
bool t_validate(const void *bytes, size_t len);
size_t t_first_error(const void *bytes, size_t len);
utf8_state t_chunk(utf8_state state, const void *bytes, size_t len);
/* A guarded copy of bytes[0..len) (valid until the next t_* call), for the functions
   that have no wrapper. */
const char *t_guarded(const void *bytes, size_t len);

/* The draft's state names, for messages. */
const char *state_name(utf8_state state);

/* The test groups (one file each), run by test_main.c in this order. */
void test_state_machine(void);
void test_examples(void);
void test_never_used(void);
void test_chunks(void);
void test_server(void);
void test_server_pieces(void);

#endif /* C_TESTS_CHECK_H */
