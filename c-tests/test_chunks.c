/*
 * test_chunks.c: utf8_validate_chunk over multilingual text split at every point
 * (2 chunks) and every pair of points (3 chunks), valid and with errors; ERROR is
 * absorbing.
 *
 * Expectations come from the draft's state list, not from the library: inside a
 * character, the state is fixed by its lead byte and how many of its bytes were read
 * (e.g. after E0 the machine is in C, after E0 A4 in A); at a character boundary it
 * is START. The text is written as hex escapes of its UTF-8 encoding.
 */
#include <string.h>

#include "check.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
    const char *script;
    const char *text;
} TEXTS[] = {
    /* "Grüße, Jürgen! Ça va? Œuvre, façade, naïve; ß≠ss." */
    {"Latin", "Gr\xC3\xBC\xC3\x9F" "e, J\xC3\xBCrgen! \xC3\x87" "a va? \xC5\x92uvre, fa\xC3\xA7"
              "ade, na\xC3\xAFve; \xC3\x9F\xE2\x89\xA0ss."},
    /* "Καλημέρα κόσμε, ὦ ξεῖν᾽" (U+1F66, U+1FD6, U+1FBD are 3-byte) */
    {"Greek", "\xCE\x9A\xCE\xB1\xCE\xBB\xCE\xB7\xCE\xBC\xCE\xAD\xCF\x81\xCE\xB1 \xCE\xBA\xCF\x8C"
              "\xCF\x83\xCE\xBC\xCE\xB5, \xE1\xBD\xA6 \xCE\xBE\xCE\xB5\xE1\xBF\x96\xCE\xBD\xE1\xBE\xBD"},
    /* "日本語の文章と中文，한국어" (Hangul starts with ED: state D) */
    {"CJK", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE\xE6\x96\x87\xE7\xAB\xA0\xE3\x81\xA8"
            "\xE4\xB8\xAD\xE6\x96\x87\xEF\xBC\x8C\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4"},
    /* "😀 👍🏽 🇩🇪 👨‍👩‍👧 🏴 + tags gbsct + cancel tag" (flag of Scotland: F3 lead bytes) */
    {"emoji", "\xF0\x9F\x98\x80 \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xF0\x9F\x87\xA9\xF0\x9F\x87\xAA "
              "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 \xF0\x9F\x8F"
              "\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xB3\xF3\xA0\x81\xA3\xF3\xA0\x81\xB4"
              "\xF3\xA0\x81\xBF"},
    /* "नमस्ते दुनिया" (Devanagari starts with E0: state C) */
    {"Hindi", "\xE0\xA4\xA8\xE0\xA4\xAE\xE0\xA4\xB8\xE0\xA5\x8D\xE0\xA4\xA4\xE0\xA5\x87 \xE0\xA4"
              "\xA6\xE0\xA5\x81\xE0\xA4\xA8\xE0\xA4\xBF\xE0\xA4\xAF\xE0\xA4\xBE"},
    /* The edges of each RFC 3629 form: U+007F U+0080 U+07FF U+0800 U+0FFF U+1000 U+D7FF
       U+E000 U+FFFD U+FFFF U+10000 U+3FFFF U+40000 U+FFFFF U+100000 U+10FFFF */
    {"edges", "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xE0\xBF\xBF\xE1\x80\x80\xED\x9F\xBF\xEE\x80\x80"
              "\xEF\xBF\xBD\xEF\xBF\xBF\xF0\x90\x80\x80\xF0\xBF\xBF\xBF\xF1\x80\x80\x80\xF3\xBF\xBF"
              "\xBF\xF4\x80\x80\x80\xF4\x8F\xBF\xBF"},
};

static int is_continuation(unsigned char b)
{
    return b >= 0x80 && b <= 0xBF;
}

/*
 * The draft's state after s[0..k) of valid text s: START at a character boundary,
 * else determined by the character's lead byte and the number of its bytes read.
 */
