// A C++ program for the IDE tests of the annotating printers (utf8-annotate) in gdb
// over GDB/MI (tests/gdb.rs) and lldb over the Debug Adapter Protocol
// (.ci/lldb_tests.py): main's locals hold valid and ill-formed strings of every type
// the printers annotate, as a variables view lists them. The tests set a breakpoint
// on the line marked "break here", as an IDE sets one on a source line. C++17 and
// POSIX (mmap): builds with g++ or clang++, on libstdc++ or libc++.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

// A project's own (pointer, length) type, registered with
// `utf8-annotate type my_buf data len`.
struct my_buf {
  const char *data;
  std::size_t len;
};

// How many strings `many` holds: a variables view of that many strings is timed.
constexpr int MANY = 500;

int main() {
  // NUL-terminated strings.
  const char *c_ok = "caf\xC3\xA9";                        // valid
  const char *c_bad = "path\xC0\xAF" "etc";                // overlong C0 AF at byte 4
  const unsigned char *u_bad = reinterpret_cast<const unsigned char *>(
      "\xED\xA0\x80 surrogate");                           // surrogate: ED at byte 0
  const char *c_null = nullptr;                            // no string at all
  // Longer than the default cap (4096 bytes): valid in what is read.
  std::string long_text(5000, 'x');
  const char *c_long = long_text.c_str();
  // The last 3 bytes of a readable page, followed by one that cannot be read: the
  // string has no NUL before the unreadable memory. The page is unmapped, not made
  // PROT_NONE: a debugger reads a PROT_NONE page of a live process (ptrace and
  // /proc/PID/mem ignore the protection), and finds zeros there.
  long page = sysconf(_SC_PAGESIZE);
  char *pages = static_cast<char *>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (pages == MAP_FAILED || munmap(pages + page, page) != 0) return 1;
  std::memcpy(pages + page - 3, "ab\xC3", 3);  // C3 cut by the unmapped page
  const char *c_unreadable = pages + page - 3;

  // Arrays: all N bytes, NULs included.
  char arr_ok[8] = "h\xC3\xA9llo";   // valid (two NULs at the end)
  char arr_bad[8] = "id\0\xFF" "ok";  // FF at byte 3, after a NUL

  // std::string: short (inline), long (heap), with an embedded NUL.
  std::string s_short = "Gr\xC3\xBC\xC3\x9F" "e";                // valid
  std::string s_long_bad = std::string(40, 'a') + "\x80" "tail";  // 80 at byte 40
  std::string s_nul("ab\0cd\n\xED\xA0\x80", 9);                   // surrogate at byte 6
  std::string s_huge(10000, 'y');  // valid in its first 4096 bytes...
  s_huge[9000] = '\xFF';           // ...and ill-formed at byte 9000, past the cap
  std::string_view v_bad(s_long_bad.data() + 38, 6);  // "aa" 80 "tai": 80 at byte 2
  std::string_view v_ok(s_short);

  // The project's own type.
  my_buf b_ok = {"\xE2\x82\xAC" "5", 4};      // "€5"
  my_buf b_bad = {"ok\xF4\x90\x80\x80", 6};  // above U+10FFFF: F4 at byte 2

  // A variables view of MANY strings: even ones valid, odd ones ill-formed at byte 1.
  std::string many[MANY];
  for (int i = 0; i < MANY; i++) many[i] = i % 2 ? "a\xFE" : "a\xC3\xA9";

  std::puts("ready");  // break here (the tests find this line)
  std::printf("%s %s %s %p %zu %p\n", c_ok, c_bad, reinterpret_cast<const char *>(u_bad),
              static_cast<const void *>(c_null), std::strlen(c_long),
              static_cast<const void *>(c_unreadable));
  std::printf("%s %s %zu %zu %zu %zu %zu %zu\n", arr_ok, arr_bad, s_short.size(),
              s_long_bad.size(), s_nul.size(), s_huge.size(), v_bad.size(), v_ok.size());
  std::printf("%zu %zu %zu\n", b_ok.len, b_bad.len, many[MANY - 1].size());
  return 0;
}
