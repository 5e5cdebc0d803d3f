/*
 * test_state_machine.c: every byte class and every (state, byte) transition of the
 * draft's machine (Tang, "The Algorithm to Validate an UTF-8 String", v0.4, section
 * "A state machine algorithm").
 *
 * The expectations are the draft's prose list ("state START: Input = 0x00 ~ 0x7F:
 * change state to START ...") transcribed below as byte ranges, with "Others: ERROR";
 * they are not derived from the library's tables.
 */
#include "check.h"

/* One line of the draft's list: in `state`, an input in [lo, hi] goes to `next`. */
struct rule {
    utf8_state state;
    unsigned lo, hi;
    utf8_state next;
};

static const struct rule DRAFT_RULES[] = {
    /* - state START */
    {UTF8_STATE_START, 0x00, 0x7F, UTF8_STATE_START}, /* Input = 0x00 ~ 0x7F */
    {UTF8_STATE_START, 0xC2, 0xDF, UTF8_STATE_A},     /* Input = 0xC2-0xDF */
    {UTF8_STATE_START, 0xE1, 0xEC, UTF8_STATE_B},     /* Input = 0xE1-0xEC, ... */
    {UTF8_STATE_START, 0xEE, 0xEF, UTF8_STATE_B},     /* ..., 0xEE-0xEF */
    {UTF8_STATE_START, 0xE0, 0xE0, UTF8_STATE_C},     /* Input = 0xE0 */
    {UTF8_STATE_START, 0xED, 0xED, UTF8_STATE_D},     /* Input = 0xED */
    {UTF8_STATE_START, 0xF1, 0xF3, UTF8_STATE_E},     /* Input = 0xF1-0xF3 */
    {UTF8_STATE_START, 0xF0, 0xF0, UTF8_STATE_F},     /* Input = 0xF0 */
    {UTF8_STATE_START, 0xF4, 0xF4, UTF8_STATE_G},     /* Input = 0xF4 */
    /* - state A: Input = 0x80-0xBF: change state to START */
    {UTF8_STATE_A, 0x80, 0xBF, UTF8_STATE_START},
    /* - state B: Input = 0x80-0xBF: change state to A */
    {UTF8_STATE_B, 0x80, 0xBF, UTF8_STATE_A},
    /* - state C: Input = 0xA0-0xBF: change state to A */
    {UTF8_STATE_C, 0xA0, 0xBF, UTF8_STATE_A},
    /* - state D: Input = 0x80-0x9F: change state to A */
    {UTF8_STATE_D, 0x80, 0x9F, UTF8_STATE_A},
    /* - state E: Input = 0x80-0xBF: change state to B */
    {UTF8_STATE_E, 0x80, 0xBF, UTF8_STATE_B},
    /* - state F: Input = 0x90-0xBF: change state to B */
    {UTF8_STATE_F, 0x90, 0xBF, UTF8_STATE_B},
    /* - state G: Input = 0x80-0x8F: change state to B */
    {UTF8_STATE_G, 0x80, 0x8F, UTF8_STATE_B},
    /* Every other (state, input), and everything in ERROR: ERROR. */
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The draft's explicit list for START: "Others (0x80-0xBF,0xC0-0xC1, 0xF5-0xFF): ERROR". */
static int start_others(unsigned byte)
{
    return (byte >= 0x80 && byte <= 0xBF) || (byte >= 0xC0 && byte <= 0xC1) || byte >= 0xF5;
}

static utf8_state expected_next(utf8_state state, unsigned byte)
{
    size_t i;
    for (i = 0; i < COUNT(DRAFT_RULES); i++) {
        const struct rule *r = &DRAFT_RULES[i];
        if (r->state == state && byte >= r->lo && byte <= r->hi) {
            return r->next;
        }
    }
    return UTF8_STATE_ERROR;
}

/* The draft's table rows, in order; the row number is the byte class (0-11). */
struct class_range {
    unsigned lo, hi, cls;
};

static const struct class_range DRAFT_CLASSES[] = {
    {0x00, 0x7F, 0},                  /* 0x00-7F */
    {0x80, 0x8F, 1},                  /* 0x80-0x8F */
    {0x90, 0x9F, 2},                  /* 0x90-0x9F */
    {0xA0, 0xBF, 3},                  /* 0xA0-0xBF */
    {0xC0, 0xC1, 4}, {0xF5, 0xFF, 4}, /* 0xC0-0xC1,0xF5-0xFF */
    {0xC2, 0xDF, 5},                  /* 0xC2-0xDF */
    {0xE0, 0xE0, 6},                  /* 0xE0 */
    {0xE1, 0xEC, 7}, {0xEE, 0xEF, 7}, /* 0xE1-0xEC, 0xEE-0xEF */
    {0xED, 0xED, 8},                  /* 0xED */
    {0xF0, 0xF0, 9},                  /* 0xF0 (class 9 since draft 0.4) */
    {0xF1, 0xF3, 10},                 /* 0xF1-0xF3 */
    {0xF4, 0xF4, 11},                 /* 0xF4 */
};

static void test_enum_values(void)
{
    /* The ABI values fixed by the issue: START = 0, then A..G, ERROR = 8. */
    CHECK(UTF8_STATE_START == 0, "START is %d", (int)UTF8_STATE_START);
    CHECK(UTF8_STATE_A == 1, "A is %d", (int)UTF8_STATE_A);
    CHECK(UTF8_STATE_B == 2, "B is %d", (int)UTF8_STATE_B);
    CHECK(UTF8_STATE_C == 3, "C is %d", (int)UTF8_STATE_C);
    CHECK(UTF8_STATE_D == 4, "D is %d", (int)UTF8_STATE_D);
    CHECK(UTF8_STATE_E == 5, "E is %d", (int)UTF8_STATE_E);
    CHECK(UTF8_STATE_F == 6, "F is %d", (int)UTF8_STATE_F);
    CHECK(UTF8_STATE_G == 7, "G is %d", (int)UTF8_STATE_G);
    CHECK(UTF8_STATE_ERROR == 8, "ERROR is %d", (int)UTF8_STATE_ERROR);
}

static void test_byte_classes(void)
{
    unsigned byte;
    int covered[256] = {0};
    size_t i;
    for (i = 0; i < COUNT(DRAFT_CLASSES); i++) {
        for (byte = DRAFT_CLASSES[i].lo; byte <= DRAFT_CLASSES[i].hi; byte++) {
            unsigned got = utf8_byte_class((uint8_t)byte);
            covered[byte]++;
            CHECK(got == DRAFT_CLASSES[i].cls, "utf8_byte_class(0x%02X) = %u, draft says %u",
                  byte, got, DRAFT_CLASSES[i].cls);
        }
    }
    /* The transcription itself: the draft's rows partition 0x00-0xFF. */
    for (byte = 0; byte < 256; byte++) {
        CHECK(covered[byte] == 1, "byte 0x%02X is in %d class rows of the transcription", byte,
              covered[byte]);
    }
}

static void test_transitions(void)
{
    unsigned state, byte;
    /* The transcription itself: START's rules leave exactly the draft's "Others". */
    for (byte = 0; byte < 256; byte++) {
        CHECK((expected_next(UTF8_STATE_START, byte) == UTF8_STATE_ERROR) == start_others(byte),
              "transcription of state START disagrees with its Others list at 0x%02X", byte);
    }
    for (state = UTF8_STATE_START; state <= UTF8_STATE_ERROR; state++) {
        for (byte = 0; byte < 256; byte++) {
            utf8_state want = expected_next((utf8_state)state, byte);
            utf8_state step = utf8_next_state((utf8_state)state, (uint8_t)byte);
            unsigned char one = (unsigned char)byte;
            utf8_state chunk = t_chunk((utf8_state)state, &one, 1);
            CHECK(step == want, "utf8_next_state(%s, 0x%02X) = %s, draft says %s",
                  state_name((utf8_state)state), byte, state_name(step), state_name(want));
            CHECK(chunk == want, "utf8_validate_chunk(%s, [%02X], 1) = %s, draft says %s",
                  state_name((utf8_state)state), byte, state_name(chunk), state_name(want));
        }
    }
}

/* A utf8_state value outside 0..8 must be treated as ERROR (header contract). */
static void test_out_of_range_states(void)
{
    static const unsigned long bad[] = {9, 255, 0x7fffffffUL};
    size_t i;
    unsigned byte;
    for (i = 0; i < COUNT(bad); i++) {
        utf8_state s = (utf8_state)bad[i];
        int all_error = 1;
        for (byte = 0; byte < 256; byte++) {
            if (utf8_next_state(s, (uint8_t)byte) != UTF8_STATE_ERROR) {
                all_error = 0;
            }
        }
        CHECK(all_error, "utf8_next_state(%lu, b) is not ERROR for some byte b", bad[i]);
        CHECK(t_chunk(s, "abc", 3) == UTF8_STATE_ERROR, "utf8_validate_chunk(%lu, \"abc\")",
              bad[i]);
        CHECK(t_chunk(s, "\xC3\xA9", 2) == UTF8_STATE_ERROR,
              "utf8_validate_chunk(%lu, [C3 A9])", bad[i]);
        CHECK(t_chunk(s, "", 0) == UTF8_STATE_ERROR, "utf8_validate_chunk(%lu, \"\", 0)", bad[i]);
        CHECK(utf8_validate_chunk(s, NULL, 0) == UTF8_STATE_ERROR,
              "utf8_validate_chunk(%lu, NULL, 0)", bad[i]);
    }
}

void test_state_machine(void)
{
    test_enum_values();
    test_byte_classes();
    test_transitions();
    test_out_of_range_states();
}
