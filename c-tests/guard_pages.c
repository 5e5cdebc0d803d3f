/*
 * guard_pages.c: no public function may read outside [buf, buf + len).
 *
 * Every input is placed twice in memory with no-access pages around it (guard.h: mmap
 * and mprotect, or VirtualAlloc and VirtualProtect on Windows): so that its last byte
 * is the last byte of a page followed by a no-access page ("end"), and so that its
 * first byte is the first byte of a page preceded by one ("start"). A read past either
 * edge faults; the fault handler names the case and the process dies abnormally (by
 * SIGSEGV on POSIX systems, with status 0xC0000005 on Windows), which the scripts
 * and tests/c_suite.rs report. The readable bytes around the
 * input are filled with continuation bytes, so a read of them would also change the
 * answer of a truncated input and be caught as a wrong result. The C-string functions
 * get the same bytes with the NUL after them, so that the NUL is the byte next to the
 * high guard page (or the string's first byte the one after the low guard page).
 * utf8_escape and utf8_replace also write into an output buffer whose last byte is the
 * last byte before a no-access page, with out_cap exactly the needed size + 1 and
 * several sizes too small: a write past out_cap faults.
 *
 * Lengths 0..=512 and a few large ones; several contents; the expected results come
 * from oracle.h (rfc3629_check), the RFC 3629 section 4 grammar written out naively,
 * not from the library: offsets, maximal-subpart lengths (Unicode 3.9), and the
 * utf8_escape/utf8_replace output (rfc3629_render). The assertion functions
 * (which abort or log on ill-formed input) are called on the valid inputs only. Prints "N passed, M failed" last; exits non-zero on failure.
 *
 * To cover a new public function, add one probe to API_PROBES (the only list of
 * functions in this file).
 */
#define _DEFAULT_SOURCE /* guard.h on POSIX systems: MAP_ANONYMOUS, sigaction, fork */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "guard.h"
#include "oracle.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* The longest input. */
#define MAX_LEN (65536 + 17)

/* ---------------------------------------------------------------------------------
 * The case being run, for the fault handler (which only writes).
 */

static char current_case[256] = "setup";

static void on_fault(void)
{
    guard_write_stderr("\nguard pages: memory fault (a read outside the input or a write "
                       "outside the output) during: ");
    guard_write_stderr(current_case);
    guard_write_stderr("\n");
}

/* ---------------------------------------------------------------------------------
 * The public functions under test. Each probe calls one function on buf[0..len) and
 * checks it against the reference. Add new functions here.
 */

typedef void (*probe_fn)(const char *buf, size_t len, const struct rfc3629_result *want);

/* The state a whole input must end in: START, ERROR, or (truncated) neither. */
static bool chunk_state_ok(utf8_state got, const struct rfc3629_result *want)
{
    if (want->valid) {
        return got == UTF8_STATE_START;
    }
    if (want->truncated) {
        return got != UTF8_STATE_START && got != UTF8_STATE_ERROR && (unsigned)got < 9;
    }
    return got == UTF8_STATE_ERROR;
}

static void probe_validate(const char *buf, size_t len, const struct rfc3629_result *want)
{
    bool got = utf8_validate(buf, len);
    CHECK(got == want->valid, "%s: utf8_validate = %d, reference %d", current_case, got,
          want->valid);
}

static void probe_first_error(const char *buf, size_t len, const struct rfc3629_result *want)
{
    size_t got = utf8_first_error(buf, len);
    CHECK(got == want->offset, "%s: utf8_first_error = %zu, reference %zu", current_case,
          got, want->offset);
}

static void probe_chunk_whole(const char *buf, size_t len, const struct rfc3629_result *want)
{
    utf8_state got = utf8_validate_chunk(UTF8_STATE_START, buf, len);
    CHECK(chunk_state_ok(got, want), "%s: utf8_validate_chunk(START) = %s (valid %d, truncated %d)",
          current_case, state_name(got), want->valid, want->truncated);
}