static utf8_state state_inside(const unsigned char *s, size_t n, size_t k)
{
    size_t lead = k;
    unsigned char l;
    if (k == n || !is_continuation(s[k])) {
        return UTF8_STATE_START;
    }
    while (lead > 0 && is_continuation(s[lead])) {
        lead--;
    }
    l = s[lead];
    switch (k - lead) {
    case 1: /* only the lead byte read */
        if (l >= 0xC2 && l <= 0xDF) return UTF8_STATE_A;
        if (l == 0xE0) return UTF8_STATE_C;
        if (l == 0xED) return UTF8_STATE_D;
        if (l >= 0xE1 && l <= 0xEF) return UTF8_STATE_B;
        if (l == 0xF0) return UTF8_STATE_F;
        if (l >= 0xF1 && l <= 0xF3) return UTF8_STATE_E;
        if (l == 0xF4) return UTF8_STATE_G;
        break;
    case 2: /* lead and one continuation byte read */
        if (l >= 0xE0 && l <= 0xEF) return UTF8_STATE_A;
        if (l >= 0xF0 && l <= 0xF4) return UTF8_STATE_B;
        break;
    case 3:
        if (l >= 0xF0 && l <= 0xF4) return UTF8_STATE_A;
        break;
    default:
        break;
    }
    check_fail(__FILE__, __LINE__, "test text is not valid UTF-8 at %zu", lead);
    return UTF8_STATE_ERROR;
}

static utf8_state three_chunks(const unsigned char *s, size_t n, size_t i, size_t j)
{
    utf8_state st = t_chunk(UTF8_STATE_START, s, i);
    st = t_chunk(st, s + i, j - i);
    return t_chunk(st, s + j, n - j);
}

static void test_valid_text(const char *script, const unsigned char *s, size_t n)
{
    size_t i, j, k;
    int all_three_way = 1;
    CHECK(t_validate(s, n), "%s text: utf8_validate", script);
    CHECK(t_first_error(s, n) == n, "%s text: utf8_first_error", script);
    for (k = 0; k <= n; k++) {
        utf8_state first = t_chunk(UTF8_STATE_START, s, k);
        utf8_state want = state_inside(s, n, k);
        utf8_state end = t_chunk(first, s + k, n - k);
        CHECK(first == want, "%s text cut at %zu: state %s, draft says %s", script, k,
              state_name(first), state_name(want));
        CHECK(end == UTF8_STATE_START, "%s text split at %zu: final state %s, want START", script,
              k, state_name(end));
    }
    for (i = 0; i <= n; i++) {
        for (j = i; j <= n; j++) {
            utf8_state end = three_chunks(s, n, i, j);
            if (end != UTF8_STATE_START) {
                all_three_way = 0;
                CHECK(end == UTF8_STATE_START, "%s text split at %zu and %zu: final state %s",
                      script, i, j, state_name(end));
            }
        }
    }
    CHECK(all_three_way, "%s text: every 3-way split ends in START", script);
}

/* The text with a stray continuation byte inserted at `at`: ERROR at every split. */
static void test_text_with_stray_byte(const char *script, const unsigned char *s, size_t n,
                                      size_t at)
{
    unsigned char buf[256];
    size_t i, j, m = n + 1;
    int all_error = 1;
    memcpy(buf, s, at);
    buf[at] = 0x80;
    memcpy(buf + at + 1, s + at, n - at);
    CHECK(!t_validate(buf, m), "%s text + stray 80 at %zu: utf8_validate", script, at);
    CHECK(t_first_error(buf, m) == at, "%s text + stray 80 at %zu: utf8_first_error = %zu",
          script, at, t_first_error(buf, m));
    for (i = 0; i <= m; i++) {
        for (j = i; j <= m; j++) {
            if (three_chunks(buf, m, i, j) != UTF8_STATE_ERROR) {
                all_error = 0;
                CHECK(0, "%s text + stray 80 at %zu, split at %zu and %zu: not ERROR", script, at,
                      i, j);
            }
        }
    }
    CHECK(all_error, "%s text + stray 80 at %zu: every split ends in ERROR", script, at);
}

