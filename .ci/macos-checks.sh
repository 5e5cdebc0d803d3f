#!/usr/bin/env bash
# macOS, compile-checked only: bash .ci/macos-checks.sh
#
# No Apple linker, SDK or machine here: nothing is linked or run. For
# x86_64-apple-darwin and aarch64-apple-darwin:
#   1. `cargo clippy -D warnings` (a `cargo check` with lints) of the C library and the
#      Rust crate, tests included;
#   2. the static library (`cargo rustc --crate-type staticlib`, which needs no linker):
#      it defines the header's functions, needs nothing but libSystem's functions, and
#      defines rust_eh_personality, which core's objects refer to, weak and private
#      extern (src/personality.rs);
#      on aarch64 it holds the NEON back end, which the target enables
#      (`rustc --print cfg`: target_feature="neon"; neon::available() is true, so it
#      is the back end chosen), and no x86 back end;
#   3. the shared library's link command (`--print link-args`, printed before the link
#      fails for want of Apple's linker): the install name
#      @rpath/libutf8validate.<major>.dylib and the versions from Cargo.toml (build.rs);
#   4. the CMake project configured for macOS (clang as the compiler, compile checks
#      only) works out the Rust target from the architecture; built with a stand-in
#      for cargo that makes the files cargo would, it installs
#      lib/libutf8validate.X.Y.Z.dylib, its links, the static library, the .pc file and a
#      CMake package naming the install name, which a consumer's find_package accepts.
#
# Needs: the rustup targets (added when missing), llvm-nm (llvm), clang and cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
started=$SECONDS

for tool in llvm-nm clang cmake; do
  if ! command -v "$tool" >/dev/null; then
    echo "macos-checks: needs $tool" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    echo "skipping the macOS checks (not in CI)"; exit 0
  fi
done
fail() { echo "macos-checks: FAIL: $*" >&2; exit 1; }
mkdir -p "${CARGO_TARGET_DIR:-target}"
target_dir=$(cd "${CARGO_TARGET_DIR:-target}" && pwd)
work=$target_dir/macos-checks
rm -rf "$work"
mkdir -p "$work"
source .ci/lib.sh
version=$(package_version)
IFS=. read -r major minor patch <<<"$version"
# The functions the header declares, with Mach-O's leading underscore.
sed -n 's/^[a-z][a-z0-9_ *]*[ *]\(utf8[a-z0-9_]*\)(.*/_\1/p' include/utf8validate.h |
  sort >"$work/declared.txt"
[ -s "$work/declared.txt" ] || fail "no function declaration found in include/utf8validate.h"

for target in x86_64-apple-darwin aarch64-apple-darwin; do
  rustup target list --installed | grep -x "$target" >/dev/null || rustup target add "$target"

  echo "== $target: cargo clippy (check with lints)"
  cargo clippy --quiet --target "$target" -p utf8validate -p utf8validate-core --all-targets \
    -- -D warnings

  echo "== $target: the static library"
  cargo rustc --quiet --release --target "$target" -p utf8validate --lib --crate-type staticlib
  lib=$target_dir/$target/release/libutf8validate.a
  # --no-llvm-bc: the objects' own symbols, not those of the bitcode rustc embeds.
  nm_lib() { llvm-nm --no-llvm-bc "$@" "$lib" 2>/dev/null; }
  nm_lib --defined-only -g | awk '$2 == "T" {print $3}' | grep '^_utf8' | sort -u \
    >"$work/$target-defined.txt"
  diff -u "$work/declared.txt" "$work/$target-defined.txt" ||
    fail "$target: the static library does not define exactly the header's functions"
  nm_lib -u | awk 'NF {print $NF}' | grep -v ':$' | sort -u >"$work/$target-undefined.txt"
  nm_lib --defined-only | awk 'NF == 3 {print $3}' | sort -u >"$work/$target-all-defined.txt"
  needed=$(comm -23 "$work/$target-undefined.txt" "$work/$target-all-defined.txt" | tr '\n' ' ')
  echo "defines the $(wc -l <"$work/declared.txt") functions; needs: $needed"
  for sym in $needed; do
    # libSystem: the C library's functions the library and core call, the compiler's
    # helpers and sysctlbyname (compiler-rt's CPU detection on aarch64).
    [[ $sym =~ ^_(abort|getenv|write|strlen|mem(cpy|set|move|cmp)|bzero|sysctlbyname)$ ]] ||
      [[ $sym =~ ^___(bzero|error|assert_rtn|stack_chk_(fail|guard)|chkstk_darwin)$ ]] ||
      fail "$target: the static library needs $sym, which is not libSystem's"
  done
  nm_lib -m --defined-only | grep -E ' weak private external _rust_eh_personality$' >/dev/null ||
    fail "$target: no weak private external _rust_eh_personality in the static library"
  if [ "$target" = aarch64-apple-darwin ]; then
    rustc --print cfg --target "$target" | grep -x 'target_feature="neon"' >/dev/null ||
      fail "$target does not enable NEON"
    # The entries of the ladder's three rungs that every back end has (the table in
    # utf8validate-core/src/dispatch.rs, each row in a module named after its back end).
    for fn in block medium long; do
      nm_lib --defined-only | grep "15IMPLEMENTATIONS4neon${#fn}${fn}17h" >/dev/null ||
        fail "$target: no NEON $fn entry in the static library"
    done
    ! nm_lib --defined-only | grep -E '4simd3x86|15IMPLEMENTATIONS(6avx512|4avx2|5ssse3)' >/dev/null ||
      fail "$target: an x86 back end is compiled in"
    echo "NEON: the target enables it, and the library holds the NEON back end and no x86 one"
  fi

  echo "== $target: the shared library's link arguments"
  # The link itself fails here (no Apple linker); the arguments are printed before.
  cargo rustc --release --target "$target" -p utf8validate --lib --crate-type cdylib -- \
    --print link-args >"$work/$target-link.txt" 2>&1 || true
  for arg in "-install_name,@rpath/libutf8validate.$major.dylib" \
    "-compatibility_version,$major.$minor.0" "-current_version,$major.$minor.$patch"; do
    grep -qF -- "\"-Wl,$arg\"" "$work/$target-link.txt" ||
      { tail -n 20 "$work/$target-link.txt" >&2; fail "$target: the link command lacks -Wl,$arg"; }
    echo "links with -Wl,$arg"
  done