/* Two chunks, so that each edge of the buffer is also the edge of a chunk. */
static void probe_chunk_split(const char *buf, size_t len, const struct rfc3629_result *want)
{
    size_t cuts[3];
    size_t i;
    cuts[0] = 1;
    cuts[1] = len / 2;
    cuts[2] = len > 0 ? len - 1 : 0;
    for (i = 0; i < COUNT(cuts); i++) {
        size_t k = cuts[i] <= len ? cuts[i] : len;
        utf8_state st = utf8_validate_chunk(UTF8_STATE_START, buf, k);
        st = utf8_validate_chunk(st, buf + k, len - k);
        CHECK(chunk_state_ok(st, want), "%s: utf8_validate_chunk split at %zu = %s", current_case,
              k, state_name(st));
    }
}

/* utf8_check with and without err: the offset and maximal-subpart length from the
 * reference; the kind is TRUNCATED exactly when the input ends inside a UTF8-char. */
static void probe_check(const char *buf, size_t len, const struct rfc3629_result *want)
{
    utf8_error err;
    bool got;
    memset(&err, 0xA5, sizeof err);
    got = utf8_check(buf, len, &err);
    CHECK(got == want->valid, "%s: utf8_check = %d, reference %d", current_case, got,
          want->valid);
    CHECK(err.offset == want->offset && err.length == want->length,
          "%s: utf8_check error {offset %zu, length %zu}, reference {%zu, %zu}", current_case,
          err.offset, err.length, want->offset, want->length);
    CHECK(want->valid ? err.kind == UTF8_ERROR_NONE
                      : (err.kind == UTF8_ERROR_TRUNCATED) == want->truncated &&
                            err.kind != UTF8_ERROR_NONE,
          "%s: utf8_check kind %d (reference: valid %d, truncated %d)", current_case,
          (int)err.kind, want->valid, want->truncated);
    got = utf8_check(buf, len, NULL);
    CHECK(got == want->valid, "%s: utf8_check(err NULL) = %d, reference %d", current_case, got,
          want->valid);
}

/* C-string probes: buf[len] is the NUL, and it is the last byte before the high guard
 * page (or buf[0] is the first byte after the low one); see run_case. */
static void probe_validate_cstr(const char *buf, size_t len, const struct rfc3629_result *want)
{
    bool got = utf8_validate_cstr(buf);
    (void)len;
    CHECK(got == want->valid, "%s: utf8_validate_cstr = %d, reference %d", current_case, got,
          want->valid);
}

static void probe_first_error_cstr(const char *buf, size_t len, const struct rfc3629_result *want)
{
    size_t got = utf8_first_error_cstr(buf);
    (void)len;
    CHECK(got == want->offset, "%s: utf8_first_error_cstr = %zu, reference %zu",
          current_case, got, want->offset);
}

/* utf8_stream fed buf[0..cut) and buf[cut..len) (cut == len: the whole buffer in one
 * chunk), then finished: the same offset and maximal subpart as utf8_check. */
static void stream_case(const char *buf, size_t len, size_t cut, const struct rfc3629_result *want)
{
    utf8_stream s;
    utf8_error err;
    bool fed, got;
    memset(&s, 0x5A, sizeof s);
    utf8_stream_init(&s);
    fed = utf8_stream_feed(&s, buf, cut);
    fed = utf8_stream_feed(&s, buf + cut, len - cut) && fed;
    CHECK(fed == (want->valid || want->truncated),
          "%s: cut at %zu: utf8_stream_feed = %d (valid %d, truncated %d)", current_case, cut,
          fed, want->valid, want->truncated);
    memset(&err, 0xA5, sizeof err);
    got = utf8_stream_finish(&s, &err);
    CHECK(got == want->valid && err.offset == want->offset &&
              err.length == want->length,
          "%s: cut at %zu: utf8_stream_finish = %d {offset %zu, length %zu}, reference %d "
          "{%zu, %zu}",
          current_case, cut, got, err.offset, err.length, want->valid, want->offset,
          want->length);
}

static void probe_stream_whole(const char *buf, size_t len, const struct rfc3629_result *want)
{
    stream_case(buf, len, len, want);
}

static void probe_stream_split(const char *buf, size_t len, const struct rfc3629_result *want)
{
    stream_case(buf, len, len / 2, want);
    if (len > 0) {
        stream_case(buf, len, 1, want);
        stream_case(buf, len, len - 1, want);
    }
}

/* The output side of utf8_escape / utf8_replace: out_cap bytes ending where the
 * output area's high no-access page begins (set up in main), so a write past out_cap
 * faults. */
