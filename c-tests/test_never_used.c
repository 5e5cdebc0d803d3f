/*
 * test_never_used.c: each row of the draft's two summary tables (Tang, draft 0.4,
 * "Summary"): "Bytes never used by valid UTF-8" and "Two byte pairs never used in
 * UTF-8". Every byte and every pair in every row is checked alone and embedded in
 * valid text; utf8_first_error must point at the (lead) byte.
 */
#include <string.h>

#include "check.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
    unsigned lo, hi;
    const char *reason;
} NEVER_USED_BYTES[] = {
    {0xFE, 0xFF, "not used by any UTF-8 octet pattern"},
    {0xF8, 0xFB, "5-octet sequences, obsoleted by Unicode 3.1"},
    {0xFC, 0xFD, "6-octet sequences, obsoleted by Unicode 3.1"},
    {0xC0, 0xC1, "non-shortest form in a 2-octet sequence"},
    {0xF5, 0xF7, "value larger than U+10FFFF in a 4-octet sequence"},
};

static const struct {
    unsigned first_lo, first_hi, second_lo, second_hi;
    const char *reason;
} NEVER_USED_PAIRS[] = {
    {0xC0, 0xF7, 0x00, 0x7F, "does not match the UTF-8 pattern"},
    {0xE0, 0xE0, 0x80, 0x9F, "non-shortest form in a 3-octet sequence"},
    {0xF0, 0xF0, 0x80, 0x8F, "non-shortest form in a 4-octet sequence"},
    {0xED, 0xED, 0xA0, 0xBF, "U+D800-U+DFFF in a 3-octet sequence"},
    {0xF4, 0xF4, 0x90, 0xBF, "value larger than U+10FFFF in a 4-octet sequence"},
};

/* Valid text around the bytes under test: "ab€" before (5 bytes), "é." after. */
static const char BEFORE[] = "ab\xE2\x82\xAC";
static const char AFTER[] = "\xC3\xA9.";

/* bytes[0..n) must be invalid with its first error at 0, alone and embedded. */
static void check_never_valid(const unsigned char *bytes, size_t n, const char *reason)
{
    char buf[32];
    const size_t before = sizeof BEFORE - 1, after = sizeof AFTER - 1;
    size_t total = before + n + after;

    size_t offset;
    utf8_state end;

    CHECK(!t_validate(bytes, n), "[%s] (%s): utf8_validate", hex(bytes, n), reason);
    offset = t_first_error(bytes, n);
    CHECK(offset == 0, "[%s] (%s): utf8_first_error = %zu, want 0", hex(bytes, n), reason,
          offset);
    end = t_chunk(UTF8_STATE_START, bytes, n);
    CHECK(end == UTF8_STATE_ERROR, "[%s] (%s): utf8_validate_chunk(START) = %s, want ERROR",
          hex(bytes, n), reason, state_name(end));

    memcpy(buf, BEFORE, before);
    memcpy(buf + before, bytes, n);
    memcpy(buf + before + n, AFTER, after);
    CHECK(!t_validate(buf, total), "[%s] embedded (%s): utf8_validate", hex(buf, total), reason);
    offset = t_first_error(buf, total);
    CHECK(offset == before, "[%s] embedded (%s): utf8_first_error = %zu, want %zu",
          hex(buf, total), reason, offset, before);
    end = t_chunk(UTF8_STATE_START, buf, total);
    CHECK(end == UTF8_STATE_ERROR, "[%s] embedded (%s): utf8_validate_chunk = %s, want ERROR",
          hex(buf, total), reason, state_name(end));
}

static void test_bytes_never_used(void)
{
    size_t row;
    unsigned b, s;
    for (row = 0; row < COUNT(NEVER_USED_BYTES); row++) {
        for (b = NEVER_USED_BYTES[row].lo; b <= NEVER_USED_BYTES[row].hi; b++) {
            /* Alone; and followed by as many continuation bytes as RFC 2279 would take. */
            unsigned char seq[6] = {0, 0x80, 0x80, 0x80, 0x80, 0x80};
            seq[0] = (unsigned char)b;
            check_never_valid(seq, 1, NEVER_USED_BYTES[row].reason);
            check_never_valid(seq, 6, NEVER_USED_BYTES[row].reason);
            /* Never used in any position: every state of the machine rejects it. */
            for (s = UTF8_STATE_START; s <= UTF8_STATE_ERROR; s++) {
                CHECK(utf8_next_state((utf8_state)s, (uint8_t)b) == UTF8_STATE_ERROR,
                      "utf8_next_state(%s, 0x%02X) is not ERROR (%s)",
                      state_name((utf8_state)s), b, NEVER_USED_BYTES[row].reason);
            }
        }
    }
}

static void test_pairs_never_used(void)
{
    size_t row;
    unsigned a, b;
    for (row = 0; row < COUNT(NEVER_USED_PAIRS); row++) {
        for (a = NEVER_USED_PAIRS[row].first_lo; a <= NEVER_USED_PAIRS[row].first_hi; a++) {
            for (b = NEVER_USED_PAIRS[row].second_lo; b <= NEVER_USED_PAIRS[row].second_hi;
                 b++) {
                /* The pair alone, then the pair completed with tails as the reason says. */
                unsigned char seq[4] = {0, 0, 0x80, 0x80};
                seq[0] = (unsigned char)a;
                seq[1] = (unsigned char)b;
                check_never_valid(seq, 2, NEVER_USED_PAIRS[row].reason);
                check_never_valid(seq, 4, NEVER_USED_PAIRS[row].reason);
            }
        }
    }
}

void test_never_used(void)
{
    test_bytes_never_used();
    test_pairs_never_used();
}
