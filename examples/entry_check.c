/*
 * entry_check: a line-oriented entry check built on libutf8validate.
 *
 * Reads requests, one per line ('\n'-terminated; the newline is not part of the
 * request; a last line without one is a request too). A request that is well-formed
 * UTF-8 is passed through to standard output unchanged. A request that is not is
 * dropped, and one log line goes to standard error that says where its first
 * ill-formed sequence is, why, and which bytes are around it, escaped so that the
 * log stays one line of valid UTF-8 and the original bytes can be recovered:
 *
 *     rejected request 2: offset=4 length=1 kind=surrogate message="A UTF-16
 *     surrogate (U+D800-U+DFFF) is encoded, which is not a scalar value."
 *     bytes=0..11 value="abc \xED\xA0\x80 def"
 *
 * (one line). N counts requests from 1; the fields after the colon are
 * utf8_log_fields(): the offset and length of the maximal subpart in the request,
 * utf8_error_kind_name() and utf8_error_kind_message(), and the bytes A to B - 1 of
 * the request, up to LOG_CONTEXT bytes each side of the error (whole characters),
 * rendered by utf8_escape_quoted(). The window is cut from the bytes at hand when
 * the error is found (utf8_tail_window()), so it shows the error wherever it lies
 * in the request, but the bytes after it only up to the end of the read in which
 * the stream found it. Requests longer than MAX_REQUEST bytes are rejected; one that is
 * also ill-formed is logged as ill-formed.
 *
 * Input is read in blocks of at most READ_BLOCK bytes and each block's part of the
 * current request is fed to a utf8_stream, so a request is checked as it arrives,
 * even when a multi-byte character is split between two reads, and given to a
 * utf8_tail, which keeps the last bytes for the window; utf8_stream_finish() at the
 * newline gives the verdict. Only MAX_REQUEST bytes of a request are kept, for
 * passing it through: the check and the window need none of them.
 *
 * Usage:
 *     entry_check                      requests from standard input
 *     entry_check --port P [--max-connections N]
 *         requests from TCP connections on 127.0.0.1:P (loopback only; P = 0 picks a
 *         free port), one connection at a time, N connections (default 1) and then
 *         exit. Prints "listening on 127.0.0.1:<port>" on standard error once ready,
 *         and answers each request on its connection with "ok\n" or "rejected\n".
 *         A connection idle for IDLE_SECONDS is closed.
 *
 * Exit status: 0 if every request was accepted, 1 if any was rejected, 2 on a usage,
 * read, write or socket error.
 *
 * Build (see examples/README.md):
 *     cc -std=c99 -Wall -Wextra -pedantic -Iinclude examples/entry_check.c \
 *        target/release/libutf8validate.a -lpthread -ldl -lm -o entry_check
 */
#define _POSIX_C_SOURCE 200112L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "utf8validate.h"

#ifndef READ_BLOCK
#define READ_BLOCK 4096
#endif
#define MAX_REQUEST 65536
#define LOG_CONTEXT 32 /* bytes shown each side of an error; <= UTF8_TAIL_CONTEXT_MAX */
#define IDLE_SECONDS 10

static char request[MAX_REQUEST];
static size_t request_len;   /* bytes kept in request[] */
static int request_too_long; /* more than MAX_REQUEST bytes arrived */
static unsigned long request_no;
static utf8_stream stream;
static utf8_tail tail; /* the last bytes fed, for the window around an error */
static int rejected_any;

/* Once the stream has refused the request: its first error, and the bytes around
 * it (window[0..span.end - span.start) are the request's bytes span.start on). */
static int request_failed;
static utf8_error request_error;
static char window[2 * LOG_CONTEXT + 3];
static utf8_span window_span;

static void start_request(void) {
    request_len = 0;
    request_too_long = 0;
    request_failed = 0;
    utf8_stream_init(&stream);
    utf8_tail_init(&tail);
}

/* The stream refused the piece part[0..n) of the request (NULL, 0: its end, when
 * utf8_stream_finish refused it): keep the error and the window around it now,
 * while the piece is at hand. */
static void reject_request(const char *part, size_t n) {
    (void)utf8_stream_finish(&stream, &request_error);
    window_span = utf8_tail_window(&tail, part, n, &request_error, LOG_CONTEXT, window,
                                   sizeof window);
    request_failed = 1;
}

/* Part of the current request arrived: check it and keep it. */
static void add_to_request(const char *part, size_t n) {
    if (request_failed) {
        return; /* the rest of a rejected request is not looked at */
    }
    if (!utf8_stream_feed(&stream, part, n)) {
        reject_request(part, n);
        return;
    }
    utf8_tail_keep(&tail, part, n);
    if (n > MAX_REQUEST - request_len) {
        n = MAX_REQUEST - request_len;
        request_too_long = 1;
    }
    memcpy(request + request_len, part, n);
    request_len += n;
}

/* Writes all of buf[0..n) to the file descriptor fd. */
static int write_all(int fd, const char *buf, size_t n) {
    while (n > 0) {
        ssize_t done = write(fd, buf, n);
        if (done < 0 && errno == EINTR) {
            continue;
        }
        if (done <= 0) {
            return -1;
        }
        buf += done;
        n -= (size_t)done;
    }
    return 0;
}