static unsigned char *out_guard;
/* The reference rendering and its unit ends (room for the largest input). */
static unsigned char want_render[4 * MAX_LEN + 4];
static size_t want_ends[MAX_LEN + 1];

typedef size_t (*render_fn)(const char *, size_t, char *, size_t);

static void render_case(const char *name, render_fn render, int escape, const char *buf,
                        size_t len)
{
    size_t units = rfc3629_render((const unsigned char *)buf, len, escape, want_render, want_ends);
    size_t total = units ? want_ends[units - 1] : 0;
    size_t caps[4];
    size_t got, k;
    caps[0] = total + 1; /* exactly enough */
    caps[1] = total / 2 + 1; /* too small: about half */
    caps[2] = total;     /* too small by the NUL */
    caps[3] = 1;         /* room for the NUL only */
    got = render(buf, len, NULL, 0);
    CHECK(got == total, "%s: %s size query = %zu, reference %zu", current_case, name, got, total);
    for (k = 0; k < COUNT(caps); k++) {
        size_t cap = caps[k], fit = 0, u;
        char *out = (char *)out_guard - cap;
        if (cap == 0) {
            continue;
        }
        memset(out, 0xA5, cap);
        got = render(buf, len, out, cap);
        /* The longest run of whole units that fits in cap - 1 bytes. */
        for (u = 0; u < units && want_ends[u] <= cap - 1; u++) {
            fit = want_ends[u];
        }
        CHECK(got == total && memcmp(out, want_render, fit) == 0 && out[fit] == '\0',
              "%s: %s into %zu bytes = %zu (reference %zu), output %s the reference's first "
              "%zu bytes + NUL",
              current_case, name, cap, got, total,
              memcmp(out, want_render, fit) == 0 && out[fit] == '\0' ? "matches"
                                                                     : "does not match",
              fit);
    }
}

static void probe_escape(const char *buf, size_t len, const struct rfc3629_result *want)
{
    (void)want;
    render_case("utf8_escape", utf8_escape, 1, buf, len);
}

static void probe_replace(const char *buf, size_t len, const struct rfc3629_result *want)
{
    (void)want;
    render_case("utf8_replace", utf8_replace, 0, buf, len);
}

/* The assertion functions abort (or log) on ill-formed input: called on valid input
 * only. A read outside the buffer still faults; a wrong verdict aborts, which
 * tests/c_suite.rs reports as death by SIGABRT. */
static void probe_assert_valid(const char *buf, size_t len, const struct rfc3629_result *want)
{
    if (want->valid) {
        utf8_assert_valid(buf, len, "buf", __FILE__, __LINE__, __func__);
        CHECK(1, "utf8_assert_valid returned");
    }
}

static void probe_assert_valid_cstr(const char *buf, size_t len, const struct rfc3629_result *want)
{
    (void)len;
    if (want->valid) {
        utf8_assert_valid_cstr(buf, "buf", __FILE__, __LINE__, __func__);
        CHECK(1, "utf8_assert_valid_cstr returned");
    }
}

static void probe_check_or_log(const char *buf, size_t len, const struct rfc3629_result *want)
{
    if (want->valid) {
        bool got = utf8_check_or_log(buf, len, "buf", __FILE__, __LINE__, __func__);
        CHECK(got, "%s: utf8_check_or_log = false on valid input", current_case);
    }
}

/* How a probe's input is laid out: BYTES is buf[0..len); CSTR adds the terminating
 * NUL at buf[len], and the NUL is what touches the high guard page. */
enum layout { BYTES, CSTR };

static const struct {
    const char *name;
    probe_fn probe;
    enum layout layout;
} API_PROBES[] = {
    {"utf8_validate", probe_validate, BYTES},
    {"utf8_first_error", probe_first_error, BYTES},
    {"utf8_validate_chunk", probe_chunk_whole, BYTES},
    {"utf8_validate_chunk (2 chunks)", probe_chunk_split, BYTES},
    {"utf8_check", probe_check, BYTES},
    {"utf8_validate_cstr", probe_validate_cstr, CSTR},
    {"utf8_first_error_cstr", probe_first_error_cstr, CSTR},
    {"utf8_stream (1 chunk)", probe_stream_whole, BYTES},
    {"utf8_stream (2 chunks)", probe_stream_split, BYTES},
    {"utf8_escape", probe_escape, BYTES},
    {"utf8_replace", probe_replace, BYTES},
    {"utf8_assert_valid (valid inputs)", probe_assert_valid, BYTES},
    {"utf8_assert_valid_cstr (valid inputs)", probe_assert_valid_cstr, CSTR},
    {"utf8_check_or_log (valid inputs)", probe_check_or_log, BYTES},
};

