/*
 * test_server.c: what a server's entry check uses, against oracles written from the
 * rules (oracle.h: the RFC 3629 grammar, the boundaries between its units, the
 * percent decoding), never against the library's own answers:
 * - utf8_validate_inline (the header's short path): every length 0-80 at 8
 *   alignments, with one non-ASCII byte at every position, and every 1- and 2-byte
 *   string;
 * - utf8_check_percent and utf8_percent_decode: every string of three pieces from a
 *   list of escapes, broken escapes and raw bytes, and long inputs whose error falls
 *   on each side of the 256-byte pieces the check decodes at a time;
 * - utf8_truncate and utf8_error_context: every cut, against the unit boundaries
 *   (whole characters and maximal subparts) that oracle.h's grammar gives;
 * - utf8_escape_quoted: the rendering, unit by unit, and its snprintf contract.
 * Every input is a guarded copy (check.h): a read outside it faults.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "oracle.h"

#define MAX_INPUT 1400

static void inline_short_path(void)
{
    static const unsigned char high[] = {0x80, 0xA9, 0xC3, 0xE2, 0xF0, 0xFF};
    unsigned char buf[96];
    size_t len, pos, h, align;
    unsigned a, b;

    for (align = 0; align < 8; align++) {
        for (len = 0; len <= 80; len++) {
            unsigned char *s = buf + align;
            for (pos = 0; pos < len; pos++) {
                s[pos] = (unsigned char)('a' + pos % 26);
            }
            CHECK(utf8_validate_inline(t_guarded(s, len), len),
                  "%zu bytes of ASCII at alignment %zu", len, align);
            for (pos = 0; pos < len; pos++) {
                for (h = 0; h < sizeof high; h++) {
                    unsigned char keep = s[pos];
                    s[pos] = high[h];
                    CHECK(utf8_validate_inline(t_guarded(s, len), len) ==
                              rfc3629_check(s, len).valid,
                          "[%s]", hex(s, len));
                    s[pos] = keep;
                }
            }
            if (len >= 2) { /* a well-formed 2-byte character at the end */
                s[len - 2] = 0xC3;
                s[len - 1] = 0xA9;
                CHECK(utf8_validate_inline(t_guarded(s, len), len), "[%s]", hex(s, len));
            }
        }
    }
    for (a = 0; a < 256; a++) { /* a lone byte: answered in the caller */
        unsigned char one = (unsigned char)a;
        CHECK(utf8_validate_inline(t_guarded(&one, 1), 1) == rfc3629_check(&one, 1).valid,
              "[%02X]", a);
    }
    for (a = 0; a < 256; a++) {
        for (b = 0; b < 256; b++) {
            unsigned char pair[2];
            pair[0] = (unsigned char)a;
            pair[1] = (unsigned char)b;
            if (utf8_validate_inline(t_guarded(pair, 2), 2) != rfc3629_check(pair, 2).valid) {
                CHECK(0, "[%02X %02X]", a, b);
            }
        }
    }
    CHECK(utf8_validate_inline(NULL, 0), "NULL with length 0 is the empty input");
    CHECK(!utf8_validate_inline(NULL, 5), "NULL with length 5 is false");
}

/* One input to utf8_check_percent and utf8_percent_decode, against the oracles. */
static void percent_case(const unsigned char *raw, size_t n)
{
    static unsigned char decoded[MAX_INPUT], out[MAX_INPUT + 8];
    static size_t starts[MAX_INPUT + 1];
    size_t d = percent_decode(raw, n, decoded, starts), cap, got;
    struct rfc3629_result want = rfc3629_check(decoded, d);
    utf8_error err;
    utf8_span span;
    bool ok;

    memset(&err, 0xA5, sizeof err);
    memset(&span, 0xA5, sizeof span);
    ok = utf8_check_percent(t_guarded(raw, n), n, &err, &span);
    CHECK(ok == want.valid, "verdict [%s]", hex(raw, n));
    if (ok && want.valid) {
        CHECK(err.offset == d && err.length == 0 && err.kind == UTF8_ERROR_NONE &&
                  span.start == n && span.end == n,
              "detail of a valid input [%s]", hex(raw, n));
    } else if (!ok && !want.valid) {
        CHECK(err.offset == want.offset && err.length == want.length,
              "decoded offset %zu length %zu, want %zu %zu [%s]", err.offset, err.length,
              want.offset, want.length, hex(raw, n));
        CHECK((err.kind == UTF8_ERROR_TRUNCATED) == want.truncated, "kind %s, truncated %d [%s]",
              utf8_error_kind_name(err.kind), want.truncated, hex(raw, n));
        CHECK(span.start == starts[want.offset] && span.end == starts[want.offset + want.length],
              "raw %zu..%zu, want %zu..%zu [%s]", span.start, span.end, starts[want.offset],
              starts[want.offset + want.length], hex(raw, n));
    }
    CHECK(utf8_check_percent(t_guarded(raw, n), n, NULL, NULL) == want.valid, "NULL err");

    for (cap = 0; cap <= d + 1; cap += (cap < 8 || cap + 8 > d) ? 1 : 7) {
        memset(out, 0x5A, sizeof out);
        got = utf8_percent_decode(t_guarded(raw, n), n, (char *)out, cap);
        CHECK(got == (cap < d ? cap : d) && memcmp(out, decoded, got) == 0 &&
                  (got >= sizeof out || out[got] == 0x5A),
              "decode with room for %zu: %zu bytes [%s]", cap, got, hex(raw, n));
    }
}