/* The request is complete: pass it through or log why it was rejected, and answer
 * on reply_fd unless it is -1. Returns 0, or -1 on a write error. */
static int end_request(int reply_fd) {
    /* Long enough for the whole text (see utf8_log_fields), and the NUL. */
    char fields[UTF8_LOG_FIELDS_FIXED + 4 * (2 * LOG_CONTEXT + 3) + 1];
    int accepted;

    request_no++;
    if (!request_failed && !utf8_stream_finish(&stream, NULL)) {
        reject_request(NULL, 0); /* it ends inside a character */
    }
    accepted = !request_failed && !request_too_long;
    if (accepted) {
        /* Flushed at once when serving connections, for whoever reads stdout. */
        if (fwrite(request, 1, request_len, stdout) != request_len || putchar('\n') == EOF ||
            (reply_fd >= 0 && fflush(stdout) != 0)) {
            return -1;
        }
    } else if (request_failed) {
        /* The value is escaped: the text is valid UTF-8 on one line, without NULs. */
        (void)utf8_log_fields(&request_error, window, window_span.end - window_span.start,
                              window_span.start, LOG_CONTEXT, fields, sizeof fields);
        fprintf(stderr, "rejected request %lu: %s\n", request_no, fields);
    } else {
        fprintf(stderr, "rejected request %lu: longer than %d bytes\n", request_no,
                MAX_REQUEST);
    }
    if (!accepted) {
        rejected_any = 1;
    }
    if (reply_fd >= 0) {
        return accepted ? write_all(reply_fd, "ok\n", 3) : write_all(reply_fd, "rejected\n", 9);
    }
    return 0;
}

/* Checks every request read from in_fd until end of input. Returns 0, or -1 on a
 * read or write error. A read that times out (an idle connection) ends the input. */
static int process(int in_fd, int reply_fd) {
    static char block[READ_BLOCK];
    int in_request = 0;

    start_request();
    for (;;) {
        const char *p = block;
        const char *end;
        ssize_t got = read(in_fd, block, sizeof block);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            fprintf(stderr, "connection idle for %d s: closed\n", IDLE_SECONDS);
            break;
        }
        if (got < 0) {
            return -1;
        }
        if (got == 0) {
            break;
        }
        end = block + got;
        while (p < end) {
            const char *newline = memchr(p, '\n', (size_t)(end - p));
            const char *stop = newline ? newline : end;
            add_to_request(p, (size_t)(stop - p));
            in_request = 1;
            if (!newline) {
                break;
            }
            if (end_request(reply_fd) != 0) {
                return -1;
            }
            start_request();
            in_request = 0;
            p = newline + 1;
        }
    }
    /* A last request without a newline. */
    if (in_request && end_request(reply_fd) != 0) {
        return -1;
    }
    return 0;
}

/* Serves max_connections connections on 127.0.0.1:port, one after the other. */
static int serve(unsigned port, unsigned long max_connections) {
    struct sockaddr_in addr;
    socklen_t addr_len = sizeof addr;
    struct timeval idle;
    unsigned long served;
    int one = 1;
    int listener = socket(AF_INET, SOCK_STREAM, 0);

    if (listener < 0) {
        perror("socket");
        return -1;
    }
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* never another interface */
    if (setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(listener, 4) != 0 ||
        getsockname(listener, (struct sockaddr *)&addr, &addr_len) != 0) {
        perror("listen on 127.0.0.1");
        close(listener);
        return -1;
    }
    fprintf(stderr, "listening on 127.0.0.1:%u\n", (unsigned)ntohs(addr.sin_port));

    idle.tv_sec = IDLE_SECONDS;
    idle.tv_usec = 0;
    for (served = 0; served < max_connections;) {
        int status;
        int conn = accept(listener, NULL, NULL);
        if (conn < 0 && errno == EINTR) {
            continue;
        }
        if (conn < 0) {
            perror("accept");
            close(listener);
            return -1;
        }
        (void)setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle);
        served++;
        status = process(conn, conn);
        close(conn);
        if (status != 0) {
            close(listener);
            return -1;
        }
    }
    close(listener);
    return 0;
}

/* Parses a decimal number in [min, max] into *value; returns 0 on success. */
static int parse_number(const char *text, unsigned long min, unsigned long max,
                        unsigned long *value) {
    char *end;
    if (text == NULL || *text < '0' || *text > '9') {
        return -1;
    }
    errno = 0;
    *value = strtoul(text, &end, 10);
    return errno == 0 && *end == '\0' && *value >= min && *value <= max ? 0 : -1;
}

int main(int argc, char **argv) {
    unsigned long port = 0;
    unsigned long max_connections = 1;
    int use_socket = 0;
    int status;
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && parse_number(argv[i + 1], 0, 65535, &port) == 0) {
            use_socket = 1;
            i++;
        } else if (strcmp(argv[i], "--max-connections") == 0 &&
                   parse_number(argv[i + 1], 1, 1000000, &max_connections) == 0) {
            i++;
        } else {
            fprintf(stderr, "usage: %s [--port P [--max-connections N]]\n", argv[0]);
            return 2;
        }
    }
    status = use_socket ? serve((unsigned)port, max_connections) : process(0, -1);
    if (status != 0 || fflush(stdout) != 0) {
        return 2;
    }
    return rejected_any ? 1 : 0;
}