/* ---------------------------------------------------------------------------------
 * Contents: each fills dst[0..len) exactly.
 */

/* Whole characters from several scripts, then ASCII to reach exactly len. */
static void fill_multilingual(unsigned char *dst, size_t len)
{
    static const char *const chunks[] = {
        "a",  "\xC3\xA9" /* é */, "\xE2\x82\xAC" /* € */, "\xF0\x9F\x98\x80" /* 😀 */,
        " ", "\xED\x95\x9C" /* 한 */, "\xE0\xA4\xA8" /* न */, "\xCE\xA9" /* Ω */,
        "\xF4\x8F\xBF\xBF" /* U+10FFFF */, "\xF3\xA0\x81\xA7" /* U+E0067 */, "Zz",
    };
    size_t pos = 0, p = 0;
    while (pos < len) {
        const char *chunk = chunks[p++ % COUNT(chunks)];
        size_t n = strlen(chunk);
        if (pos + n > len) {
            chunk = "x";
            n = 1;
        }
        memcpy(dst + pos, chunk, n);
        pos += n;
    }
}

static void fill_ascii(unsigned char *dst, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        dst[i] = (unsigned char)(i % 27 == 26 ? ' ' : 'a' + i % 27);
    }
}

/* Valid text whose last 1-3 bytes are an ill-formed sequence. */
static void fill_error_at_end(unsigned char *dst, size_t len)
{
    static const char *const errors[] = {"\xFF", "\x80", "\xED\xA0\x80", "\xC0\xAF"};
    const char *e = errors[len % COUNT(errors)];
    size_t n = strlen(e);
    if (n > len) {
        e = "\xFF";
        n = len < 1 ? 0 : 1;
    }
    fill_multilingual(dst, len - n);
    memcpy(dst + len - n, e, n);
}

/* Valid text ending with the first 1-3 bytes of a 2-, 3- or 4-byte character. */
static void fill_truncated_at_end(unsigned char *dst, size_t len)
{
    static const char *const starts[] = {"\xF0\x9F\x98", "\xC3", "\xE2\x82", "\xF4\x8F",
                                         "\xE0", "\xF1\x80\x80", "\xED\x9F"};
    const char *t = starts[len % COUNT(starts)];
    size_t n = strlen(t);
    if (n > len) {
        n = len;
    }
    fill_multilingual(dst, len - n);
    memcpy(dst + len - n, t, n);
}

/* Pseudo-random fragments, valid and not: the reference decides. */
static void fill_mixed_random(unsigned char *dst, size_t len)
{
    static const char *const fragments[] = {
        "ab", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x80", "\xC3", "\xE0\x80",
        "\xED\xA0", "\xF4\x90", "\xF8", "0123456789abcdef", "\xEF\xBB\xBF", "\\",
    };
    unsigned long x = 2463534242UL + (unsigned long)len;
    size_t pos = 0;
    while (pos < len) {
        const char *f;
        size_t n;
        x ^= x << 13;
        x &= 0xFFFFFFFFUL;
        x ^= x >> 17;
        x ^= x << 5;
        x &= 0xFFFFFFFFUL;
        f = fragments[x % COUNT(fragments)];
        n = strlen(f);
        if (n > len - pos) {
            n = len - pos;
        }
        memcpy(dst + pos, f, n);
        pos += n;
    }
}

static const struct {
    const char *name;
    void (*fill)(unsigned char *dst, size_t len);
} CONTENTS[] = {
    {"ASCII", fill_ascii},
    {"multilingual", fill_multilingual},
    {"error at end", fill_error_at_end},
    {"truncated at end", fill_truncated_at_end},
    {"mixed random", fill_mixed_random},
};

/* ---------------------------------------------------------------------------------
 * The memory: [no-access page][data pages][no-access page].
 */

