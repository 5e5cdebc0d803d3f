#!/usr/bin/env bash
# The CMake project for Windows: bash .ci/windows-cmake-tests.sh
#
# A cross build with MinGW-w64, the programs run under Wine (.ci/wine-env.sh):
#   1. the install: configured with nothing but the toolchain file
#      cmake/toolchains/mingw-w64-x86_64.cmake (the project works out the Rust target),
#      built and installed into a prefix; the installed files are exactly the expected
#      ones, the header is include/utf8validate.h, bin/utf8check.exe runs;
#   2. consumers, built with the same toolchain and each fed a valid and an invalid
#      input under Wine: C with find_package (shared: the program imports
#      utf8validate.dll, found in the prefix's bin/), C++17 with find_package (the static
#      target: it imports no utf8validate.dll), C with pkg-config (shared), C with
#      pkg-config and -Wl,-Bstatic (static), and C vendoring the repository with
#      add_subdirectory (shared and static).
#
# Needs: cmake, pkg-config, MinGW-w64 (gcc and g++), Wine. Outside CI a missing tool
# skips the script.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
started=$SECONDS

for tool in cmake pkg-config x86_64-w64-mingw32-gcc x86_64-w64-mingw32-g++ x86_64-w64-mingw32-objdump; do
  if ! command -v "$tool" >/dev/null; then
    echo "windows-cmake-tests: needs $tool" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    echo "skipping the Windows CMake tests (not in CI)"; exit 0
  fi
done
# shellcheck source=.ci/wine-env.sh
source .ci/wine-env.sh
if [ -z "$wine" ]; then
  echo "windows-cmake-tests: needs Wine (wine64)" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  echo "skipping the Windows CMake tests (not in CI)"; exit 0
fi
rustup target list --installed | grep -x x86_64-pc-windows-gnu >/dev/null ||
  rustup target add x86_64-pc-windows-gnu

mkdir -p "${CARGO_TARGET_DIR:-target}"
target_dir=$(cd "${CARGO_TARGET_DIR:-target}" && pwd)
work=$target_dir/windows-cmake
rm -rf "$work"
mkdir -p "$work"
toolchain=$repo/cmake/toolchains/mingw-w64-x86_64.cmake
source .ci/lib.sh
version=$(package_version)
fail() { echo "windows-cmake-tests: FAIL: $*" >&2; exit 1; }
step() { printf '\n--- %s (%ds)\n' "$*" $((SECONDS - started)); }
# What a Windows program imports, one DLL a line.
imports() { x86_64-w64-mingw32-objdump -p "$1" | sed -n 's/^[[:space:]]*DLL Name: //p'; }

# The inputs and answers of .ci/packaging-tests.sh: "ok " is 3 bytes, then ED A0 80
# would encode the surrogate U+D800.
printf 'h\303\251llo \342\202\254 \360\237\230\200\n' >"$work/valid.txt"
valid_expect="valid: 16 bytes"
printf 'ok \355\240\200 surrogate\n' >"$work/invalid.txt"
invalid_expect="invalid at byte 3"
# run_consumer NAME PROGRAM.exe WINEPATH: exit status 0 and $valid_expect on the valid
# input, 1 and $invalid_expect on the invalid one.
run_consumer() {
  local name=$1 program=$2 path=$3 out status input want_out want_status
  for input in valid invalid; do
    status=0
    out=$(WINEPATH=$path "$wine" "$program" <"$work/$input.txt" | tr -d '\r') || status=$?
    if [ "$input" = valid ]; then want_out=$valid_expect want_status=0
    else want_out=$invalid_expect want_status=1; fi
    [ "$status" = "$want_status" ] && [ "$out" = "$want_out" ] ||
      fail "$name on $input input: exit $status, output '$out' (want $want_status, '$want_out')"
  done
  echo "ok: $name ($valid_expect / $invalid_expect)"
}

step "install: configure with the toolchain file only, build, install"
prefix=$work/prefix
(cmake -S cmake -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DUTF8VALIDATE_CARGO_TARGET_DIR="$target_dir" &&
  cmake --build "$work/build" &&
  cmake --install "$work/build" --prefix "$prefix") >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "the cross build and install failed"; }
grep -F "Rust target x86_64-pc-windows-gnu" "$work/install.log" ||
  fail "the project did not pick the Rust target x86_64-pc-windows-gnu"

step "install: what is where"
(cd "$prefix" && find . \( -type f -o -type l \) | sort) >"$work/files.txt"
# The man pages come with scdoc, when it is installed (.ci/packaging-tests.sh
# requires it in CI).
man_pages=
if command -v scdoc >/dev/null 2>&1; then
  man_pages="./share/man/man1/utf8check.1
./share/man/man3/utf8validate.3"
fi
sed '/^$/d' <<EOF | sort | diff -u - "$work/files.txt" || fail "installed files differ (- expected, + found)"
./bin/utf8check.exe
./bin/utf8validate.dll
./include/utf8validate.h
./lib/cmake/utf8validate/utf8validateConfig.cmake
./lib/cmake/utf8validate/utf8validateConfigVersion.cmake
./lib/libutf8validate.a
./lib/libutf8validate.dll.a
./lib/pkgconfig/utf8validate.pc
./share/utf8validate/debugger/utf8validate_debugger.py
./share/utf8validate/gdb/README.md
./share/utf8validate/gdb/utf8validate.py
./share/utf8validate/lldb/README.md
./share/utf8validate/lldb/utf8validate.py
$man_pages
EOF
cat "$work/files.txt"
cmp include/utf8validate.h "$prefix/include/utf8validate.h" ||
  fail "the installed header is not include/utf8validate.h"
