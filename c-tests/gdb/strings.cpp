// A C++ program for the gdb and lldb tests (tests/gdb.rs, .ci/lldb_tests.py):
// std::string (short, in its inline buffer, and long, on the heap; with an embedded
// NUL) and std::string_view, read by utf8-check; and, for the GDB/MI test, a C
// string, a char[N] and (pointer, length) pairs. Needs C++17 (string_view).
// -DINCOMPLETE_STRING builds it so that clang++ leaves libstdc++'s std::string an
// incomplete type in the debug information.
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

// Bytes and their length, as a C API passes them.
struct span {
  const char *ptr;
  std::size_t len;
};

__attribute__((noinline)) void checkpoint() {}

int main() {
  // Short: "Grüße" fits in the small-string buffer. Long (heap): 40 ASCII bytes,
  // then a lone continuation byte 80 at byte 40.
#ifdef INCOMPLETE_STRING
  // Without member templates of std::string (the constructor from a C string
  // alone, operator+): clang++ (without -fstandalone-debug) then describes
  // libstdc++'s std::string, an extern template, by its name only.
  std::string short_ok("Gr\xC3\xBC\xC3\x9F" "e", 7);
  std::string long_bad("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x80" "tail", 45);
#else
  std::string short_ok = "Gr\xC3\xBC\xC3\x9F" "e";
  std::string long_bad = std::string(40, 'a') + "\x80" + "tail";
#endif
  // An embedded NUL (valid UTF-8) and then a surrogate at byte 6: only the
  // string's size counts, not its first NUL.
  std::string with_nul("ab\0cd\n\xED\xA0\x80", 9);
  std::string_view view(long_bad.data() + 38, 6);  // "aa" 80 "tai"
  const std::string &ref = short_ok;
  // A C string with an overlong encoding (C0 AF) at byte 4.
  const char *cstr = "path\xC0\xAF" "etc";
  // char[8]: "id", NUL, an ill-formed byte (FF) at byte 3, "ok", NUL, NUL.
  char packed[8] = "id\0\xFF" "ok";
  // (pointer, length): "ab\0cd" (valid, a NUL inside) and view's bytes (invalid).
  span body = {with_nul.data(), 5};
  span bad = {view.data(), view.size()};
  checkpoint();  // the tests stop here and run utf8-check
  std::printf("%zu %zu %zu %zu %zu\n", short_ok.size(), long_bad.size(), with_nul.size(),
              view.size(), ref.size());
  std::printf("%s %s %zu %zu\n", cstr, packed, body.len, bad.len);
  return 0;
}
