#!/usr/bin/env bash
# The C library on Windows: bash .ci/windows-tests.sh
#
# x86_64-pc-windows-gnu (MinGW-w64), built here and run under Wine (.ci/wine-env.sh):
#   0. `cargo clippy -D warnings` of the C library and the Rust crate, tests included
#      (for this target and x86_64-pc-windows-msvc: the Windows-only code is linted);
#   1. `cargo build --release` gives utf8validate.dll, its import library
#      libutf8validate.dll.a and the static libutf8validate.a;
#   2. the DLL's import table (objdump -p) names KERNEL32.dll and the C runtime
#      (msvcrt.dll, api-ms-win-crt-*.dll) and nothing else; its export table is exactly
#      the functions include/utf8validate.h declares;
#   3. the Rust suites of utf8validate-core, run by cargo through Wine: every suite but
#      the ignored exhaustive ones (the same code on the same CPU as the host's run;
#      here the point is the Windows ABI and system) and one test that starts python3,
#      a Linux program a Windows process cannot start (the host's run has it);
#   4. the back ends the crate finds under Wine are those it finds on the host (same
#      CPU); the force_backend suite in 3 has run each one forced, in child processes;
#   5. the C suite and the guard-page program (no-access pages from VirtualAlloc and
#      VirtualProtect), each linked against the DLL and against the static library,
#      run once per back end (UTF8VALIDATE_BACKEND);
# x86_64-pc-windows-msvc, which cannot be linked here (no MSVC linker or libraries):
#   6. the static library (utf8validate.lib, `cargo rustc --crate-type staticlib`)
#      defines the header's functions and needs nothing outside the C runtime.
#
# Needs: the rustup targets (added when missing), MinGW-w64 (gcc-mingw-w64-x86-64),
# Wine (wine64), llvm-nm (llvm). Outside CI a missing tool skips the script.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

gnu=x86_64-pc-windows-gnu
msvc=x86_64-pc-windows-msvc
for tool in x86_64-w64-mingw32-gcc x86_64-w64-mingw32-objdump llvm-nm; do
  if ! command -v "$tool" >/dev/null; then
    echo "windows-tests: needs $tool" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    echo "skipping the Windows tests (not in CI)"; exit 0
  fi
done
# shellcheck source=.ci/wine-env.sh
source .ci/wine-env.sh
if [ -z "$wine" ]; then
  echo "windows-tests: needs Wine (wine64)" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  echo "skipping the Windows tests (not in CI)"; exit 0
fi
for target in "$gnu" "$msvc"; do
  rustup target list --installed | grep -x "$target" >/dev/null || rustup target add "$target"
done

export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=$wine
target_dir=${CARGO_TARGET_DIR:-target}
lib_dir=$target_dir/$gnu/release
out=$target_dir/$gnu/c-tests
mkdir -p "$out"
source .ci/lib.sh
version=$(package_version)
fail() { echo "windows-tests: FAIL: $*" >&2; exit 1; }

for target in "$gnu" "$msvc"; do
  echo "== $target: cargo clippy"
  cargo clippy --quiet --target "$target" -p utf8validate -p utf8validate-core --all-targets \
    -- -D warnings
done

echo "== $gnu: the artifacts"
cargo build --quiet --release --target "$gnu" -p utf8validate --lib
for f in utf8validate.dll libutf8validate.dll.a libutf8validate.a; do
  [ -f "$lib_dir/$f" ] || fail "cargo made no $lib_dir/$f"
  echo "$f: $(stat -c %s "$lib_dir/$f") bytes"
done

echo "== $gnu: the DLL's imports and exports (objdump -p)"
x86_64-w64-mingw32-objdump -p "$lib_dir/utf8validate.dll" >"$out/dll-headers.txt"
mapfile -t imports < <(sed -n 's/^[[:space:]]*DLL Name: //p' "$out/dll-headers.txt")
echo "imports: ${imports[*]}"
printf '%s\n' "${imports[@]}" | grep -ix 'kernel32\.dll' >/dev/null || fail "the DLL does not import KERNEL32.dll"
for dll in "${imports[@]}"; do
  shopt -s nocasematch
  [[ $dll =~ ^(kernel32|msvcrt|api-ms-win-crt-[a-z0-9-]+)\.dll$ ]] ||
    fail "the DLL imports $dll (only KERNEL32.dll and the C runtime are allowed)"
  shopt -u nocasematch
done
# The export names: the rows after "[Ordinal/Name Pointer] Table", up to a blank line.
sed -n '/\[Ordinal\/Name Pointer\] Table/,/^[[:space:]]*$/s/^[[:space:]]*\[ *[0-9]*\] //p' \
  "$out/dll-headers.txt" | sort >"$out/exports.txt"
# The functions the header declares (one declaration starts each such line).
sed -n 's/^[a-z][a-z0-9_ *]*[ *]\(utf8[a-z0-9_]*\)(.*/\1/p' include/utf8validate.h |
  sort >"$out/declared.txt"
[ -s "$out/declared.txt" ] || fail "no function declaration found in include/utf8validate.h"
diff -u "$out/declared.txt" "$out/exports.txt" ||
  fail "the DLL's exports are not the header's functions (- declared, + exported)"
echo "exports: $(wc -l <"$out/exports.txt") functions, exactly those of include/utf8validate.h"

echo "== $gnu: Rust suites of utf8validate-core under Wine (release)"
cargo test --quiet --profile test-release -p utf8validate-core --target "$gnu" -- \
  --skip python_unicode_decode_error_start_and_end