out=$("$wine" "$prefix/bin/utf8check.exe" --version | tr -d '\r')
[[ $out == *"$version"* ]] || fail "bin/utf8check.exe --version says '$out'"
echo "ok: bin/utf8check.exe --version: $out"
bindir=$(windows_path "$prefix/bin")

step "consumer: C, CMake find_package, shared"
consumers=$repo/c-tests/consumers
config=$prefix/lib/cmake/utf8validate
(cmake -S "$consumers/find-package-c" -B "$work/find-package-c" \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" -Dutf8validate_DIR="$config" &&
  cmake --build "$work/find-package-c") >"$work/find-package-c.log" 2>&1 ||
  { cat "$work/find-package-c.log" >&2; fail "find-package-c did not build"; }
exe=$work/find-package-c/consumer.exe
imports "$exe" | grep -x utf8validate.dll >/dev/null || fail "find-package-c does not import utf8validate.dll"
run_consumer "C, find_package, shared (bin/ on WINEPATH)" "$exe" "$bindir"
# Control: without bin/ on WINEPATH the loader finds no utf8validate.dll.
if WINEPATH="" "$wine" "$exe" <"$work/valid.txt" >/dev/null 2>&1; then
  fail "find-package-c ran without the DLL on WINEPATH: the test above proves nothing"
fi
echo "ok: control: without bin/ on WINEPATH it does not start"

step "consumer: C++17, CMake find_package, static target"
(cmake -S "$consumers/static-cxx" -B "$work/static-cxx" \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" -Dutf8validate_DIR="$config" &&
  cmake --build "$work/static-cxx") >"$work/static-cxx.log" 2>&1 ||
  { cat "$work/static-cxx.log" >&2; fail "static-cxx did not build"; }
exe=$work/static-cxx/consumer.exe
! imports "$exe" | grep -i utf8validate >/dev/null || fail "static-cxx imports utf8validate.dll"
# MinGW-w64's C++ runtime DLLs (libstdc++-6.dll, libgcc_s_seh-1.dll) are beside its
# libstdc++; Windows finds DLLs on PATH, which WINEPATH extends.
cxx_runtime=$(windows_path "$(dirname "$(x86_64-w64-mingw32-g++ -print-file-name=libstdc++-6.dll)")")
run_consumer "C++17, find_package, static" "$exe" "$cxx_runtime"

step "consumer: C, pkg-config, shared and static"
export PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig
unset PKG_CONFIG_PATH
cflags=(-std=c99 -Wall -Wextra -pedantic -Werror)
# shellcheck disable=SC2046  # pkg-config output is meant to be split into words
x86_64-w64-mingw32-gcc "${cflags[@]}" -o "$work/pc-shared.exe" "$consumers/common/consumer.c" \
  $(pkg-config --cflags --libs utf8validate)
imports "$work/pc-shared.exe" | grep -x utf8validate.dll >/dev/null || fail "pkg-config (shared) does not import utf8validate.dll"
run_consumer "C, pkg-config, shared" "$work/pc-shared.exe" "$bindir"
# -Bstatic: -lutf8validate takes libutf8validate.a instead of the import library.
# shellcheck disable=SC2046
x86_64-w64-mingw32-gcc "${cflags[@]}" -o "$work/pc-static.exe" "$consumers/common/consumer.c" \
  $(pkg-config --cflags utf8validate) -Wl,-Bstatic $(pkg-config --static --libs utf8validate) -Wl,-Bdynamic
! imports "$work/pc-static.exe" | grep -i utf8validate >/dev/null || fail "pkg-config --static imports utf8validate.dll"
run_consumer "C, pkg-config --static" "$work/pc-static.exe" ""

step "consumer: C vendoring the repository (add_subdirectory), shared and static"
(cmake -S "$consumers/vendored" -B "$work/vendored" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
  -DUTF8VALIDATE_DIR="$repo" -DUTF8VALIDATE_CARGO_TARGET_DIR="$target_dir" &&
  cmake --build "$work/vendored") >"$work/vendored.log" 2>&1 ||
  { cat "$work/vendored.log" >&2; fail "vendored did not build"; }
imports "$work/vendored/consumer_shared.exe" | grep -x utf8validate.dll >/dev/null ||
  fail "vendored consumer_shared does not import utf8validate.dll"
! imports "$work/vendored/consumer_static.exe" | grep -i utf8validate >/dev/null ||
  fail "vendored consumer_static imports utf8validate.dll"
run_consumer "C, vendored, shared" "$work/vendored/consumer_shared.exe" \
  "$(windows_path "$work/vendored/utf8validate/lib")"
run_consumer "C, vendored, static" "$work/vendored/consumer_static.exe" ""

step "all Windows CMake tests passed in $((SECONDS - started))s"
