/*
 * test_examples.c: the worked examples of RFC 3629 and RFC 2279, the byte sequences
 * each row of RFC 2279's table allowed (and which of them RFC 3629 forbids), the
 * offsets utf8_first_error must give for truncated sequences and stray continuation
 * bytes, and NULL / empty buffers.
 *
 * Every expectation was written by hand from the RFC text: the offset is that of the
 * lead byte of the first ill-formed sequence (a truncated sequence reports its lead
 * byte), and the final state is the draft's state after the bytes (ERROR once an
 * ill-formed sequence is seen; A-G when the input stops inside a sequence).
 */
#include <string.h>

#include "check.h"

struct example {
    const char *what;
    const char *bytes;
    size_t len;
    size_t first_error; /* == len when the bytes are valid */
    utf8_state end;     /* the state utf8_validate_chunk ends in, from START */
};

#define VALID(what, lit) {what, lit, sizeof(lit) - 1, sizeof(lit) - 1, UTF8_STATE_START}
#define INVALID(what, lit, offset, end) {what, lit, sizeof(lit) - 1, offset, end}
#define ERR UTF8_STATE_ERROR

static const struct example EXAMPLES[] = {
    /* RFC 3629 section 7 (and RFC 2279 section 4), "Examples". */
    VALID("RFC 3629 s7: A<NOT IDENTICAL TO><ALPHA>. (U+0041 U+2262 U+0391 U+002E)",
          "\x41\xE2\x89\xA2\xCE\x91\x2E"),
    VALID("RFC 3629 s7: Korean \"hangugo\" (U+D55C U+AD6D U+C5B4)",
          "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4"),
    VALID("RFC 3629 s7: Japanese \"nihongo\" (U+65E5 U+672C U+8A9E)",
          "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"),
    VALID("RFC 3629 s7: U+233B4 preceded by a BOM (U+FEFF)", "\xEF\xBB\xBF\xF0\xA3\x8E\xB4"),

    /* RFC 3629 section 4, the worked validation examples. */
    VALID("RFC 3629 s4 valid 1: 'A'", "\x41"),
    VALID("RFC 3629 s4 valid 2: U+00A9", "\xC2\xA9"),
    VALID("RFC 3629 s4 valid 3: U+4F60", "\xE4\xBD\xA0"),
    VALID("RFC 3629 s4 valid 4: U+1F600", "\xF0\x9F\x98\x80"),
    INVALID("RFC 3629 s4 invalid 1: C0 prohibited (overlong)", "\xC0\x80", 0, ERR),
    INVALID("RFC 3629 s4 invalid 2: ED A0 (surrogate)", "\xED\xA0\x80", 0, ERR),
    INVALID("RFC 3629 s4 invalid 3: F5 prohibited (beyond U+10FFFF)", "\xF5\x80\x80\x80", 0, ERR),
    INVALID("RFC 3629 s4 invalid 4: truncated 3-byte sequence", "\xE4\xBD", 0, UTF8_STATE_A),

    /* RFC 3629 section 3: what a naive decoder must not accept. */
    INVALID("RFC 3629 s3: overlong U+0000", "\xC0\x80", 0, ERR),
    INVALID("RFC 3629 s3: surrogate pair for U+233B4", "\xED\xA1\x8C\xED\xBE\xB4", 0, ERR),
    /* RFC 3629 section 10 / RFC 2279 section 6: "/../" with an overlong '.'. */
    VALID("RFC 3629 s10: \"/../\"", "\x2F\x2E\x2E\x2F"),
    INVALID("RFC 3629 s10: 2F C0 AE 2E 2F", "\x2F\xC0\xAE\x2E\x2F", 1, ERR),
    VALID("RFC 2279 s6: NUL as the single octet 00", "\x00"),

    /* RFC 2279 section 2: the first and last value of each row of its table. */
    VALID("RFC 2279 row 1 first: U+0000", "\x00"),
    VALID("RFC 2279 row 1 last: U+007F", "\x7F"),
    VALID("RFC 2279 row 2 first: U+0080", "\xC2\x80"),
    VALID("RFC 2279 row 2 last: U+07FF", "\xDF\xBF"),
    VALID("RFC 2279 row 3 first: U+0800", "\xE0\xA0\x80"),
    VALID("RFC 2279 row 3 last: U+FFFF", "\xEF\xBF\xBF"),
    VALID("RFC 2279 row 4 first: U+10000", "\xF0\x90\x80\x80"),
    VALID("RFC 3629 last scalar value: U+10FFFF", "\xF4\x8F\xBF\xBF"),
    /* ...and what RFC 2279 allowed that RFC 3629 forbids. */
    INVALID("RFC 2279 row 4, beyond U+10FFFF: U+110000", "\xF4\x90\x80\x80", 0, ERR),
    INVALID("RFC 2279 row 4 last: U+1FFFFF", "\xF7\xBF\xBF\xBF", 0, ERR),
    INVALID("RFC 2279 row 5 first (5 bytes): U+200000", "\xF8\x88\x80\x80\x80", 0, ERR),
    INVALID("RFC 2279 row 5 last (5 bytes): U+3FFFFFF", "\xFB\xBF\xBF\xBF\xBF", 0, ERR),
    INVALID("RFC 2279 row 6 first (6 bytes): U+4000000", "\xFC\x84\x80\x80\x80\x80", 0, ERR),
    INVALID("RFC 2279 row 6 last (6 bytes): U+7FFFFFFF", "\xFD\xBF\xBF\xBF\xBF\xBF", 0, ERR),
    INVALID("RFC 2279: octet FE never appears", "\xFE", 0, ERR),
    INVALID("RFC 2279: octet FF never appears", "\xFF", 0, ERR),
    INVALID("UCS-2 surrogate U+D800 encoded directly", "\xED\xA0\x80", 0, ERR),
    INVALID("UCS-2 surrogate U+DFFF encoded directly", "\xED\xBF\xBF", 0, ERR),
    VALID("last scalar value before the surrogates: U+D7FF", "\xED\x9F\xBF"),
    VALID("first scalar value after the surrogates: U+E000", "\xEE\x80\x80"),
    INVALID("overlong '/' in 2 bytes", "\xC0\xAF", 0, ERR),
    INVALID("overlong '/' in 3 bytes", "\xE0\x80\xAF", 0, ERR),
    INVALID("overlong '/' in 4 bytes", "\xF0\x80\x80\xAF", 0, ERR),
    INVALID("overlong '/' in 5 bytes (RFC 2279 form)", "\xF8\x80\x80\x80\xAF", 0, ERR),
    INVALID("overlong U+07FF in 3 bytes", "\xE0\x9F\xBF", 0, ERR),
    INVALID("overlong U+FFFF in 4 bytes", "\xF0\x8F\xBF\xBF", 0, ERR),

    /* Truncated sequences: the offset is the lead byte's; the state says what is missing. */
    INVALID("truncated 2-byte: C3", "ab\xC3", 2, UTF8_STATE_A),
    INVALID("truncated 3-byte: E2", "ab\xE2", 2, UTF8_STATE_B),
    INVALID("truncated 3-byte: E2 82", "ab\xE2\x82", 2, UTF8_STATE_A),
    INVALID("truncated 3-byte: E0", "ab\xE0", 2, UTF8_STATE_C),
    INVALID("truncated 3-byte: E0 A0", "ab\xE0\xA0", 2, UTF8_STATE_A),
    INVALID("truncated 3-byte: ED", "ab\xED", 2, UTF8_STATE_D),
    INVALID("truncated 3-byte: ED 9F", "ab\xED\x9F", 2, UTF8_STATE_A),
    INVALID("truncated 4-byte: F0", "ab\xF0", 2, UTF8_STATE_F),
    INVALID("truncated 4-byte: F0 9F", "ab\xF0\x9F", 2, UTF8_STATE_B),
    INVALID("truncated 4-byte: F0 9F 98", "ab\xF0\x9F\x98", 2, UTF8_STATE_A),
    INVALID("truncated 4-byte: F1", "ab\xF1", 2, UTF8_STATE_E),
    INVALID("truncated 4-byte: F1 80", "ab\xF1\x80", 2, UTF8_STATE_B),
    INVALID("truncated 4-byte: F1 80 80", "ab\xF1\x80\x80", 2, UTF8_STATE_A),
    INVALID("truncated 4-byte: F4", "ab\xF4", 2, UTF8_STATE_G),
    INVALID("truncated 4-byte: F4 8F", "ab\xF4\x8F", 2, UTF8_STATE_B),
    INVALID("truncated 4-byte: F4 8F BF", "ab\xF4\x8F\xBF", 2, UTF8_STATE_A),
    INVALID("truncated after a valid 4-byte char", "\xF0\x9F\x98\x80\xF0\x9F\x98", 4,
            UTF8_STATE_A),
    INVALID("truncated sequence followed by ASCII", "ab\xE2\x82" "c", 2, ERR),
    INVALID("truncated 4-byte followed by ASCII", "ab\xF0\x9F\x98" "c", 2, ERR),
    INVALID("truncated 2-byte followed by a lead byte", "\xC3\xC3\xA9", 0, ERR),
    INVALID("truncated 3-byte followed by a whole 3-byte", "\xE2\x82\xE2\x82\xAC", 0, ERR),
    INVALID("truncated 2-byte, then valid text", "\xC3" "abc", 0, ERR),

    /* Stray continuation bytes. */
    INVALID("lone continuation 80", "\x80", 0, ERR),
    INVALID("lone continuation BF", "\xBF", 0, ERR),
    INVALID("continuation after ASCII", "abc\x80", 3, ERR),
    INVALID("extra continuation after a 2-byte char", "\xC3\xA9\x80", 2, ERR),
    INVALID("extra continuation after a 3-byte char", "\xE2\x82\xAC\xBF", 3, ERR),
    INVALID("extra continuation after a 4-byte char", "\xF0\x9F\x98\x80\x80", 4, ERR),
    INVALID("two stray continuations", "a\x80\x80", 1, ERR),

    /* Errors after valid text, and in the middle. */
    INVALID("FF after the euro sign", "\xE2\x82\xAC\xFF", 3, ERR),
    INVALID("overlong in the middle", "x\xE0\x80\x80y", 1, ERR),
    INVALID("overlong 4-byte after ASCII", "xy\xF0\x80\x80\x80", 2, ERR),
    INVALID("surrogate after a 2-byte char", "\xC3\xA9\xED\xB0\x80", 2, ERR),
    INVALID("beyond U+10FFFF after ASCII", "xyz\xF4\x90\x80\x80", 3, ERR),
    INVALID("F4 followed by ASCII", "x\xF4" "A", 1, ERR),
    INVALID("valid, then an error, then valid again", "\xCE\xB1\xFE\xCE\xB2", 2, ERR),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void check_example(const struct example *e)
{
    /* The example alone, and again after a valid prefix (offsets shift by its length). */
    static const char prefix[] = "ab\xC3\xA9"; /* "abé" */
    const size_t plen = sizeof prefix - 1;
    char buf[64];
    bool want_valid = e->first_error == e->len;
    size_t offset;
    utf8_state end;

    CHECK(t_validate(e->bytes, e->len) == want_valid, "%s: utf8_validate([%s]) != %d", e->what,
          hex(e->bytes, e->len), want_valid);
    offset = t_first_error(e->bytes, e->len);
    CHECK(offset == e->first_error, "%s: utf8_first_error([%s]) = %zu, want %zu", e->what,
          hex(e->bytes, e->len), offset, e->first_error);
    end = t_chunk(UTF8_STATE_START, e->bytes, e->len);
    CHECK(end == e->end, "%s: utf8_validate_chunk(START, [%s]) = %s, want %s", e->what,
          hex(e->bytes, e->len), state_name(end), state_name(e->end));

    memcpy(buf, prefix, plen);
    memcpy(buf + plen, e->bytes, e->len);
    CHECK(t_validate(buf, plen + e->len) == want_valid, "%s, after \"ab\\xC3\\xA9\"", e->what);
    offset = t_first_error(buf, plen + e->len);
    CHECK(offset == plen + e->first_error,
          "%s, after \"ab\\xC3\\xA9\": utf8_first_error = %zu, want %zu", e->what, offset,
          plen + e->first_error);
    end = t_chunk(UTF8_STATE_START, buf, plen + e->len);
    CHECK(end == e->end, "%s, after \"ab\\xC3\\xA9\": utf8_validate_chunk = %s, want %s", e->what,
          state_name(end), state_name(e->end));
}

/*
 * The offset must not depend on where the error falls relative to the blocks of an
 * ASCII fast path or a SIMD back end (8 to 64 bytes): p ASCII bytes, then the error,
 * then more ASCII, in 200 bytes.
 */
static void test_offsets_around_blocks(void)
{
    static const size_t positions[] = {0,  1,  2,  7,  8,  9,   15,  16,  17,  23,  24,
                                       31, 32, 33, 47, 48, 63,  64,  65,  95,  96,  97,
                                       100, 127, 128, 129, 159, 160, 191, 192, 193, 196};
    /* Each inserted sequence and its offset from the insertion point. */
    static const struct {
        const char *what, *bytes;
        size_t len, error_at; /* error_at == len: valid */
    } inserts[] = {
        {"FF", "\xFF", 1, 0},
        {"stray 80", "\x80", 1, 0},
        {"C3 then ASCII", "\xC3", 1, 0},
        {"E2 82 then ASCII", "\xE2\x82", 2, 0},
        {"surrogate ED A0 80", "\xED\xA0\x80", 3, 0},
        {"euro then FF", "\xE2\x82\xAC\xFF", 4, 3},
        {"valid euro", "\xE2\x82\xAC", 3, 3},
        {"valid U+1F600", "\xF0\x9F\x98\x80", 4, 4},
    };
    char buf[256];
    size_t i, j, total = 200;
    for (i = 0; i < COUNT(positions); i++) {
        for (j = 0; j < COUNT(inserts); j++) {
            size_t p = positions[i], n = inserts[j].len;
            bool valid = inserts[j].error_at == n;
            size_t want = valid ? total : p + inserts[j].error_at;
            memset(buf, 'x', total);
            memcpy(buf + p, inserts[j].bytes, n);
            size_t got = t_first_error(buf, total);
            CHECK(got == want, "%s at %zu in %zu bytes: utf8_first_error = %zu, want %zu",
                  inserts[j].what, p, total, got, want);
            CHECK(t_validate(buf, total) == valid, "%s at %zu: utf8_validate", inserts[j].what,
                  p);
            /* Cut right after the insertion: a truncated lead byte reports itself. */
            if (!valid && inserts[j].error_at == 0) {
                CHECK(t_first_error(buf, p + n) == p, "%s at %zu, cut at %zu", inserts[j].what,
                      p, p + n);
            }
        }
    }
}

static void test_null_and_empty(void)
{
    unsigned s;
    /* NULL with length 0 is the empty buffer; NULL with a length is invalid at 0. */
    CHECK(utf8_validate(NULL, 0) == true, "utf8_validate(NULL, 0)");
    CHECK(utf8_first_error(NULL, 0) == 0, "utf8_first_error(NULL, 0)");
    CHECK(utf8_validate(NULL, 5) == false, "utf8_validate(NULL, 5)");
    CHECK(utf8_first_error(NULL, 5) == 0, "utf8_first_error(NULL, 5)");
    CHECK(utf8_validate(NULL, (size_t)-1) == false, "utf8_validate(NULL, SIZE_MAX)");
    CHECK(utf8_first_error(NULL, (size_t)-1) == 0, "utf8_first_error(NULL, SIZE_MAX)");
    /* A non-NULL pointer with length 0. */
    CHECK(t_validate("\xFF", 0) == true, "utf8_validate(\"\\xFF\", 0)");
    CHECK(t_first_error("\xFF", 0) == 0, "utf8_first_error(\"\\xFF\", 0)");
    for (s = UTF8_STATE_START; s <= UTF8_STATE_ERROR; s++) {
        utf8_state st = (utf8_state)s;
        CHECK(utf8_validate_chunk(st, NULL, 0) == st, "utf8_validate_chunk(%s, NULL, 0)",
              state_name(st));
        CHECK(t_chunk(st, "\xFF", 0) == st, "utf8_validate_chunk(%s, \"\\xFF\", 0)",
              state_name(st));
        CHECK(utf8_validate_chunk(st, NULL, 1) == UTF8_STATE_ERROR,
              "utf8_validate_chunk(%s, NULL, 1)", state_name(st));
    }
}

void test_examples(void)
{
    size_t i;
    for (i = 0; i < COUNT(EXAMPLES); i++) {
        check_example(&EXAMPLES[i]);
    }
    test_offsets_around_blocks();
    test_null_and_empty();
}