echo "== $gnu: the back ends under Wine and on the host"
list_backends() {
  cargo test --quiet --profile test-release -p utf8validate-core "$@" --test force_backend -- \
    --ignored --exact --nocapture list_backends 2>/dev/null | sed -n 's/^backend: //p'
}
mapfile -t backends < <(list_backends --target "$gnu")
host=$(list_backends | tr '\n' ' ')
echo "under Wine: ${backends[*]}; on the host: $host"
[ ${#backends[@]} -gt 0 ] || fail "no back end listed under Wine"
[ "${backends[*]} " = "$host" ] || fail "Wine and the host see different back ends"

echo "== $gnu: the C suite and the guard pages, against the DLL and the static library"
cflags=(-std=c99 -Wall -Wextra -pedantic -Werror -O2 -g -Iinclude -Ic-tests)
# The suite: check.c and every test_*.c.
suite=(c-tests/check.c c-tests/test_*.c)
guard=(c-tests/guard_pages.c c-tests/check.c)
for link in dll static; do
  lib=$lib_dir/libutf8validate.a
  [ $link = dll ] && lib=$lib_dir/libutf8validate.dll.a
  x86_64-w64-mingw32-gcc "${cflags[@]}" "${suite[@]}" -o "$out/c_suite_$link.exe" "$lib"
  x86_64-w64-mingw32-gcc "${cflags[@]}" "${guard[@]}" -o "$out/guard_pages_$link.exe" "$lib"
  for exe in c_suite guard_pages; do
    dlls=$(x86_64-w64-mingw32-objdump -p "$out/${exe}_$link.exe" | sed -n 's/^[[:space:]]*DLL Name: //p')
    if [ $link = dll ]; then
      grep -qx utf8validate.dll <<<"$dlls" || fail "${exe}_$link.exe does not import utf8validate.dll"
    else
      ! grep -qi utf8validate <<<"$dlls" || fail "${exe}_$link.exe imports utf8validate.dll"
    fi
  done
done
# The DLL is found on WINEPATH: the very file cargo built, not a copy.
WINEPATH=$(windows_path "$lib_dir")
export WINEPATH

run_c() {
  local what=$1; shift
  local log="$out/${what//[^A-Za-z0-9]/_}"
  local status=0 last began=$SECONDS
  "$wine" "$@" >"$log.stdout" 2>"$log.stderr" || status=$?
  last=$(tr -d '\r' <"$log.stdout" | grep -v '^[[:space:]]*$' | tail -n 1 || true)
  echo "$what: ${last:-no output} (exit status $status, $((SECONDS - began)) s)"
  if [ "$status" -ne 0 ] || ! [[ $last =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
    echo "--- $what failed; the end of its output ($log.stdout, .stderr):" >&2
    tail -n 40 "$log.stdout" "$log.stderr" >&2
    exit 1
  fi
}
want="library version: $version, header version: $version"
for forced in "${backends[@]}"; do
  for link in dll static; do
    UTF8VALIDATE_BACKEND=$forced run_c "C suite, $link, $forced" \
      "$out/c_suite_$link.exe" --expect-version "$version"
    tr -d '\r' <"$out/C_suite__${link}__${forced}.stdout" | grep -xF "$want" >/dev/null ||
      fail "C suite, $link, $forced: no line \"$want\""
    UTF8VALIDATE_BACKEND=$forced run_c "guard pages, $link, $forced" "$out/guard_pages_$link.exe"
  done
done

echo "== $msvc: the static library (no MSVC linker here: the DLL is not built)"
cargo rustc --quiet --release --target "$msvc" -p utf8validate --lib --crate-type staticlib
mlib=$target_dir/$msvc/release/utf8validate.lib
[ -f "$mlib" ] || fail "cargo made no $mlib"
# llvm-nm --no-llvm-bc: the symbols of the objects themselves, not of the LLVM bitcode
# rustc embeds in them (which an older llvm-nm cannot read).
nm_lib() { llvm-nm --no-llvm-bc "$@" "$mlib" 2>/dev/null; }
nm_lib --defined-only -g | awk '$2 == "T" {print $3}' | grep '^utf8' | sort -u >"$out/msvc-defined.txt"
diff -u "$out/declared.txt" "$out/msvc-defined.txt" ||
  fail "utf8validate.lib does not define exactly the header's functions (- declared, + defined)"
# What it needs from outside: undefined in some member and defined in none (an __imp_
# reference to a symbol of its own counts as its own).
nm_lib -u | awk 'NF {print $NF}' | grep -v ':$' | sort -u >"$out/msvc-undefined.txt"
nm_lib --defined-only | awk 'NF == 3 {print $3}' | sort -u >"$out/msvc-all-defined.txt"
needed=$(comm -23 "$out/msvc-undefined.txt" "$out/msvc-all-defined.txt" |
  while read -r sym; do
    grep -qxF "${sym#__imp_}" "$out/msvc-all-defined.txt" || echo "$sym"
  done)
echo "utf8validate.lib: $(wc -l <"$out/msvc-defined.txt") functions; needs: $(echo $needed)"
# The C runtime: the functions the library calls, the compiler's markers and helpers,
# and the MSVC ABI's personality routine (vcruntime's), which core's unwind data names.
for sym in $needed; do
  [[ $sym =~ ^(abort|getenv|_write|strlen|mem(cpy|set|move|cmp)|_fltused|__chkstk|__CxxFrameHandler[34]|__C_specific_handler)$ ]] ||
    fail "utf8validate.lib needs $sym, which is not the C runtime's"
done

echo "== Windows: ok ($((SECONDS - started)) s)"
