/*
 * test_server_pieces.c: the pieces of a server's entry check that sit around the
 * validator, against oracles written from the rules (oracle.h), never against the
 * library's own answers:
 * - utf8_check_query: every query of three arguments from a list of escapes, broken
 *   escapes and raw bytes, against oracle.h's decoding and grammar, argument by
 *   argument;
 * - utf8_tail_keep and utf8_tail_window: inputs with an error after long text, fed
 *   in pieces of sizes around the tail's 72 bytes and of a character, and cut into
 *   two pieces at every offset near the error; the window must be the one the
 *   unit boundaries of the whole input give, whichever piece the error arrived in
 *   (or the end of the input);
 * - utf8_log_fields: the text written from the grammar's error and window, its
 *   snprintf contract, and its documented bound.
 * Every input is a guarded copy (check.h): a read outside it faults.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "oracle.h"

#define MAX_INPUT 400

/* --- utf8_check_query ---------------------------------------------------------- */

static void query_case(const unsigned char *q, size_t n)
{
    static unsigned char decoded[MAX_INPUT];
    static size_t starts[MAX_INPUT + 1];
    size_t index = 0, start = 0, end, d;
    struct rfc3629_result bad = {true, 0, 0, 0, false};
    size_t bad_start = 0, bad_end = 0, raw_start = 0, raw_end = 0;
    utf8_query_error err;
    bool ok;

    /* the oracle: split at '&', decode and check each argument */
    for (;;) {
        struct rfc3629_result r;
        end = start;
        while (end < n && q[end] != '&') end++;
        index++;
        d = percent_decode(q + start, end - start, decoded, starts);
        r = rfc3629_check(decoded, d);
        if (!r.valid) {
            bad = r;
            bad_start = start;
            bad_end = end;
            raw_start = start + starts[r.offset];
            raw_end = start + starts[r.offset + r.length];
            break;
        }
        if (end == n) break;
        start = end + 1;
    }

    memset(&err, 0xA5, sizeof err);
    ok = utf8_check_query(t_guarded(q, n), n, '&', &err);
    CHECK(ok == bad.valid, "query verdict [%s]", hex(q, n));
    if (ok && bad.valid) {
        d = percent_decode(q, n, decoded, NULL);
        CHECK(err.index == 0 && err.argument.start == n && err.argument.end == n &&
                  err.raw.start == n && err.raw.end == n && err.error.offset == d &&
                  err.error.length == 0 && err.error.kind == UTF8_ERROR_NONE,
              "detail of a valid query [%s]", hex(q, n));
    } else if (!ok && !bad.valid) {
        CHECK(err.index == index && err.argument.start == bad_start &&
                  err.argument.end == bad_end,
              "argument %zu at %zu..%zu, want %zu at %zu..%zu [%s]", err.index,
              err.argument.start, err.argument.end, index, bad_start, bad_end, hex(q, n));
        CHECK(err.error.offset == bad.offset && err.error.length == bad.length &&
                  (err.error.kind == UTF8_ERROR_TRUNCATED) == bad.truncated,
              "decoded error %zu+%zu %s, want %zu+%zu [%s]", err.error.offset,
              err.error.length, utf8_error_kind_name(err.error.kind), bad.offset, bad.length,
              hex(q, n));
        CHECK(err.raw.start == raw_start && err.raw.end == raw_end,
              "raw %zu..%zu, want %zu..%zu [%s]", err.raw.start, err.raw.end, raw_start,
              raw_end, hex(q, n));
    }
    CHECK(utf8_check_query(t_guarded(q, n), n, '&', NULL) == bad.valid, "NULL err [%s]",
          hex(q, n));
}

