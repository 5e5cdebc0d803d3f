/*
 * entry_check: a line-oriented entry check built on libutf8validate.
 *
 * Reads requests from standard input, one per line ('\n'-terminated; the newline is
 * not part of the request). A request that is well-formed UTF-8 is passed through to
 * standard output unchanged. A request that is not is dropped, and one log line goes
 * to standard error, in which the request is escaped so that the log stays valid
 * UTF-8 and the original bytes can be recovered:
 *
 *     rejected request 2: invalid UTF-8 at byte 5 (surrogate): abc \xED\xA0\x80 def
 *
 * N counts requests from 1; B is the offset of the first ill-formed sequence from the
 * start of the request; the kind is utf8_error_kind_name(). The escaped text is cut
 * (at a whole character or escape) after LOG_TEXT_MAX bytes and then ends in "...".
 *
 * Input is read in blocks of READ_BLOCK bytes and each block's part of the current
 * request is fed to a utf8_stream, so a request is checked as it arrives, even when a
 * multi-byte character is split between two reads; utf8_stream_finish() at the
 * newline gives the verdict. Requests longer than MAX_REQUEST bytes are rejected.
 *
 * Exit status: 0 if every request was accepted, 1 if any was rejected, 2 on a read or
 * write error.
 *
 * Build (see examples/README.md):
 *     cc -std=c99 -Wall -Wextra -pedantic -Iinclude examples/entry_check.c \
 *        target/release/libutf8validate.a -lpthread -ldl -lm -o entry_check
 */
#include <stdio.h>
#include <string.h>

#include "utf8validate.h"

#ifndef READ_BLOCK
#define READ_BLOCK 4096
#endif
#define MAX_REQUEST 65536
#define LOG_TEXT_MAX 200

static char request[MAX_REQUEST];
static size_t request_len;      /* bytes kept in request[] */
static int request_too_long;    /* more than MAX_REQUEST bytes arrived */
static unsigned long request_no;
static utf8_stream stream;
static int rejected_any;

static void start_request(void) {
    request_len = 0;
    request_too_long = 0;
    utf8_stream_init(&stream);
}

/* Part of the current request arrived: check it and keep it. */
static void add_to_request(const char *part, size_t n) {
    /* The verdict is read at the end of the request; the return value only says
     * whether an error has already been seen. */
    (void)utf8_stream_feed(&stream, part, n);
    if (n > MAX_REQUEST - request_len) {
        n = MAX_REQUEST - request_len;
        request_too_long = 1;
    }
    memcpy(request + request_len, part, n);
    request_len += n;
}

/* The request is complete: pass it through or log why it was rejected. */
static int end_request(void) {
    utf8_error err;
    char shown[LOG_TEXT_MAX + 1];
    size_t needed;

    request_no++;
    if (utf8_stream_finish(&stream, &err) && !request_too_long) {
        if (fwrite(request, 1, request_len, stdout) != request_len || putchar('\n') == EOF) {
            return -1;
        }
        return 0;
    }
    rejected_any = 1;
    if (err.kind == UTF8_ERROR_NONE) {
        fprintf(stderr, "rejected request %lu: longer than %d bytes\n", request_no,
                MAX_REQUEST);
        return 0;
    }
    /* Escaping always gives valid UTF-8 without NUL bytes; when it does not fit it
     * stops at a whole character or escape and says how much it needed. */
    needed = utf8_escape(request, request_len, shown, sizeof shown);
    fprintf(stderr, "rejected request %lu: invalid UTF-8 at byte %lu (%s): %s%s\n",
            request_no, (unsigned long)err.offset, utf8_error_kind_name(err.kind), shown,
            needed >= sizeof shown || request_too_long ? "..." : "");
    return 0;
}

int main(void) {
    static char block[READ_BLOCK];
    size_t got;
    int in_request = 0;

    start_request();
    while ((got = fread(block, 1, sizeof block, stdin)) > 0) {
        const char *p = block;
        const char *end = block + got;
        while (p < end) {
            const char *newline = memchr(p, '\n', (size_t)(end - p));
            const char *stop = newline ? newline : end;
            add_to_request(p, (size_t)(stop - p));
            in_request = 1;
            if (!newline) {
                break;
            }
            if (end_request() != 0) {
                return 2;
            }
            start_request();
            in_request = 0;
            p = newline + 1;
        }
    }
    if (ferror(stdin)) {
        return 2;
    }
    /* A last request without a newline. */
    if (in_request && end_request() != 0) {
        return 2;
    }
    if (fflush(stdout) != 0) {
        return 2;
    }
    return rejected_any ? 1 : 0;
}
