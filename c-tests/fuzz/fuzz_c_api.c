/*
 * fuzz_c_api.c: a libFuzzer harness for the C ABI of libutf8validate, differential
 * against an independent oracle: the RFC 3629 section 4 grammar, written out by hand
 * in c-tests/oracle.h (no code shared with the library or the Rust tests; the same
 * oracle as guard_pages.c).
 *
 * For every input it checks, through include/utf8validate.h:
 * - utf8_validate, utf8_first_error, and utf8_check (offset, maximal-subpart length
 *   as Unicode section 3.9 defines it, and error kind; also with err == NULL);
 * - utf8_validate_chunk with the input cut at a point taken from the input, the
 *   state after the first chunk against the state the draft's table gives for that
 *   prefix, the final state against the one-shot verdict;
 * - utf8_next_state stepped over every byte, against the same table;
 * - utf8_validate_cstr and utf8_first_error_cstr on a NUL-terminated copy;
 * - utf8_stream_feed on the same two chunks, utf8_stream_finish after each against
 *   the oracle for the bytes fed so far;
 * - utf8_replace and utf8_escape against renderings built from the oracle (one
 *   U+FFFD per maximal subpart; `\\`, `\x00` and `\xHH` escapes), into an
 *   exact-size buffer and into one cut short at a size taken from the input;
 * - what a server's check uses: utf8_validate_inline; utf8_check_percent and
 *   utf8_percent_decode on the input read as percent-encoded text, against the
 *   grammar on oracle.h's decoding; utf8_truncate at the cut and utf8_error_context
 *   against the boundaries between the grammar's units;
 * - a request in pieces: utf8_check_query against the split at '&' and the grammar on
 *   each argument's decoding; the input fed as two pieces cut at the same point, and
 *   utf8_tail_window where the stream refuses, against the unit boundaries of the
 *   bytes that have arrived; utf8_log_fields over that window and over the whole
 *   input so far, which must agree;
 * - all of the above but the pieces again on a copy whose last byte is the last byte before a
 *   PROT_NONE page, and (without the rendering) on one whose first byte is the first
 *   after one: a read outside [buf, buf + len) is a SIGSEGV even where ASan's
 *   redzones would miss it or the library was not built with ASan.
 * A disagreement calls abort(), which libFuzzer reports as a crash, saving the input.
 *
 * Built by .ci/fuzz.sh:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *     -I include -I c-tests c-tests/fuzz/fuzz_c_api.c <libutf8validate.a> \
 *     -lpthread -ldl -lm
 * with the static library built by cargo with AddressSanitizer and libFuzzer's
 * coverage instrumentation (see the script), so the fuzzer is guided by the
 * library's branches and ASan sees the library's own loads.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The oracle's code is not traced for coverage: it would guide the fuzzer by the
   oracle's branches, and its tracing took most of each run's time. */
#define ORACLE_FN static inline __attribute__((no_sanitize("coverage")))
#include "oracle.h"
#include "utf8validate.h"

/* ---- The expected answers ------------------------------------------------------
 *
 * The grammar's verdict (valid, offset, maximal subpart) comes from oracle.h, the RFC
 * 3629 section 4 grammar. Added here, from the header's documentation and the draft:
 * the error kind, and the draft's state after all the bytes.
 */

typedef struct {
    bool valid;
    size_t offset;      /* first ill-formed sequence, or the length when valid */
    size_t length;      /* its maximal subpart (Unicode 3.9), 0 when valid */
    utf8_error_kind kind;
    utf8_state state;   /* the draft's state after all the bytes */
} oracle_result;

