/*
 * oracle.h: the C tests' independent oracle for UTF-8 well-formedness, shared by
 * guard_pages.c and fuzz/fuzz_c_api.c (one copy, so that a fix reaches both).
 *
 * What it computes, for a byte string s[0..n):
 * - rfc3629_char_at: how far the bytes at one position follow one UTF8-char;
 * - rfc3629_check: whether s is well-formed UTF-8, the offset of its first ill-formed
 *   sequence, the length of that sequence's maximal subpart, and whether the input
 *   merely ends inside a character;
 * - rfc3629_render: the text utf8_replace / utf8_escape / utf8_escape_quoted must
 *   produce for s, built from rfc3629_char_at (one U+FFFD per maximal subpart; `\\`,
 *   `\x00`, `\xHH`; for the quoted one, `\xHH` for quotes and line-ending characters);
 * - rfc3629_boundaries: the offsets between units (whole characters and maximal
 *   subparts), where utf8_truncate and utf8_error_context may cut;
 * - percent_decode: the decoding utf8_check_percent documents (RFC 3986 section 2.1
 *   escapes; any other "%" is itself), with where each decoded byte starts.
 * Every offset and length is in bytes.
 *
 * It follows the ABNF of RFC 3629 section 4 (UTF8-char, one table row per alternative
 * below), which is the same set of byte sequences as Unicode Table 3-7 "Well-Formed
 * UTF-8 Byte Sequences"; the maximal subpart is that of Unicode section 3.9
 * (definition D93b): the longest prefix of a well-formed sequence that begins at the
 * offset, or the one byte there when no well-formed sequence begins with it. It is
 * written from those texts, independently of the library: it does not use the library's
 * header, state machine, byte classes or tables, and it is deliberately naive (a table
 * lookup per lead byte, one range check per later byte), so it is easy to check against
 * the RFC by eye.
 *
 * Header only (static inline functions), C99; needs no library.
 */
#ifndef C_TESTS_ORACLE_H
#define C_TESTS_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* How the oracle's functions are declared. A fuzzer defines it before including
 * this file to leave them out of its coverage feedback (the guidance should come
 * from the library's branches, not from the oracle's). */
#ifndef ORACLE_FN
#define ORACLE_FN static inline
#endif

/* What the grammar says about the bytes at one position. */
struct rfc3629_char {
    /* The length in bytes of the UTF8-char alternative whose first octet is s[0];
     * 0 when no alternative begins with s[0] (80-BF, C0-C1, F5-FF). */
    size_t need;
    /* How many bytes from s[0] follow that alternative (1..need, at most n; 0 when
     * need is 0). matched == need: a whole UTF8-char; less: the maximal subpart. */
    size_t matched;
};

/* At s[0] (n >= 1 bytes readable from s): the UTF8-char s[0] begins, and how many
 * bytes of it follow. Reads s[0..min(need, n)) at most. */
