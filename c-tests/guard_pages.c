/*
 * guard_pages.c: no public function may read outside [buf, buf + len).
 *
 * Every input is placed twice in memory obtained from mmap: so that its last byte is
 * the last byte of a page followed by a PROT_NONE page ("end"), and so that its first
 * byte is the first byte of a page preceded by a PROT_NONE page ("start"). A read past
 * either edge raises SIGSEGV; the handler names the case and re-raises, so the process
 * dies by the signal and tests/c_suite.rs reports it. The readable bytes around the
 * input are filled with continuation bytes, so a read of them would also change the
 * answer of a truncated input and be caught as a wrong result.
 *
 * Lengths 0..=512 and a few large ones; several contents; the expected results come
 * from reference() below, the RFC 3629 section 4 grammar written out naively, not
 * from the library. Prints "N passed, M failed" last; exits non-zero on failure.
 *
 * To cover a new public function, add one probe to API_PROBES (the only list of
 * functions in this file).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, sigaction, fork */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------------------
 * The reference: RFC 3629 section 4, UTF8-char, one alternative per line.
 */

static const struct {
    unsigned char lead_lo, lead_hi;     /* the first octet */
    unsigned char second_lo, second_hi; /* the second octet (later ones: UTF8-tail) */
    size_t len;
} RFC3629_FORMS[] = {
    {0x00, 0x7F, 0x00, 0x00, 1}, /* UTF8-1 = %x00-7F */
    {0xC2, 0xDF, 0x80, 0xBF, 2}, /* UTF8-2 = %xC2-DF UTF8-tail */
    {0xE0, 0xE0, 0xA0, 0xBF, 3}, /* UTF8-3 = %xE0 %xA0-BF UTF8-tail */
    {0xE1, 0xEC, 0x80, 0xBF, 3}, /*        / %xE1-EC 2( UTF8-tail ) */
    {0xED, 0xED, 0x80, 0x9F, 3}, /*        / %xED %x80-9F UTF8-tail */
    {0xEE, 0xEF, 0x80, 0xBF, 3}, /*        / %xEE-EF 2( UTF8-tail ) */
    {0xF0, 0xF0, 0x90, 0xBF, 4}, /* UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) */
    {0xF1, 0xF3, 0x80, 0xBF, 4}, /*        / %xF1-F3 3( UTF8-tail ) */
    {0xF4, 0xF4, 0x80, 0x8F, 4}, /*        / %xF4 %x80-8F 2( UTF8-tail ) */
};

struct expected {
    bool valid;
    size_t first_error; /* the lead byte of the first ill-formed sequence, or len */
    bool truncated;     /* invalid only because the input ends inside a UTF8-char */
};

static struct expected reference(const unsigned char *s, size_t n)
{
    struct expected r = {true, 0, false};
    size_t i = 0;
    while (i < n) {
        size_t f, j, len = 0;
        for (f = 0; f < COUNT(RFC3629_FORMS); f++) {
            if (s[i] >= RFC3629_FORMS[f].lead_lo && s[i] <= RFC3629_FORMS[f].lead_hi) {
                break;
            }
        }
        if (f < COUNT(RFC3629_FORMS)) {
            len = RFC3629_FORMS[f].len;
            for (j = 1; j < len; j++) {
                unsigned char lo = j == 1 ? RFC3629_FORMS[f].second_lo : 0x80;
                unsigned char hi = j == 1 ? RFC3629_FORMS[f].second_hi : 0xBF;
                if (i + j >= n) {
                    r.truncated = true;
                    len = 0;
                    break;
                }
                if (s[i + j] < lo || s[i + j] > hi) {
                    len = 0;
                    break;
                }
            }
        }
        if (len == 0) {
            r.valid = false;
            r.first_error = i;
            return r;
        }
        i += len;
    }
    r.first_error = n;
    return r;
}

/* ---------------------------------------------------------------------------------
 * The case being run, for the signal handler (async-signal-safe: write() only).
 */

static char current_case[256] = "setup";