__attribute__((no_sanitize("coverage"))) static oracle_result oracle(const unsigned char *s, size_t n) {
    struct rfc3629_result g = rfc3629_check(s, n);
    oracle_result r = {g.valid, g.offset, g.length, UTF8_ERROR_NONE, UTF8_STATE_START};
    if (g.valid) {
        return r;
    }
    unsigned char b = s[g.offset];
    if (g.need == 0) {
        r.state = UTF8_STATE_ERROR;
        if (b >= 0x80 && b <= 0xBF) {
            r.kind = UTF8_ERROR_UNEXPECTED_CONTINUATION;
        } else if (b == 0xC0 || b == 0xC1) {
            r.kind = UTF8_ERROR_OVERLONG;
        } else if (b >= 0xF5 && b <= 0xF7) {
            r.kind = UTF8_ERROR_TOO_LARGE;
        } else {
            r.kind = UTF8_ERROR_INVALID_BYTE;
        }
    } else if (g.truncated) {
        /* Out of input inside a character: the draft's state says what is still
         * expected (states C, D, F, G: the restricted second byte). */
        r.kind = UTF8_ERROR_TRUNCATED;
        size_t left = g.need - g.length;
        if (g.length == 1 && b == 0xE0) {
            r.state = UTF8_STATE_C;
        } else if (g.length == 1 && b == 0xED) {
            r.state = UTF8_STATE_D;
        } else if (g.length == 1 && b == 0xF0) {
            r.state = UTF8_STATE_F;
        } else if (g.length == 1 && b == 0xF4) {
            r.state = UTF8_STATE_G;
        } else if (left == 3) {
            r.state = UTF8_STATE_E;
        } else if (left == 2) {
            r.state = UTF8_STATE_B;
        } else {
            r.state = UTF8_STATE_A;
        }
    } else {
        r.state = UTF8_STATE_ERROR;
        unsigned char t = s[g.offset + g.length];
        bool tail = t >= 0x80 && t <= 0xBF;
        if (g.length == 1 && tail && (b == 0xE0 || b == 0xF0)) {
            r.kind = UTF8_ERROR_OVERLONG;
        } else if (g.length == 1 && tail && b == 0xED) {
            r.kind = UTF8_ERROR_SURROGATE;
        } else if (g.length == 1 && tail && b == 0xF4) {
            r.kind = UTF8_ERROR_TOO_LARGE;
        } else {
            r.kind = UTF8_ERROR_MISSING_CONTINUATION;
        }
    }
    return r;
}

/* ---- Checks ------------------------------------------------------------------- */

#define REQUIRE(cond, ...)                                                       \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "fuzz_c_api.c:%d: %s: ", __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
            abort();                                                             \
        }                                                                        \
    } while (0)

/* The one-shot functions on buf[0..n), whatever memory it lives in. */
static void check_one_shot(const char *buf, size_t n, const oracle_result *want) {
    REQUIRE(utf8_validate(buf, n) == want->valid, "len %zu", n);
    REQUIRE(utf8_first_error(buf, n) == want->offset, "len %zu: got %zu, want %zu", n,
            utf8_first_error(buf, n), want->offset);
    utf8_error err;
    memset(&err, 0xA5, sizeof err);
    REQUIRE(utf8_check(buf, n, &err) == want->valid, "len %zu", n);
    REQUIRE(err.offset == want->offset, "got %zu, want %zu", err.offset, want->offset);
    REQUIRE(err.length == want->length, "at %zu: got %zu, want %zu", want->offset,
            err.length, want->length);
    REQUIRE(err.kind == want->kind, "at %zu: got %d, want %d", want->offset, (int)err.kind,
            (int)want->kind);
    REQUIRE(utf8_check(buf, n, NULL) == want->valid, "len %zu", n);
}

/* utf8_validate_chunk over buf[0..n) cut at `cut`, and utf8_next_state stepped. */
static void check_chunks(const char *buf, size_t n, size_t cut, const oracle_result *want) {
    const unsigned char *u = (const unsigned char *)buf;
    oracle_result head = oracle(u, cut);
    utf8_state s = utf8_validate_chunk(UTF8_STATE_START, buf, cut);
    REQUIRE(s == head.state, "cut %zu of %zu: got state %d, want %d", cut, n, (int)s,
            (int)head.state);
    s = utf8_validate_chunk(s, buf + cut, n - cut);
    REQUIRE(s == want->state, "cut %zu of %zu: got state %d, want %d", cut, n, (int)s,
            (int)want->state);
    REQUIRE((s == UTF8_STATE_START) == want->valid, "cut %zu of %zu", cut, n);
}

static void check_steps(const unsigned char *u, size_t n, const oracle_result *want) {
    utf8_state s = UTF8_STATE_START;
    for (size_t i = 0; i < n; i++) {
        s = utf8_next_state(s, u[i]);
    }
    REQUIRE(s == want->state, "got state %d, want %d", (int)s, (int)want->state);
}

/* The NUL-terminated forms, on `str` (whose strlen the oracle already knows). */
static void check_cstr(const char *str, const oracle_result *want) {
    REQUIRE(utf8_validate_cstr(str) == want->valid, "strlen %zu", strlen(str));
    REQUIRE(utf8_first_error_cstr(str) == want->offset, "got %zu, want %zu",
            utf8_first_error_cstr(str), want->offset);
}

/* utf8_stream fed buf[0..cut) then buf[cut..n): after each chunk, finish must give
 * the oracle's answer for the bytes fed so far. */
