#!/usr/bin/env bash
# Uses an unpacked binary archive as a C or C++ project would, from wherever it lies:
#
#   bash packaging/archive-test.sh DIR KIND CONSUMERS WORK
#
# DIR: the archive's top directory (utf8validate-VERSION-TARGET); KIND: gnu (this
# machine's compilers), musl (musl-gcc), aarch64 or i686 (Debian's cross compilers,
# programs run by qemu-user with the cross sysroot), windows (MinGW-w64, programs run
# by Wine: set WINE to its loader); CONSUMERS: c-tests/consumers of the source tree;
# WORK: an empty directory for the builds. Each program gets a valid and an invalid
# input and must answer "valid: 16 bytes" / "invalid at byte 3" (exit 0 / 1):
#   - pkg-config: the file's prefix is DIR; C against the shared library (run by its
#     -rpath, or the DLL found on WINEPATH) and against the static library (no
#     library needed at run time); on musl, a static executable;
#   - CMake find_package(utf8validate): the C project with utf8validate::utf8validate
#     and the C++17 project with utf8validate::utf8validate_static (no C++ for musl);
#   - bin/utf8check --version, on the same inputs.
# Runs inside the Debian 11 and 12 userlands too (.ci/release-tests.sh), so it needs
# nothing but bash, the compilers, pkg-config, cmake and readelf.
set -euo pipefail
u=$(cd "$1" && pwd)
kind=$2
consumers=$(cd "$3" && pwd)
work=$(mkdir -p "$4" && cd "$4" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "archive-test ($kind): FAIL: $*" >&2; exit 1; }

cc=cc cxx=c++ runner=() toolchain=() exe="" cxx_ok=yes shared=yes
case $kind in
  gnu) ;;
  musl) cc=musl-gcc cxx_ok=no shared=no ;;
  aarch64) cc=aarch64-linux-gnu-gcc cxx=aarch64-linux-gnu-g++ runner=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
    toolchain=(-DCMAKE_TOOLCHAIN_FILE="$here/toolchains/aarch64-linux-gnu.cmake") ;;
  i686) cc=i686-linux-gnu-gcc cxx=i686-linux-gnu-g++ runner=(qemu-i386 -L /usr/i686-linux-gnu)
    toolchain=(-DCMAKE_TOOLCHAIN_FILE="$here/toolchains/i686-linux-gnu.cmake") ;;
  windows) cc=x86_64-w64-mingw32-gcc cxx=x86_64-w64-mingw32-g++ exe=.exe runner=("${WINE:?set WINE}")
    toolchain=(-DCMAKE_TOOLCHAIN_FILE="$here/../cmake/toolchains/mingw-w64-x86_64.cmake") ;;
  *) fail "unknown kind $kind" ;;
esac
# What a Windows program finds DLLs on: bin/ and MinGW-w64's C++ runtime.
winepath=""
if [ "$kind" = windows ]; then
  winepath="$("${WINE}" winepath -w "$u/bin" 2>/dev/null | tr -d '\r')"
  winepath="$winepath;$("${WINE}" winepath -w "$(dirname "$("$cxx" -print-file-name=libstdc++-6.dll)")" 2>/dev/null | tr -d '\r')"
fi

printf 'h\303\251llo \342\202\254 \360\237\230\200\n' >"$work/valid.txt"
printf 'ok \355\240\200 surrogate\n' >"$work/invalid.txt"
run() { WINEPATH=$winepath "${runner[@]}" "$@" | tr -d '\r'; }
run_consumer() { # run_consumer NAME PROGRAM
  local out status
  out=$(run "$2" <"$work/valid.txt") || fail "$1 on valid input: exit $?, '$out'"
  [ "$out" = "valid: 16 bytes" ] || fail "$1 on valid input: '$out'"
  status=0
  out=$(run "$2" <"$work/invalid.txt") || status=$?
  [ "$status" = 1 ] && [ "$out" = "invalid at byte 3" ] || fail "$1 on invalid input: exit $status, '$out'"
  echo "ok: $1"
}
# links PROGRAM: the utf8validate libraries it needs at run time ("" when static).
links() {
  if [ "$kind" = windows ]; then
    x86_64-w64-mingw32-objdump -p "$1" | sed -n 's/^[[:space:]]*DLL Name: \(utf8validate.*\)/\1/p'
  else
    readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(libutf8validate[^]]*\)\]/\1/p'
  fi
}
want_links() { # want_links NAME PROGRAM WANT
  [ "$(links "$2")" = "$3" ] || fail "$1 needs '$(links "$2")', not '$3'"
}
so_name=libutf8validate.so.0
[ "$kind" = windows ] && so_name=utf8validate.dll