static void queries(void)
{
    static const char *pieces[] = {"a=1", "", "%4", "%C3", "%A9", "\xC3", "\xA9", "%E2%82",
                                   "%ED%A0%80", "\xF0\x9F", "%C0%AF", "b=%C3%A9", "\xFF"};
    enum { PIECES = sizeof pieces / sizeof pieces[0] };
    static unsigned char q[MAX_INPUT];
    size_t i, j, k, n;
    utf8_query_error err;

    for (i = 0; i < PIECES; i++) {
        for (j = 0; j < PIECES; j++) {
            for (k = 0; k < PIECES; k++) {
                /* three arguments, and the same three pieces as one argument */
                n = (size_t)snprintf((char *)q, sizeof q, "%s&%s&%s", pieces[i], pieces[j],
                                     pieces[k]);
                query_case(q, n);
                n = (size_t)snprintf((char *)q, sizeof q, "%s%s%s", pieces[i], pieces[j],
                                     pieces[k]);
                query_case(q, n);
            }
        }
    }
    /* the documented example */
    CHECK(!utf8_check_query("a=1&b=%C0%AF", 12, '&', &err) && err.index == 2 &&
              err.argument.start == 4 && err.argument.end == 12 && err.raw.start == 6 &&
              err.raw.end == 9 && err.error.offset == 2 && err.error.length == 1 &&
              err.error.kind == UTF8_ERROR_OVERLONG,
          "the header's example");
    /* another separator */
    CHECK(!utf8_check_query("a=\xC3;b", 5, ';', &err) && err.index == 1 &&
              err.error.kind == UTF8_ERROR_TRUNCATED && err.argument.end == 3,
          "';' separates");
    CHECK(utf8_check_query("a=%C3%A9;b", 10, ';', NULL), "';' valid");
    /* a separator that is not ASCII: the query is checked whole */
    CHECK(!utf8_check_query("a\xFF" "b", 3, (char)0xFF, &err) && err.index == 0 &&
              err.argument.start == 0 && err.argument.end == 3 && err.error.offset == 1 &&
              err.raw.start == 1 && err.raw.end == 2,
          "a separator that is not ASCII");
    CHECK(!utf8_check_query(NULL, 3, '&', &err) && err.index == 0 &&
              err.error.kind == UTF8_ERROR_INVALID_BYTE && err.error.length == 0 &&
              err.argument.end == 0,
          "NULL query with length 3");
    CHECK(utf8_check_query(NULL, 0, '&', &err) && err.index == 0, "NULL query, length 0");
}

/* --- utf8_tail_keep and utf8_tail_window ---------------------------------------- */

/* The window the unit boundaries of s[0..n) give around its first error, with context
   bytes on each side (as test_server.c's window_case computes it), of the first
   avail bytes (those that have arrived): it ends at a boundary of the whole input. */
static utf8_span oracle_window(const unsigned char *s, size_t n, struct rfc3629_result r,
                               size_t context, size_t avail)
{
    static size_t cuts[MAX_INPUT + 1];
    size_t count = rfc3629_boundaries(s, n, cuts), c;
    size_t lo = r.offset > context ? r.offset - context : 0;
    size_t hi = r.offset + r.length + context < avail ? r.offset + r.length + context : avail;
    utf8_span w = {n, 0};
    for (c = 0; c < count; c++) {
        if (cuts[c] >= lo && cuts[c] < w.start) w.start = cuts[c];
        if (cuts[c] <= hi) w.end = cuts[c];
    }
    return w;
}

/* s[0..n) fed in the pieces that ends[] ends (the last end is n); the window of its
   first error, taken where the stream refuses it, must be the oracle's. */
static void tail_case(const unsigned char *s, size_t n, const size_t *ends, size_t pieces,
                      size_t context)
{
    static char out[2 * UTF8_TAIL_CONTEXT_MAX + 3 + 8];
    struct rfc3629_result r = rfc3629_check(s, n);
    utf8_stream st;
    utf8_tail t;
    utf8_error err;
    utf8_span got, want;
    size_t p, at = 0, cap = 2 * context + 3;
    const unsigned char *piece = NULL;
    size_t piece_len = 0;
    bool refused = false;

    utf8_stream_init(&st);
    utf8_tail_init(&t);
    for (p = 0; p < pieces && !refused; p++) {
        piece = s + at;
        piece_len = ends[p] - at;
        if (!utf8_stream_feed(&st, t_guarded(piece, piece_len), piece_len)) {
            refused = true;
            break;
        }
        utf8_tail_keep(&t, t_guarded(piece, piece_len), piece_len);
        at = ends[p];
    }
    if (!refused) {
        if (utf8_stream_finish(&st, NULL)) {
            CHECK(r.valid, "the stream accepted an ill-formed input [%s]", hex(s, n));
            return;
        }
        piece_len = 0; /* refused at the end of the input */
    }
    CHECK(!r.valid, "the stream refused a well-formed input [%s]", hex(s, n));
    utf8_stream_finish(&st, &err);
    CHECK(err.offset == r.offset && err.length == r.length, "the stream's error [%s]",
          hex(s, n));
    want = oracle_window(s, n, r, context, at + piece_len);
    memset(out, 0x5A, sizeof out);
    got = utf8_tail_window(&t, piece_len ? t_guarded(piece, piece_len) : NULL, piece_len,
                           &err, context, out, cap);
    CHECK(got.start == want.start && got.end == want.end,
          "window %zu..%zu, want %zu..%zu, context %zu, %zu pieces [%s]", got.start, got.end,
          want.start, want.end, context, pieces, hex(s, n));
    CHECK(memcmp(out, s + want.start, want.end - want.start) == 0 &&
              (unsigned char)out[want.end - want.start] == 0x5A,
          "window bytes, context %zu [%s]", context, hex(s, n));
}