static void percent_encoded(void)
{
    static const char *pieces[] = {"a", "%", "%4", "%41", "%C3", "%a9", "\xC3", "\xA9",
                                   "%E2%82", "%AC", "%zz", "%ED%A0%80", "\xF0\x9F", "%98%80",
                                   "%%C3%A9", "+"};
    enum { PIECES = sizeof pieces / sizeof pieces[0] };
    static unsigned char raw[MAX_INPUT];
    size_t i, j, k, n, at;
    utf8_error err;
    utf8_span span;

    for (i = 0; i < PIECES; i++) {
        for (j = 0; j < PIECES; j++) {
            for (k = 0; k < PIECES; k++) {
                n = 0;
                memcpy(raw + n, pieces[i], strlen(pieces[i]));
                n += strlen(pieces[i]);
                memcpy(raw + n, pieces[j], strlen(pieces[j]));
                n += strlen(pieces[j]);
                memcpy(raw + n, pieces[k], strlen(pieces[k]));
                n += strlen(pieces[k]);
                percent_case(raw, n);
            }
        }
    }
    /* Long inputs: "%C3%A9" (one 2-byte character in 6 raw bytes) repeated, with an
       error placed so that it falls at every decoded offset from 250 to 262 and cuts
       a character across the 256-byte pieces. */
    for (at = 250 * 3; at <= 262 * 3 && at + 8 < MAX_INPUT; at++) {
        for (n = 0; n + 6 <= MAX_INPUT - 8; n += 6) {
            memcpy(raw + n, "%C3%A9", 6);
        }
        raw[at] = 0xFF;
        percent_case(raw, n);
        memcpy(raw + at - at % 6, "%C3", 3); /* a character cut short */
        memcpy(raw + at - at % 6 + 3, "%41", 3);
        percent_case(raw, n);
    }
    /* Raw UTF-8 runs long enough for the vector validator, cut inside their last
       character, and what follows them: an escape that completes it, raw bytes,
       ASCII, an escape that starts another, a byte never in UTF-8. */
    for (i = 0; i < 5; i++) {
        static const char *tails[] = {"%A9", "\xA9%41", "%41", "%C3", "\xFF%41"};
        for (k = 0; k < 3; k++) {
            n = 0;
            memcpy(raw + n, "%41", 3);
            n += 3;
            for (j = 0; j < 12; j++) {
                memcpy(raw + n, "\xC3\xA9\xE2\x82\xAC", 5);
                n += 5;
            }
            n -= k;
            memcpy(raw + n, tails[i], strlen(tails[i]));
            n += strlen(tails[i]);
            percent_case(raw, n);
        }
    }
    CHECK(!utf8_check_percent(NULL, 3, &err, &span) && err.offset == 0 && err.length == 0 &&
              err.kind == UTF8_ERROR_INVALID_BYTE && span.start == 0 && span.end == 0,
          "NULL with length 3");
    CHECK(utf8_check_percent(NULL, 0, &err, &span) && err.offset == 0 && span.end == 0,
          "NULL with length 0");
    CHECK(utf8_percent_decode(NULL, 3, (char *)raw, 10) == 0, "decode NULL");
    CHECK(utf8_percent_decode("%41", 3, NULL, 10) == 0, "decode into NULL");
}

/* The inputs of the window tests: three pieces of well-formed and ill-formed text. */
static const char *const WINDOW_PIECES[] = {
    "a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x80", "\xC0\xAF", "\xE2\x82",
    "\xF0\x9F\x98", "\xED\xA0\x80", "\xFF", "\xF4\x90\x80\x80", "\xE2\x82\x80\x80"};
enum { WINDOW_PIECE_COUNT = sizeof WINDOW_PIECES / sizeof WINDOW_PIECES[0] };