static void on_fault(int sig)
{
    static const char msg[] = "\nguard pages: memory fault (read outside the buffer) during: ";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    ignored = write(2, current_case, strlen(current_case));
    ignored = write(2, "\n", 1);
    (void)ignored;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---------------------------------------------------------------------------------
 * The public functions under test. Each probe calls one function on buf[0..len) and
 * checks it against the reference. Add new functions here.
 */

typedef void (*probe_fn)(const char *buf, size_t len, const struct expected *want);

/* The state a whole input must end in: START, ERROR, or (truncated) neither. */
static bool chunk_state_ok(utf8_state got, const struct expected *want)
{
    if (want->valid) {
        return got == UTF8_STATE_START;
    }
    if (want->truncated) {
        return got != UTF8_STATE_START && got != UTF8_STATE_ERROR && (unsigned)got < 9;
    }
    return got == UTF8_STATE_ERROR;
}

static void probe_validate(const char *buf, size_t len, const struct expected *want)
{
    bool got = utf8_validate(buf, len);
    CHECK(got == want->valid, "%s: utf8_validate = %d, reference %d", current_case, got,
          want->valid);
}

static void probe_first_error(const char *buf, size_t len, const struct expected *want)
{
    size_t got = utf8_first_error(buf, len);
    CHECK(got == want->first_error, "%s: utf8_first_error = %zu, reference %zu", current_case,
          got, want->first_error);
}

static void probe_chunk_whole(const char *buf, size_t len, const struct expected *want)
{
    utf8_state got = utf8_validate_chunk(UTF8_STATE_START, buf, len);
    CHECK(chunk_state_ok(got, want), "%s: utf8_validate_chunk(START) = %s (valid %d, truncated %d)",
          current_case, state_name(got), want->valid, want->truncated);
}

/* Two pieces, so that each edge of the buffer is also the edge of a piece. */
static void probe_chunk_split(const char *buf, size_t len, const struct expected *want)
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

static const struct {
    const char *name;
    probe_fn probe;
} API_PROBES[] = {
    {"utf8_validate", probe_validate},
    {"utf8_first_error", probe_first_error},
    {"utf8_validate_chunk", probe_chunk_whole},
    {"utf8_validate_chunk (2 pieces)", probe_chunk_split},
};

/* ---------------------------------------------------------------------------------
 * Contents: each fills dst[0..len) exactly.
 */

/* Whole characters from several scripts, then ASCII to reach exactly len. */
static void fill_multilingual(unsigned char *dst, size_t len)
{
    static const char *const pieces[] = {
        "a",  "\xC3\xA9" /* é */, "\xE2\x82\xAC" /* € */, "\xF0\x9F\x98\x80" /* 😀 */,
        " ", "\xED\x95\x9C" /* 한 */, "\xE0\xA4\xA8" /* न */, "\xCE\xA9" /* Ω */,
        "\xF4\x8F\xBF\xBF" /* U+10FFFF */, "\xF3\xA0\x81\xA7" /* U+E0067 */, "Zz",
    };
    size_t pos = 0, p = 0;
    while (pos < len) {
        const char *piece = pieces[p++ % COUNT(pieces)];
        size_t n = strlen(piece);
        if (pos + n > len) {
            piece = "x";
            n = 1;
        }
        memcpy(dst + pos, piece, n);
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
        "\xED\xA0", "\xF4\x90", "\xF8", "0123456789abcdef", "\xEF\xBB\xBF",
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
 * The memory: [PROT_NONE page][data pages][PROT_NONE page].
 */

static size_t page;
static unsigned char *low_guard, *data, *high_guard;
static size_t data_size;

static void map_guarded(size_t max_len)
{
    size_t data_pages = (max_len + page - 1) / page + 1;
    unsigned char *m;
    data_size = data_pages * page;
    m = (unsigned char *)mmap(NULL, data_size + 2 * page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    low_guard = m;
    data = m + page;
    high_guard = data + data_size;
    if (mprotect(low_guard, page, PROT_NONE) != 0 || mprotect(high_guard, page, PROT_NONE) != 0) {
        perror("mprotect");
        exit(2);
    }
}

/* The guards must really fault, or the test could not fail: read each in a child. */
static void check_guards_fault(void)
{
    const unsigned char *guards[2];
    int g;
    guards[0] = low_guard + page - 1;
    guards[1] = high_guard;
    for (g = 0; g < 2; g++) {
        int status = 0;
        pid_t pid;
        fflush(stdout);
        pid = fork();
        if (pid < 0) {
            perror("fork");
            exit(2);
        }
        if (pid == 0) {
            volatile unsigned char sink;
            signal(SIGSEGV, SIG_DFL);
            signal(SIGBUS, SIG_DFL);
            sink = *(volatile const unsigned char *)guards[g];
            (void)sink;
            _exit(0); /* reached only if the guard page is readable */
        }
        if (waitpid(pid, &status, 0) != pid) {
            perror("waitpid");
            exit(2);
        }
        CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0),
              "reading the %s guard page did not fault", g == 0 ? "low" : "high");
    }
}

static void run_case(size_t len, size_t content, int at_end)
{
    /* Poison: continuation bytes around the input, within the readable pages. */
    const size_t margin = 64;
    unsigned char *buf = at_end ? high_guard - len : data;
    unsigned char *lo = buf - (at_end && len + margin <= data_size ? margin : 0);
    unsigned char *hi = buf + len + (!at_end && len + margin <= data_size ? margin : 0);
    struct expected want;
    size_t p;

    memset(lo, 0x80, (size_t)(hi - lo));
    CONTENTS[content].fill(buf, len);
    want = reference(buf, len);
    for (p = 0; p < COUNT(API_PROBES); p++) {
        sprintf(current_case, "%s, %s, len %zu, input %s the page edge", API_PROBES[p].name,
                CONTENTS[content].name, len, at_end ? "ending at" : "starting at");
        API_PROBES[p].probe((const char *)buf, len, &want);
    }
    strcpy(current_case, "between cases");
}

int main(void)
{
    static const size_t large[] = {1000, 4095, 4096, 4097, 65536 + 17};
    size_t len, c, i;
    struct sigaction sa;

    setvbuf(stdout, NULL, _IOLBF, 0);
    page = (size_t)sysconf(_SC_PAGESIZE);
    map_guarded(65536 + 17);
    check_guards_fault();

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);

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