/* The text followed by F0 9F (the start of U+1F600): truncated, state B at the end. */
static void test_text_truncated(const char *script, const unsigned char *s, size_t n)
{
    unsigned char buf[256];
    size_t k, m = n + 2;
    memcpy(buf, s, n);
    buf[n] = 0xF0;
    buf[n + 1] = 0x9F;
    CHECK(!t_validate(buf, m), "%s text + F0 9F: utf8_validate", script);
    CHECK(t_first_error(buf, m) == n, "%s text + F0 9F: utf8_first_error = %zu, want %zu",
          script, t_first_error(buf, m), n);
    for (k = 0; k <= m; k++) {
        utf8_state end = t_chunk(t_chunk(UTF8_STATE_START, buf, k), buf + k, m - k);
        CHECK(end == UTF8_STATE_B, "%s text + F0 9F split at %zu: %s, want B", script, k,
              state_name(end));
    }
}

static void test_error_absorbing(void)
{
    size_t t;
    utf8_state st = t_chunk(UTF8_STATE_START, "ab\xFF", 3);
    CHECK(st == UTF8_STATE_ERROR, "\"ab\\xFF\" from START: %s", state_name(st));
    for (t = 0; t < COUNT(TEXTS); t++) {
        size_t n = strlen(TEXTS[t].text);
        CHECK(t_chunk(UTF8_STATE_ERROR, TEXTS[t].text, n) == UTF8_STATE_ERROR,
              "ERROR then valid %s text", TEXTS[t].script);
        st = t_chunk(st, TEXTS[t].text, n);
    }
    CHECK(st == UTF8_STATE_ERROR, "ERROR then every text: %s", state_name(st));
    CHECK(t_chunk(UTF8_STATE_ERROR, "", 0) == UTF8_STATE_ERROR, "ERROR then nothing");
    CHECK(t_chunk(UTF8_STATE_ERROR, "\x80", 1) == UTF8_STATE_ERROR, "ERROR then 80");
    CHECK(t_chunk(UTF8_STATE_ERROR, "\xC3\xA9", 2) == UTF8_STATE_ERROR, "ERROR then C3 A9");
}

/* All texts one after the other, cut at the texts' boundaries and in the middle. */
static void test_concatenation(void)
{
    unsigned char all[1024];
    size_t t, n = 0;
    utf8_state st = UTF8_STATE_START;
    for (t = 0; t < COUNT(TEXTS); t++) {
        size_t len = strlen(TEXTS[t].text);
        memcpy(all + n, TEXTS[t].text, len);
        n += len;
        st = t_chunk(st, TEXTS[t].text, len);
        CHECK(st == UTF8_STATE_START, "texts up to %s, chunk by chunk: %s", TEXTS[t].script,
              state_name(st));
    }
    CHECK(t_validate(all, n), "all texts: utf8_validate");
    CHECK(t_first_error(all, n) == n, "all texts: utf8_first_error");
    CHECK(t_chunk(t_chunk(UTF8_STATE_START, all, n / 2), all + n / 2, n - n / 2) == UTF8_STATE_START,
          "all texts, halves");
}

void test_chunks(void)
{
    size_t t;
    for (t = 0; t < COUNT(TEXTS); t++) {
        const unsigned char *s = (const unsigned char *)TEXTS[t].text;
        size_t n = strlen(TEXTS[t].text);
        size_t middle = n / 2;
        while (middle < n && is_continuation(s[middle])) {
            middle++;
        }
        test_valid_text(TEXTS[t].script, s, n);
        test_text_with_stray_byte(TEXTS[t].script, s, n, middle);
        test_text_truncated(TEXTS[t].script, s, n);
    }
    test_error_absorbing();
    test_concatenation();
}