static void tails(void)
{
    /* after a long prefix (more than the tail keeps), an error of each kind */
    static const char *errors[] = {"\x80", "\xED\xA0\x80", "\xE2\x82", "\xF0\x9F\x98",
                                   "\xC3"};
    static const char *fillers[] = {"abcdefgh", "\xC3\xA9", "\xF0\x9F\x98\x80"};
    static const size_t contexts[] = {1, UTF8_TAIL_CONTEXT_MAX};
    /* around the edges of the tail (72 bytes) and of a character */
    static const size_t sizes[] = {1, 2, 3, 5, 16, 69, 70, 71, 72, 73, 80};
    static unsigned char s[MAX_INPUT];
    static size_t ends[MAX_INPUT];
    size_t e, f, after, n, prefix, size, cut, pieces, c, at;

    for (e = 0; e < sizeof errors / sizeof errors[0]; e++) {
        for (f = 0; f < sizeof fillers / sizeof fillers[0]; f++) {
            for (after = 0; after < 2; after++) {
                n = 0;
                while (n < 90) {
                    memcpy(s + n, fillers[f], strlen(fillers[f]));
                    n += strlen(fillers[f]);
                }
                prefix = n;
                memcpy(s + n, errors[e], strlen(errors[e]));
                n += strlen(errors[e]);
                for (at = 0; after && at < 40; at += strlen(fillers[f])) {
                    memcpy(s + n, fillers[f], strlen(fillers[f]));
                    n += strlen(fillers[f]);
                }
                for (c = 0; c < sizeof contexts / sizeof contexts[0]; c++) {
                    for (size = 0; size < sizeof sizes / sizeof sizes[0]; size++) {
                        for (pieces = 0, at = 0; at < n; pieces++) {
                            at = at + sizes[size] < n ? at + sizes[size] : n;
                            ends[pieces] = at;
                        }
                        tail_case(s, n, ends, pieces, contexts[c]);
                    }
                    /* two pieces: cut every 7 bytes, and at every offset from the
                       first byte the window may show (context and 3 bytes before
                       the error, 3 more kept for the cut) to the end */
                    for (cut = 0; cut <= n; cut += cut + 72 < prefix ? 7 : 1) {
                        ends[0] = cut;
                        ends[1] = n;
                        tail_case(s, n, ends, 2, contexts[c]);
                    }
                }
            }
        }
    }
}

static void tail_edges(void)
{
    utf8_tail t;
    utf8_error err = {0, 1, UTF8_ERROR_INVALID_BYTE};
    char out[16];
    utf8_span w;

    utf8_tail_init(&t);
    utf8_tail_keep(&t, "abcdef", 6);
    utf8_tail_keep(NULL, "abc", 3);
    utf8_tail_keep(&t, NULL, 3); /* an unreadable piece is not kept */
    utf8_tail_init(NULL);
    err.offset = 7;
    memset(out, 0x5A, sizeof out);
    w = utf8_tail_window(&t, "g\xFFh", 3, &err, 2, out, sizeof out);
    CHECK(w.start == 5 && w.end == 9 && memcmp(out, "fg\xFFh", 4) == 0 && out[4] == 0x5A,
          "a small window: %zu..%zu", w.start, w.end);
    w = utf8_tail_window(&t, "g\xFFh", 3, &err, 2, out, 5);
    CHECK(w.start == 6 && w.end == 9, "out_cap 5 narrows the context to 1: %zu..%zu", w.start,
          w.end);
    w = utf8_tail_window(&t, "g\xFFh", 3, &err, 2, NULL, 16);
    CHECK(w.start == 7 && w.end == 7, "NULL out: the empty window at the error");
    err.offset = 1000;
    w = utf8_tail_window(&t, "g\xFFh", 3, &err, 2, out, sizeof out);
    CHECK(w.start == 9 && w.end == 9, "an error past the input: %zu..%zu", w.start, w.end);
    w = utf8_tail_window(NULL, "g\xFFh", 3, &err, 2, out, sizeof out);
    CHECK(w.start == 0 && w.end == 0, "NULL tail");
    w = utf8_tail_window(&t, "g\xFFh", 3, NULL, 2, out, sizeof out);
    CHECK(w.start == 0 && w.end == 0, "NULL error");
}

/* --- utf8_log_fields ------------------------------------------------------------- */