done

echo "== CMake, configured for macOS (arm64) and installed with a stand-in for cargo"
# clang compiles for macOS without an SDK; CMake only compiles its checks (no link).
cat >"$work/toolchain.cmake" <<'EOF'
set(CMAKE_SYSTEM_NAME Darwin)
set(CMAKE_SYSTEM_PROCESSOR arm64)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET arm64-apple-macos11)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
EOF
# The stand-in records its arguments and makes the files cargo would: the real static
# library built above, and a placeholder for the shared library it cannot link.
cat >"$work/cargo" <<EOF
#!/usr/bin/env bash
set -euo pipefail
echo "\$*" >"$work/cargo-args.txt"
out=\$(sed -n 's/.*--target-dir \([^ ]*\).*/\1/p' <<<"\$*")/\$(sed -n 's/.*--target \([^ ]*\).*/\1/p' <<<"\$*")/release
mkdir -p "\$out"
cp "$target_dir/aarch64-apple-darwin/release/libutf8validate.a" "\$out/"
echo "a placeholder for libutf8validate.dylib" >"\$out/libutf8validate.dylib"
EOF
chmod +x "$work/cargo"
prefix=$work/prefix
(cmake -S cmake -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$work/toolchain.cmake" -DUTF8VALIDATE_CARGO="$work/cargo" \
  -DUTF8VALIDATE_BUILD_CLI=OFF -DUTF8VALIDATE_CARGO_TARGET_DIR="$work/cargo-target" &&
  cmake --build "$work/build" && cmake --install "$work/build" --prefix "$prefix") \
  >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; fail "the CMake build for macOS failed"; }
grep -F -- "--target aarch64-apple-darwin" "$work/cargo-args.txt" >/dev/null ||
  fail "CMake ran cargo without --target aarch64-apple-darwin: $(cat "$work/cargo-args.txt")"
echo "cargo $(cat "$work/cargo-args.txt")"
(cd "$prefix" && find . \( -type f -o -type l \) -printf '%p %y %l\n' | grep -v '^./share/' | sort) \
  >"$work/files.txt"
sort >"$work/want.txt" <<EOF
./include/utf8validate.h f 
./lib/cmake/utf8validate/utf8validateConfig.cmake f 
./lib/cmake/utf8validate/utf8validateConfigVersion.cmake f 
./lib/libutf8validate.$major.dylib l libutf8validate.$version.dylib
./lib/libutf8validate.$version.dylib f 
./lib/libutf8validate.a f 
./lib/libutf8validate.dylib l libutf8validate.$major.dylib
./lib/pkgconfig/utf8validate.pc f 
EOF
diff -u "$work/want.txt" "$work/files.txt" || fail "installed files differ (- expected, + found)"
cat "$work/files.txt"
grep -qF "IMPORTED_SONAME \"@rpath/libutf8validate.$major.dylib\"" \
  "$prefix/lib/cmake/utf8validate/utf8validateConfig.cmake" ||
  fail "the CMake package does not give the install name @rpath/libutf8validate.$major.dylib"
grep -qx 'Libs: -L${libdir} -lutf8validate' "$prefix/lib/pkgconfig/utf8validate.pc" ||
  fail "the .pc file's Libs line is not -L\${libdir} -lutf8validate"
mkdir -p "$work/consumer"
cat >"$work/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(macos_consumer LANGUAGES C)
find_package(utf8validate CONFIG REQUIRED)
get_target_property(soname utf8validate::utf8validate IMPORTED_SONAME)
get_target_property(location utf8validate::utf8validate IMPORTED_LOCATION)
message(STATUS "found: ${location}, install name ${soname}")
EOF
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_TOOLCHAIN_FILE="$work/toolchain.cmake" \
  -Dutf8validate_DIR="$prefix/lib/cmake/utf8validate" >"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log" >&2; fail "find_package(utf8validate) failed for macOS"; }
grep -F "found: $prefix/lib/libutf8validate.$version.dylib, install name @rpath/libutf8validate.$major.dylib" \
  "$work/consumer.log" || fail "find_package gave other files: $(grep found: "$work/consumer.log")"

echo "== macOS: ok, compile-checked only ($((SECONDS - started)) s)"