static void window_case(const unsigned char *s, size_t n)
{
    size_t cuts[64], count = rfc3629_boundaries(s, n, cuts), max, context, c;
    struct rfc3629_result r = rfc3629_check(s, n);

    for (max = 0; max <= n + 1; max++) {
        size_t want = 0;
        for (c = 0; c < count; c++) {
            if (cuts[c] <= max) want = cuts[c];
        }
        CHECK(utf8_truncate(t_guarded(s, n), n, max) == want, "truncate to %zu [%s]", max,
              hex(s, n));
    }
    if (r.valid) {
        return;
    }
    for (context = 0; context < 8; context++) {
        utf8_error err;
        utf8_span got;
        size_t lo = r.offset > context ? r.offset - context : 0;
        size_t hi = r.offset + r.length + context < n ? r.offset + r.length + context : n;
        size_t want_start = n, want_end = 0;
        for (c = 0; c < count; c++) {
            if (cuts[c] >= lo && cuts[c] < want_start) want_start = cuts[c];
            if (cuts[c] <= hi) want_end = cuts[c];
        }
        err.offset = r.offset;
        err.length = r.length;
        err.kind = UTF8_ERROR_INVALID_BYTE;
        got = utf8_error_context(t_guarded(s, n), n, &err, context);
        CHECK(got.start == want_start && got.end == want_end,
              "context %zu: %zu..%zu, want %zu..%zu [%s]", context, got.start, got.end,
              want_start, want_end, hex(s, n));
    }
}

static void log_windows(void)
{
    unsigned char s[16];
    size_t i, j, k, n;
    utf8_error err;
    utf8_span got;

    for (i = 0; i < WINDOW_PIECE_COUNT; i++) {
        for (j = 0; j < WINDOW_PIECE_COUNT; j++) {
            for (k = 0; k < WINDOW_PIECE_COUNT; k++) {
                n = 0;
                memcpy(s + n, WINDOW_PIECES[i], strlen(WINDOW_PIECES[i]));
                n += strlen(WINDOW_PIECES[i]);
                memcpy(s + n, WINDOW_PIECES[j], strlen(WINDOW_PIECES[j]));
                n += strlen(WINDOW_PIECES[j]);
                memcpy(s + n, WINDOW_PIECES[k], strlen(WINDOW_PIECES[k]));
                n += strlen(WINDOW_PIECES[k]);
                window_case(s, n);
            }
        }
    }
    err.offset = 5;
    err.length = 2;
    err.kind = (utf8_error_kind)99; /* any value: only offset and length are read */
    got = utf8_error_context("abcdef", 6, &err, 4);
    CHECK(got.start == 5 && got.end == 5, "an error past the end: %zu..%zu", got.start, got.end);
    got = utf8_error_context("abcdef", 6, NULL, 4);
    CHECK(got.start == 0 && got.end == 0, "NULL error");
    got = utf8_error_context(NULL, 6, &err, 4);
    CHECK(got.start == 0 && got.end == 0, "NULL buffer");
    CHECK(utf8_truncate(NULL, 6, 3) == 0, "truncate NULL");
}

static void quoted_case(const unsigned char *s, size_t n)
{
    static unsigned char want[4 * 64], got[4 * 64 + 8];
    size_t ends[4 * 64], units = rfc3629_render(s, n, RFC3629_QUOTED, want, ends);
    size_t needed = units ? ends[units - 1] : 0, cap, fit, u, r;

    for (cap = 0; cap <= needed + 1; cap++) {
        memset(got, 0x5A, sizeof got);
        r = utf8_escape_quoted(t_guarded(s, n), n, (char *)got, cap);
        fit = 0;
        for (u = 0; u < units && ends[u] + 1 <= cap; u++) {
            fit = ends[u];
        }
        CHECK(r == needed, "returned %zu, want %zu [%s]", r, needed, hex(s, n));
        if (cap > 0) {
            CHECK(memcmp(got, want, fit) == 0 && got[fit] == 0 && got[cap] == 0x5A,
                  "room for %zu: [%s] [%s]", cap, hex(got, fit + 1), hex(s, n));
        }
    }
}

static void quoted_escapes(void)
{
    static const char *pieces[] = {"a", "\"", "\\", "\n", "\x7F", "\xC2\x85", "\xC2\xA0",
                                   "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAA", "\xC3\xA9",
                                   "\x80", "\xE2\x80", "\xED\xA0\x80", "\x00", "\xF0\x9F\x98\x80"};
    enum { PIECES = sizeof pieces / sizeof pieces[0] };
    unsigned char s[16];
    size_t i, j, k, n, len[PIECES];
    for (i = 0; i < PIECES; i++) {
        len[i] = i == 14 ? 1 : strlen(pieces[i]); /* the NUL piece */
    }
    for (i = 0; i < PIECES; i++) {
        for (j = 0; j < PIECES; j++) {
            for (k = 0; k < PIECES; k += 3) {
                n = 0;
                memcpy(s + n, pieces[i], len[i]);
                n += len[i];
                memcpy(s + n, pieces[j], len[j]);
                n += len[j];
                memcpy(s + n, pieces[k], len[k]);
                n += len[k];
                quoted_case(s, n);
            }
        }
    }
    CHECK(utf8_escape_quoted(NULL, 4, (char *)s, sizeof s) == 0 && s[0] == 0, "NULL input");
}

void test_server(void)
{
    inline_short_path();
    percent_encoded();
    log_windows();
    quoted_escapes();
}
