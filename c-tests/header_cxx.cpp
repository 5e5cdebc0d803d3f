// header_cxx.cpp: include/utf8validate.h compiled as C++ (C++11 and C++17, g++ and
// clang++, with -Wall -Wextra -pedantic -Werror) and linked: the declarations have C
// linkage, and C++ callers pass std::string::data() (and std::string_view::data()
// in C++17) with no casts.
#include <string>
#if __cplusplus >= 201703L
#include <string_view>
#endif

#include "utf8validate.h"

int main()
{
    const std::string text = "caf\xC3\xA9";
    std::string bad = "ab\xED\xA0\x80";
    bool ok = utf8_validate(text.data(), text.size()) &&
              utf8_first_error(bad.data(), bad.size()) == 2 &&
              utf8_validate_chunk(UTF8_STATE_START, text.data(), text.size()) == UTF8_STATE_START &&
              utf8_next_state(UTF8_STATE_ERROR, 'a') == UTF8_STATE_ERROR &&
              utf8_byte_class(0xED) == 8 && std::string(utf8validate_version()).size() >= 5;
#if __cplusplus >= 201703L
    std::string_view view = text;
    ok = ok && utf8_validate(view.data(), view.size()) && !utf8_validate(bad.data(), bad.size());
#endif
    return ok ? 0 : 1;
}