static size_t page;
static unsigned char *low_guard, *data, *high_guard;
static size_t data_size;

static void map_guarded(size_t max_len)
{
    data_size = ((max_len + page - 1) / page + 1) * page;
    data = guard_alloc(data_size);
    low_guard = data - page;
    high_guard = data + data_size;
}

/* The guards must really fault, or the test could not fail. */
static void check_guards_fault(void)
{
    static const char *const names[] = {"low", "high", "output"};
    const unsigned char *guards[3];
    int g;
    guards[0] = low_guard + page - 1;
    guards[1] = high_guard;
    guards[2] = out_guard;
    for (g = 0; g < 3; g++) {
        CHECK(guard_read_faults(guards[g]), "reading the %s guard page did not fault",
              names[g]);
    }
}

/* Fills the input at buf (and, for C strings, the NUL after it), with continuation
 * bytes as poison around it within the readable pages; returns the reference. */
static struct rfc3629_result place(unsigned char *buf, size_t len, size_t content, int cstr)
{
    const size_t margin = 64;
    size_t size = len + (cstr ? 1 : 0);
    unsigned char *lo = buf > data + margin ? buf - margin : data;
    unsigned char *hi = buf + size + margin < high_guard ? buf + size + margin : high_guard;
    memset(lo, 0x80, (size_t)(hi - lo));
    CONTENTS[content].fill(buf, len);
    if (cstr) {
        buf[len] = '\0';
    }
    return rfc3629_check(buf, len);
}

static void run_case(size_t len, size_t content, int at_end)
{
    /* BYTES: the input's last byte is the last readable one, or its first byte the
     * first. CSTR: the same for the string including its NUL. */
    unsigned char *buf = at_end ? high_guard - len : data;
    unsigned char *cbuf = at_end ? high_guard - len - 1 : data;
    struct rfc3629_result want = place(buf, len, content, 0);
    struct rfc3629_result cwant;
    size_t p;

    for (p = 0; p < COUNT(API_PROBES); p++) {
        if (API_PROBES[p].layout == BYTES) {
            sprintf(current_case, "%s, %s, len %zu, input %s the page edge", API_PROBES[p].name,
                    CONTENTS[content].name, len, at_end ? "ending at" : "starting at");
            API_PROBES[p].probe((const char *)buf, len, &want);
        }
    }
    strcpy(current_case, "placing the C string (the test itself)");
    cwant = place(cbuf, len, content, 1);
    CHECK(memchr(cbuf, 0, len) == NULL, "%s, len %zu: a NUL inside the C string",
          CONTENTS[content].name, len);
    for (p = 0; p < COUNT(API_PROBES); p++) {
        if (API_PROBES[p].layout == CSTR) {
            sprintf(current_case, "%s, %s, strlen %zu, string %s the page edge",
                    API_PROBES[p].name, CONTENTS[content].name, len,
                    at_end ? "(with its NUL) ending at" : "starting at");
            API_PROBES[p].probe((const char *)cbuf, len, &cwant);
        }
    }
    strcpy(current_case, "between cases");
}

/* The output area of utf8_escape/utf8_replace: room for 4 * MAX_LEN + 1 bytes, then a
 * no-access page; out_guard points at that page. */
static void map_output(void)
{
    size_t size = (4 * MAX_LEN + 1 + page - 1) / page * page;
    out_guard = guard_alloc(size) + size;
}

int main(void)
{
    static const size_t large[] = {1000, 4095, 4096, 4097, MAX_LEN};
    size_t len, c, i;

    setvbuf(stdout, NULL, _IOLBF, 0);
    page = guard_page_size();
    map_guarded(MAX_LEN + 1);
    map_output();
    check_guards_fault();
    guard_report_faults(on_fault);

    for (c = 0; c < COUNT(CONTENTS); c++) {
        for (len = 0; len <= 512; len++) {
            run_case(len, c, 1);
            run_case(len, c, 0);
        }
        for (i = 0; i < COUNT(large); i++) {
            run_case(large[i], c, 1);
            run_case(large[i], c, 0);
        }
    }
    printf("guard pages: page size %zu, %zu contents, lengths 0..=512 and %zu large, %zu functions\n",
           page, COUNT(CONTENTS), COUNT(large), COUNT(API_PROBES));
    return check_summary();
}