static void check_stream(const char *buf, size_t n, size_t cut, const oracle_result *want) {
    const unsigned char *u = (const unsigned char *)buf;
    oracle_result head = oracle(u, cut);
    utf8_stream s;
    memset(&s, 0x5A, sizeof s); /* init must not depend on the old contents */
    utf8_stream_init(&s);
    const oracle_result *expect[2] = {&head, want};
    size_t ends[2] = {cut, n};
    size_t from = 0;
    for (int i = 0; i < 2; i++) {
        const oracle_result *w = expect[i];
        bool fed = utf8_stream_feed(&s, buf + from, ends[i] - from);
        REQUIRE(fed == (w->state != UTF8_STATE_ERROR), "chunk %d, cut %zu of %zu", i, cut, n);
        utf8_error err;
        REQUIRE(utf8_stream_finish(&s, &err) == w->valid, "chunk %d, cut %zu of %zu", i, cut, n);
        REQUIRE(err.offset == w->offset, "chunk %d: got %zu, want %zu", i, err.offset, w->offset);
        REQUIRE(err.length == w->length, "chunk %d: got %zu, want %zu", i, err.length, w->length);
        REQUIRE(err.kind == w->kind, "chunk %d: got %d, want %d", i, (int)err.kind, (int)w->kind);
        from = ends[i];
    }
}

/* utf8_replace / utf8_escape into an exact-size heap buffer (ASan sees any write
 * past it) and into `small` bytes (a prefix of whole units, then the NUL). */
static void check_render(const char *buf, size_t n, size_t small) {
    unsigned char *want = malloc(4 * n + 1);
    size_t *ends = malloc((n + 1) * sizeof *ends);
    REQUIRE(want != NULL && ends != NULL, "malloc");
    for (int escape = 0; escape < 2; escape++) {
        size_t (*render)(const char *, size_t, char *, size_t) =
            escape ? utf8_escape : utf8_replace;
        const char *name = escape ? "utf8_escape" : "utf8_replace";
        size_t units = rfc3629_render((const unsigned char *)buf, n, escape, want, ends);
        size_t total = units ? ends[units - 1] : 0;
        REQUIRE(render(buf, n, NULL, 0) == total, "%s: size query", name);
        size_t caps[2] = {total + 1, small % (total + 2)};
        for (int k = 0; k < 2; k++) {
            size_t cap = caps[k];
            char *out = malloc(cap ? cap : 1);
            REQUIRE(out != NULL, "malloc");
            REQUIRE(render(buf, n, out, cap) == total, "%s into %zu bytes", name, cap);
            if (cap > 0) {
                size_t fit = 0; /* the longest run of whole units in cap - 1 bytes */
                for (size_t u = 0; u < units && ends[u] <= cap - 1; u++) {
                    fit = ends[u];
                }
                REQUIRE(memcmp(out, want, fit) == 0, "%s into %zu bytes", name, cap);
                REQUIRE(out[fit] == '\0', "%s into %zu bytes: NUL at %zu", name, cap, fit);
            }
            free(out);
        }
    }
    free(ends);
    free(want);
}

/* ---- Guard pages ---------------------------------------------------------------- */

enum { GUARD_MAX = 1 << 20 }; /* longer inputs skip the guard-page copies */

static size_t page;
static unsigned char *before_guard; /* GUARD_MAX bytes (rounded) ending at a PROT_NONE page */
static unsigned char *after_guard;  /* GUARD_MAX bytes starting right after a PROT_NONE page */