/* With every_cap, the snprintf contract for every out_cap; else the whole text. */
static void fields_case(const unsigned char *s, size_t n, size_t context, bool every_cap)
{
    static unsigned char value[4 * 64];
    static char want[UTF8_LOG_FIELDS_FIXED + 4 * 64], got[sizeof want + 8];
    size_t ends[4 * 64], units, len, cap, r;
    struct rfc3629_result e = rfc3629_check(s, n);
    utf8_error err;
    utf8_span w;

    if (e.valid) {
        return;
    }
    utf8_check((const char *)s, n, &err); /* only for the kind's name */
    w = oracle_window(s, n, e, context, n);
    units = rfc3629_render(s + w.start, w.end - w.start, RFC3629_QUOTED, value, ends);
    len = (size_t)snprintf(want, sizeof want,
                           "offset=%zu length=%zu kind=%s message=\"%s\" bytes=%zu..%zu "
                           "value=\"%.*s\"",
                           e.offset, e.length, utf8_error_kind_name(err.kind),
                           utf8_error_kind_message(err.kind), w.start, w.end,
                           (int)(units ? ends[units - 1] : 0), (const char *)value);
    err.offset = e.offset;
    err.length = e.length;
    for (cap = every_cap ? 0 : len + 1; cap <= len + 1; cap += cap < 8 || cap + 40 > len ? 1 : 13) {
        memset(got, 0x5A, sizeof got);
        r = utf8_log_fields(&err, t_guarded(s, n), n, 0, context, cap ? got : NULL, cap);
        CHECK(r == len, "length %zu, want %zu [%s]", r, len, hex(s, n));
        if (cap > 0) {
            size_t written = 0;
            while (written < cap && got[written] != 0) written++;
            CHECK(written < cap && memcmp(got, want, written) == 0 &&
                      (unsigned char)got[cap] == 0x5A,
                  "room for %zu: [%.*s], want a prefix of [%s]", cap, (int)written, got, want);
            CHECK(cap <= len || written == len, "room for all: [%s]", got);
        }
    }
    /* the same fields from a window of the bytes, with its offset */
    if (w.start > 0) {
        memset(got, 0x5A, sizeof got);
        r = utf8_log_fields(&err, t_guarded(s + w.start, n - w.start), n - w.start, w.start,
                            context, got, sizeof got);
        CHECK(r == len && strcmp(got, want) == 0, "from offset %zu: [%s]", w.start, got);
    }
}

static void log_fields(void)
{
    static const char *pieces[] = {"a", "\"", "\\", "\xC3\xA9", "\x80", "\xC0\xAF",
                                   "\xE2\x82", "\xED\xA0\x80", "\n", "\xF0\x9F\x98\x80"};
    enum { PIECES = sizeof pieces / sizeof pieces[0] };
    unsigned char s[32];
    size_t i, j, k, n, c;
    utf8_error err = {SIZE_MAX - 3, 3, UTF8_ERROR_UNEXPECTED_CONTINUATION};
    char out[UTF8_LOG_FIELDS_FIXED + 4 * (2 * 3 + 3) + 1];
    utf8_error_kind kind;

    for (i = 0; i < PIECES; i++) {
        for (j = 0; j < PIECES; j++) {
            for (k = 0; k < PIECES; k++) {
                n = (size_t)snprintf((char *)s, sizeof s, "%s%s%s", pieces[i], pieces[j],
                                     pieces[k]);
                for (c = 0; c < 4; c += 3) {
                    fields_case(s, n, c, (i + j + k) % 5 == 0);
                }
            }
        }
    }
    /* the documented bound, with the largest numbers and every kind, for 12 bytes
       of escapes (context 3) */
    memset(s, 0xFF, sizeof s);
    for (kind = UTF8_ERROR_NONE; kind <= UTF8_ERROR_INVALID_BYTE; kind++) {
        err.kind = kind;
        n = utf8_log_fields(&err, (const char *)s, 16, SIZE_MAX - 16, 3, out, sizeof out);
        CHECK(n < sizeof out && strlen(out) == n, "the bound, kind %d: %zu", (int)kind, n);
    }
    err.kind = (utf8_error_kind)99;
    n = utf8_log_fields(&err, (const char *)s, 16, 0, 3, out, sizeof out);
    CHECK(n == strlen(out) && strstr(out, "kind=unknown") != NULL, "an unknown kind: %s", out);
    CHECK(utf8_log_fields(NULL, "a", 1, 0, 3, out, sizeof out) == 0 && out[0] == 0,
          "NULL error");
    err.offset = 1;
    err.length = 1;
    n = utf8_log_fields(&err, NULL, 3, 0, 3, out, sizeof out);
    CHECK(n == strlen(out) && strstr(out, "bytes=0..0 value=\"\"") != NULL,
          "NULL bytes: %s", out);
}

void test_server_pieces(void)
{
    queries();
    tails();
    tail_edges();
    log_fields();
}
