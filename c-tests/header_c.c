/*
 * header_c.c: include/utf8validate.h compiled as C (C99 and C11, gcc and clang, with
 * -Wall -Wextra -pedantic -Werror) and linked: the header is self-contained, warning
 * free, and its declarations match the library's symbols.
 */
#include "utf8validate.h"

int main(void)
{
    const char text[] = "caf\xC3\xA9";
    utf8_state st = utf8_validate_chunk(UTF8_STATE_START, text, 4);
    int ok = utf8_validate(text, sizeof text - 1) && utf8_first_error(text, 4) == 3 &&
             st == UTF8_STATE_A && utf8_validate_chunk(st, text + 4, 1) == UTF8_STATE_START &&
             utf8_byte_class(0xF0) == 9 && utf8_next_state(UTF8_STATE_C, 0xA0) == UTF8_STATE_A &&
             utf8validate_version()[0] != '\0';
    return ok ? 0 : 1;
}