static void map_guards(void) {
    page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (GUARD_MAX + page - 1) / page * page;
    unsigned char *a = mmap(NULL, span + page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *b = mmap(NULL, span + page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(a != MAP_FAILED && b != MAP_FAILED, "mmap");
    REQUIRE(mprotect(a + span, page, PROT_NONE) == 0, "mprotect");
    REQUIRE(mprotect(b, page, PROT_NONE) == 0, "mprotect");
    before_guard = a + span;
    after_guard = b + page;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    map_guards();
    return 0;
}

/* ---- The target -------------------------------------------------------------- */

/* What a server's check uses: the inline short path, the percent-encoded check and
   decoding, and the cuts for a log line. */
static void check_server(const char *buf, size_t n, size_t cut, const oracle_result *want) {
    const unsigned char *u = (const unsigned char *)buf;
    REQUIRE(utf8_validate_inline(buf, n) == want->valid, "inline, len %zu", n);

    unsigned char *decoded = malloc(n + 1);
    size_t *starts = malloc((n + 1) * sizeof *starts);
    size_t *cuts = malloc((n + 2) * sizeof *cuts);
    REQUIRE(decoded != NULL && starts != NULL && cuts != NULL, "malloc");
    size_t d = percent_decode(u, n, decoded, starts);
    oracle_result dw = oracle(decoded, d);
    utf8_error err;
    utf8_span raw;
    REQUIRE(utf8_check_percent(buf, n, &err, &raw) == dw.valid, "percent, len %zu", n);
    if (dw.valid) {
        REQUIRE(err.offset == d && raw.start == n && raw.end == n, "percent, valid");
    } else {
        REQUIRE(err.offset == dw.offset && err.length == dw.length && err.kind == dw.kind,
                "percent: got %zu+%zu kind %d, want %zu+%zu kind %d", err.offset, err.length,
                (int)err.kind, dw.offset, dw.length, (int)dw.kind);
        REQUIRE(raw.start == starts[dw.offset] && raw.end == starts[dw.offset + dw.length],
                "percent: raw %zu..%zu", raw.start, raw.end);
    }
    size_t cap = cut < d ? cut : d;
    memset(decoded, 0x5A, n + 1);
    unsigned char *out = malloc(n + 1);
    REQUIRE(out != NULL, "malloc");
    memset(out, 0x5A, n + 1);
    size_t got = utf8_percent_decode(buf, n, (char *)out, cap);
    size_t d2 = percent_decode(u, n, decoded, NULL);
    REQUIRE(got == cap && d2 == d && memcmp(out, decoded, got) == 0 && out[got] == 0x5A,
            "decode into %zu: %zu", cap, got);

    size_t count = rfc3629_boundaries(u, n, cuts), c, want_cut = 0;
    for (c = 0; c < count; c++) {
        if (cuts[c] <= cut) want_cut = cuts[c];
    }
    REQUIRE(utf8_truncate(buf, n, cut) == want_cut, "truncate %zu of %zu", cut, n);
    if (!want->valid) {
        utf8_error e = {want->offset, want->length, want->kind};
        size_t context = cut % 40;
        size_t lo = e.offset > context ? e.offset - context : 0;
        size_t hi = e.offset + e.length + context < n ? e.offset + e.length + context : n;
        size_t ws = n, we = 0;
        for (c = 0; c < count; c++) {
            if (cuts[c] >= lo && cuts[c] < ws) ws = cuts[c];
            if (cuts[c] <= hi) we = cuts[c];
        }
        utf8_span w = utf8_error_context(buf, n, &e, context);
        REQUIRE(w.start == ws && w.end == we, "context %zu: %zu..%zu, want %zu..%zu", context,
                w.start, w.end, ws, we);
    }
    free(out);
    free(cuts);
    free(starts);
    free(decoded);
}

/* A request in pieces: the input as a query (utf8_check_query against the split,
   oracle.h's decoding and the grammar, argument by argument), and as a body fed in the
   two pieces [0, cut) and [cut, n) (utf8_tail_window where the stream refuses, against
   the grammar's unit boundaries of the bytes that have arrived; utf8_log_fields over
   that window, which must give the text it gives over the whole input so far). */
static void check_pieces(const char *buf, size_t n, size_t cut, const oracle_result *want) {
    const unsigned char *u = (const unsigned char *)buf;
    unsigned char *decoded = malloc(n + 1);
    size_t *starts = malloc((n + 1) * sizeof *starts);
    size_t *cuts = malloc((n + 2) * sizeof *cuts);
    REQUIRE(decoded != NULL && starts != NULL && cuts != NULL, "malloc");

    size_t start = 0, end, index = 0;
    bool valid = true;
    utf8_query_error q;
    oracle_result bad = {true, 0, 0, UTF8_ERROR_NONE, UTF8_STATE_START};
    for (;;) {
        end = start;
        while (end < n && u[end] != '&') end++;
        index++;
        size_t d = percent_decode(u + start, end - start, decoded, starts);
        bad = oracle(decoded, d);
        if (!bad.valid) {
            valid = false;
            break;
        }
        if (end == n) break;
        start = end + 1;
    }
    REQUIRE(utf8_check_query(buf, n, '&', &q) == valid, "query verdict, len %zu", n);
    if (!valid) {
        REQUIRE(q.index == index && q.argument.start == start && q.argument.end == end &&
                    q.error.offset == bad.offset && q.error.length == bad.length &&
                    q.error.kind == bad.kind && q.raw.start == start + starts[bad.offset] &&
                    q.raw.end == start + starts[bad.offset + bad.length],
                "query: argument %zu at %zu..%zu, error %zu+%zu", q.index, q.argument.start,
                q.argument.end, q.error.offset, q.error.length);
    }

    if (!want->valid) {
        utf8_stream s;
        utf8_tail t;
        utf8_error err;
        size_t ends[2] = {cut, n}, at = 0, p, avail = n, context = cut % (UTF8_TAIL_CONTEXT_MAX + 1);
        const char *piece = NULL;
        size_t piece_len = 0;
        char window[2 * UTF8_TAIL_CONTEXT_MAX + 3];
        utf8_stream_init(&s);
        utf8_tail_init(&t);
        for (p = 0; p < 2; p++) {
            piece = buf + at;
            piece_len = ends[p] - at;
            if (!utf8_stream_feed(&s, piece, piece_len)) {
                avail = ends[p];
                break;
            }
            utf8_tail_keep(&t, piece, piece_len);
            at = ends[p];
        }
        if (p == 2) {
            piece = NULL;
            piece_len = 0;
        }
        REQUIRE(!utf8_stream_finish(&s, &err) && err.offset == want->offset &&
                    err.length == want->length,
                "stream error in two pieces");
        /* The unit boundaries of the bytes that have arrived, without their end when
           they end in a proper prefix of a character after the subpart (which the
           bytes still to come may complete, as far as the tail can know). */
        size_t count = rfc3629_boundaries(u, avail, cuts), c;
        if (count >= 2 && cuts[count - 2] >= err.offset + err.length) {
            struct rfc3629_char last =
                rfc3629_char_at(u + cuts[count - 2], avail - cuts[count - 2]);
            if (last.need != 0 && last.matched < last.need) count--;
        }
        size_t lo = err.offset > context ? err.offset - context : 0;
        size_t hi = err.offset + err.length + context;
        size_t ws = n, we = 0;
        hi = hi < avail ? hi : avail;
        for (c = 0; c < count; c++) {
            if (cuts[c] >= lo && cuts[c] < ws) ws = cuts[c];
            if (cuts[c] <= hi) we = cuts[c];
        }
        utf8_span w = utf8_tail_window(&t, piece, piece_len, &err, context, window,
                                       sizeof window);
        REQUIRE(w.start == ws && w.end == we && memcmp(window, buf + ws, we - ws) == 0,
                "tail window, context %zu: %zu..%zu, want %zu..%zu", context, w.start, w.end,
                ws, we);
        char a[UTF8_LOG_FIELDS_FIXED + 4 * (2 * UTF8_TAIL_CONTEXT_MAX + 3)];
        char b[sizeof a];
        size_t la = utf8_log_fields(&err, window, we - ws, ws, context, a, sizeof a);
        size_t lb = utf8_log_fields(&err, buf, we, 0, context, b, sizeof b);
        REQUIRE(la < sizeof a && la == lb && strcmp(a, b) == 0, "log fields: %s | %s", a, b);
    }
    free(cuts);
    free(starts);
    free(decoded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    oracle_result want = oracle(data, size);
    const char *buf = (const char *)data;
    /* The cut: the first two bytes, little-endian, modulo size + 1. */
    size_t cut = size >= 2 ? (size_t)(data[0] | data[1] << 8) % (size + 1) : size;

    check_one_shot(buf, size, &want);
    check_chunks(buf, size, cut, &want);
    check_steps(data, size, &want);
    check_stream(buf, size, cut, &want);
    /* The small output buffer: bytes 2-3, little-endian. */
    check_render(buf, size, size >= 4 ? (size_t)(data[2] | data[3] << 8) : size);
    check_server(buf, size, cut, &want);
    check_pieces(buf, size, cut, &want);

    /* NUL-terminated copy of the bytes before the first NUL. */
    size_t len = strnlen(buf, size);
    oracle_result want_c = oracle(data, len);
    char *str = malloc(len + 1);
    REQUIRE(str != NULL, "malloc");
    memcpy(str, data, len);
    str[len] = '\0';
    check_cstr(str, &want_c);
    free(str);

    if (size <= GUARD_MAX - 1) {
        /* Last byte (and, for the C string, its NUL) right before the guard page. */
        char *end = (char *)before_guard - size;
        memcpy(end, data, size);
        check_one_shot(end, size, &want);
        check_chunks(end, size, cut, &want);
        check_stream(end, size, cut, &want);
        check_render(end, size, size);
        check_server(end, size, cut, &want);
        char *end_c = (char *)before_guard - (len + 1);
        memcpy(end_c, data, len);
        end_c[len] = '\0';
        check_cstr(end_c, &want_c);

        /* First byte right after the guard page. */
        char *start = (char *)after_guard;
        memcpy(start, data, size);
        check_one_shot(start, size, &want);
        check_chunks(start, size, cut, &want);
        check_stream(start, size, cut, &want);
        check_server(start, size, cut, &want);
        memcpy(start, data, len);
        start[len] = '\0';
        check_cstr(start, &want_c);
    }
    return 0;
}