ORACLE_FN struct rfc3629_char rfc3629_char_at(const unsigned char *s, size_t n)
{
    /* RFC 3629 section 4:
     *   UTF8-char = UTF8-1 / UTF8-2 / UTF8-3 / UTF8-4
     *   UTF8-tail = %x80-BF
     * One row per alternative: the first octet's range, the second octet's range (the
     * octets after the second are UTF8-tail), and the alternative's length. */
    static const struct {
        unsigned char lead_lo, lead_hi;
        unsigned char second_lo, second_hi;
        size_t len;
    } forms[] = {
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
    struct rfc3629_char c = {0, 0};
    size_t f;
    for (f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        if (s[0] >= forms[f].lead_lo && s[0] <= forms[f].lead_hi) {
            break;
        }
    }
    if (f == sizeof forms / sizeof forms[0]) {
        return c; /* no UTF8-char begins with s[0] */
    }
    c.need = forms[f].len;
    for (c.matched = 1; c.matched < c.need && c.matched < n; c.matched++) {
        unsigned char lo = c.matched == 1 ? forms[f].second_lo : 0x80;
        unsigned char hi = c.matched == 1 ? forms[f].second_hi : 0xBF;
        if (s[c.matched] < lo || s[c.matched] > hi) {
            break;
        }
    }
    return c;
}

/* The verdict on a whole input. */
struct rfc3629_result {
    bool valid;     /* s[0..n) is a sequence of UTF8-char (UTF8-octets) */
    size_t offset;  /* the first byte of the first ill-formed sequence; n when valid */
    size_t length;  /* its maximal subpart (Unicode 3.9), >= 1; 0 when valid */
    size_t need;    /* the length of the UTF8-char s[offset] begins, 0 when none or valid */
    bool truncated; /* invalid only because the input ends inside a UTF8-char: the
                       maximal subpart runs to n */
};

/* Checks s[0..n) (s may be NULL when n == 0). */
ORACLE_FN struct rfc3629_result rfc3629_check(const unsigned char *s, size_t n)
{
    struct rfc3629_result r = {true, 0, 0, 0, false};
    size_t i = 0;
    r.offset = n;
    while (i < n) {
        struct rfc3629_char c = rfc3629_char_at(s + i, n - i);
        if (c.need != 0 && c.matched == c.need) {
            i += c.need;
            continue;
        }
        r.valid = false;
        r.offset = i;
        r.length = c.need == 0 ? 1 : c.matched;
        r.need = c.need;
        r.truncated = c.need != 0 && i + c.matched == n;
        return r;
    }
    return r;
}

/* The renderings: utf8_replace's, utf8_escape's and utf8_escape_quoted's. */
enum { RFC3629_REPLACE = 0, RFC3629_ESCAPE = 1, RFC3629_QUOTED = 2 };

/* The rendering of s[0..n) that utf8_replace (RFC3629_REPLACE, or false: each maximal
 * subpart becomes U+FFFD, EF BF BD), utf8_escape (RFC3629_ESCAPE, or true: `\` becomes
 * `\\`, NUL `\x00`, each byte of each maximal subpart `\xHH` with upper-case hex) or
 * utf8_escape_quoted (RFC3629_QUOTED: as utf8_escape, and each byte of `"`, of a C0 or
 * C1 control character, of DEL and of U+2028 and U+2029 `\xHH` too) must produce;
 * other well-formed characters are copied. Writes it to out (room for 4n bytes) and
 * the end offset in out of each unit (a whole character, one U+FFFD or one `\xHH`) to
 * ends (room for n entries); returns the number of units (the rendering's length is
 * ends[units - 1], or 0 when there are none). */
ORACLE_FN size_t rfc3629_render(const unsigned char *s, size_t n, int mode,
                                    unsigned char *out, size_t *ends)
{
    static const char digits[] = "0123456789ABCDEF";
    size_t i = 0, w = 0, units = 0, k;
    while (i < n) {
        struct rfc3629_char c = rfc3629_char_at(s + i, n - i);
        bool whole = c.need != 0 && c.matched == c.need;
        size_t width = whole ? c.need : (c.need == 0 ? 1 : c.matched);
        /* Quoted: the characters that would end a line or a quoted value. */
        bool line_or_quote = whole && mode == RFC3629_QUOTED &&
                             (s[i] < 0x20 || s[i] == '"' || s[i] == 0x7F ||
                              (s[i] == 0xC2 && s[i + 1] < 0xA0) ||
                              (s[i] == 0xE2 && s[i + 1] == 0x80 &&
                               (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)));
        if (whole && mode != RFC3629_REPLACE && s[i] == '\\') {
            memcpy(out + w, "\\\\", 2);
            w += 2;
            ends[units++] = w;
        } else if ((whole && mode != RFC3629_REPLACE && s[i] == 0) || line_or_quote ||
                   (!whole && mode != RFC3629_REPLACE)) {
            for (k = 0; k < width; k++) {
                out[w++] = '\\';
                out[w++] = 'x';
                out[w++] = (unsigned char)digits[s[i + k] >> 4];
                out[w++] = (unsigned char)digits[s[i + k] & 15];
                ends[units++] = w;
            }
        } else if (whole) {
            memcpy(out + w, s + i, width);
            w += width;
            ends[units++] = w;
        } else {
            memcpy(out + w, "\xEF\xBF\xBD", 3);
            w += 3;
            ends[units++] = w;
        }
        i += width;
    }
    return units;
}

/* The unit boundaries of s[0..n): 0, the end of each whole character and of each
 * maximal subpart, n. cuts needs room for n + 1 entries; returns their number. */
ORACLE_FN size_t rfc3629_boundaries(const unsigned char *s, size_t n, size_t *cuts)
{
    size_t i = 0, k = 0;
    cuts[k++] = 0;
    while (i < n) {
        struct rfc3629_char c = rfc3629_char_at(s + i, n - i);
        i += (c.need != 0 && c.matched == c.need) ? c.need : (c.need == 0 ? 1 : c.matched);
        cuts[k++] = i;
    }
    return k;
}

/* The value of a hexadecimal digit, or -1. */
ORACLE_FN int percent_hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* raw[0..n) decoded byte by byte: "%" and two hexadecimal digits is one byte, anything
 * else is itself. Writes the decoded bytes to out (room for n) and, unless starts is
 * NULL, where decoded byte j begins in raw to starts[j] (room for n + 1; starts[the
 * decoded length] is n). Returns the decoded length. */
ORACLE_FN size_t percent_decode(const unsigned char *raw, size_t n, unsigned char *out,
                                    size_t *starts)
{
    size_t i = 0, w = 0;
    while (i < n) {
        if (starts != NULL) starts[w] = i;
        if (raw[i] == '%' && i + 2 < n && percent_hex_digit(raw[i + 1]) >= 0 &&
            percent_hex_digit(raw[i + 2]) >= 0) {
            out[w++] = (unsigned char)(percent_hex_digit(raw[i + 1]) * 16 +
                                       percent_hex_digit(raw[i + 2]));
            i += 3;
        } else {
            out[w++] = raw[i++];
        }
    }
    if (starts != NULL) starts[w] = n;
    return w;
}

#endif /* C_TESTS_ORACLE_H */