version=$(sed -n 's/^#define UTF8VALIDATE_VERSION_STRING "\(.*\)"$/\1/p' "$u/include/utf8validate.h")
so_name=${so_name/.so.0/.so.${version%%.*}}
export PKG_CONFIG_LIBDIR=$u/lib/pkgconfig
unset PKG_CONFIG_PATH
[ "$(pkg-config --modversion utf8validate)" = "$version" ] || fail "pkg-config --modversion"
[ "$(cd "$(pkg-config --variable=prefix utf8validate)" && pwd -P)" = "$(cd "$u" && pwd -P)" ] ||
  fail "the .pc file's prefix is $(pkg-config --variable=prefix utf8validate), not $u"
echo "ok: pkg-config finds $version in $u"

flags=(-std=c99 -Wall -Wextra -pedantic -Werror)
src=$consumers/common/consumer.c
# shellcheck disable=SC2046  # pkg-config's output is meant to be split
if [ "$shared" = yes ]; then
  rpath=()
  [ "$kind" = windows ] || rpath=(-Wl,-rpath,"$u/lib")
  "$cc" "${flags[@]}" -o "$work/pc-shared$exe" "$src" $(pkg-config --cflags --libs utf8validate) "${rpath[@]}"
  want_links "pkg-config, shared" "$work/pc-shared$exe" "$so_name"
  run_consumer "C, pkg-config, shared" "$work/pc-shared$exe"
  "$cc" "${flags[@]}" -o "$work/pc-static$exe" "$src" $(pkg-config --cflags utf8validate) \
    -Wl,-Bstatic $(pkg-config --libs utf8validate) -Wl,-Bdynamic
else
  "$cc" -static "${flags[@]}" -o "$work/pc-static$exe" "$src" $(pkg-config --cflags --static --libs utf8validate)
  [ -z "$(readelf -d "$work/pc-static" | grep NEEDED || true)" ] || fail "the -static program needs shared libraries"
fi
want_links "pkg-config, static" "$work/pc-static$exe" ""
run_consumer "C, pkg-config, static" "$work/pc-static$exe"

cmake_args=("${toolchain[@]}" -DCMAKE_C_COMPILER="$cc")
if [ "$kind" = windows ]; then
  cmake_args+=(-Dutf8validate_DIR="$u/lib/cmake/utf8validate")
else
  cmake_args+=(-DCMAKE_PREFIX_PATH="$u")
fi
(cmake -S "$consumers/find-package-c" -B "$work/find-package-c" "${cmake_args[@]}" &&
  cmake --build "$work/find-package-c") >"$work/find-package-c.log" 2>&1 ||
  { cat "$work/find-package-c.log" >&2; fail "find-package-c did not build"; }
if [ "$shared" = yes ]; then
  want_links "CMake, utf8validate::utf8validate" "$work/find-package-c/consumer$exe" "$so_name"
else
  want_links "CMake, utf8validate::utf8validate (static on musl)" "$work/find-package-c/consumer$exe" ""
fi
run_consumer "C, CMake find_package, utf8validate::utf8validate" "$work/find-package-c/consumer$exe"
if [ "$cxx_ok" = yes ]; then
  (cmake -S "$consumers/static-cxx" -B "$work/static-cxx" "${cmake_args[@]}" -DCMAKE_CXX_COMPILER="$cxx" &&
    cmake --build "$work/static-cxx") >"$work/static-cxx.log" 2>&1 ||
    { cat "$work/static-cxx.log" >&2; fail "static-cxx did not build"; }
  want_links "CMake, utf8validate::utf8validate_static" "$work/static-cxx/consumer$exe" ""
  run_consumer "C++17, CMake find_package, utf8validate::utf8validate_static" "$work/static-cxx/consumer$exe"
fi

out=$(run "$u/bin/utf8check$exe" --version)
[ "$out" = "utf8check $version" ] || fail "utf8check --version says '$out'"
run "$u/bin/utf8check$exe" "$work/valid.txt" >/dev/null || fail "utf8check rejects the valid input"
status=0
run "$u/bin/utf8check$exe" -q "$work/invalid.txt" || status=$?
[ "$status" = 1 ] || fail "utf8check -q on the invalid input: exit $status"
echo "ok: bin/utf8check$exe"
echo "archive-test ($kind): all passed for $u"
