#!/usr/bin/env bash
# Runs the Rust test suite for aarch64 (the NEON back end) under qemu user-mode
# emulation: Debian's cross gcc links, qemu-aarch64 runs the test binaries. Then the
# C suite and the guard-page program, cross-compiled against the aarch64 static
# library, under qemu: once on the default back end (NEON) and once with
# UTF8VALIDATE_BACKEND=scalar. Last, the aarch64 library's code is checked for panic
# paths (.ci/panic-free.sh).
# Needs: rustup target aarch64-unknown-linux-gnu; apt: gcc-aarch64-linux-gnu
# libc6-dev-arm64-cross qemu-user.
# Usage: bash .ci/aarch64-tests.sh [extra cargo test args]
set -euo pipefail
cd "$(dirname "$0")/.."

target=aarch64-unknown-linux-gnu
missing=()
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
if [ ${#missing[@]} -gt 0 ]; then
  echo "aarch64 tests need: ${missing[*]}" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  echo "skipping the aarch64 tests (not in CI)"; exit 0
fi
if ! rustup target list --installed | grep -qx "$target"; then
  rustup target add "$target"
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
# The library's unit tests, the per-back-end differential tests (NEON and scalar
# forced one by one) and the differential/exhaustive suites against std.
cargo test --target "$target" --lib --test backends --test differential --test exhaustive "$@"

# The variable that forces a back end (src/dispatch.rs) under qemu: the child test of
# tests/force_backend.rs run directly (it cannot spawn itself under qemu-user), with
# the variable unset (NEON is chosen) and set to scalar.
for forced in "" scalar; do
  expect=${forced:-neon}
  echo "== force_backend: UTF8VALIDATE_BACKEND='$forced' must select $expect"
  UTF8VALIDATE_BACKEND=$forced UTF8VALIDATE_EXPECT_SELECTED=$expect \
    cargo test --target "$target" --test force_backend -- --ignored --exact child_reports_selected
done

# The C suite for aarch64, as tests/c_suite.rs builds it on the host (same sources,
# warnings and optimisation); qemu loads the aarch64 glibc from Debian's cross sysroot
# (-L). (Linked -static instead, glibc's linker warns about std's getaddrinfo.)
cargo build --release --target "$target" --no-default-features --lib
target_dir=${CARGO_TARGET_DIR:-target}
lib="$target_dir/$target/release/libutf8validate.a"
out="$target_dir/$target/c-tests"
mkdir -p "$out"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
cflags=(-std=c99 -Wall -Wextra -pedantic -Werror -O2 -g -Iinclude -Ic-tests)
# What a Rust staticlib needs from the system (rustc --print native-static-libs).
libs=("$lib" -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)
sysroot=/usr/aarch64-linux-gnu
aarch64-linux-gnu-gcc "${cflags[@]}" c-tests/test_main.c c-tests/check.c \
  c-tests/test_state_machine.c c-tests/test_examples.c c-tests/test_never_used.c \
  c-tests/test_chunks.c -o "$out/c_suite" "${libs[@]}"
aarch64-linux-gnu-gcc "${cflags[@]}" c-tests/guard_pages.c c-tests/check.c \
  -o "$out/guard_pages" "${libs[@]}"

# Runs one program under qemu; fails unless it exits 0 and its last line is
# "N passed, 0 failed" (a death by signal, e.g. a read hitting a guard page, fails).
run_c() {
  local what=$1; shift
  local log="$out/${what//[^A-Za-z0-9]/_}"
  local status=0 last started=$SECONDS
  qemu-aarch64 -L "$sysroot" "$@" >"$log.stdout" 2>"$log.stderr" || status=$?
  last=$(grep -v '^[[:space:]]*$' "$log.stdout" | tail -n 1 || true)
  echo "$what: ${last:-no output} (exit status $status, $((SECONDS - started)) s)"
  if [ "$status" -ne 0 ] || ! [[ $last =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
    echo "--- $what failed; the end of its output ($log.stdout, .stderr):" >&2
    tail -n 40 "$log.stdout" "$log.stderr" >&2
    exit 1
  fi
}
for forced in "" scalar; do
  name=${forced:-default (neon)}
  UTF8VALIDATE_BACKEND=$forced run_c "aarch64 C suite, $name" "$out/c_suite" --expect-version "$version"
  # The library, the header and Cargo.toml agree (as tests/c_suite.rs checks on the host).
  want="library version: $version, header version: $version"
  grep -qxF "$want" "$out/aarch64_C_suite__${name//[^A-Za-z0-9]/_}.stdout" || {
    echo "aarch64 C suite, $name: no line \"$want\"" >&2; exit 1; }
  UTF8VALIDATE_BACKEND=$forced run_c "aarch64 guard pages, $name" "$out/guard_pages"
done

# The aarch64 library's own machine code calls no panic or allocation routine, as on
# the host.
bash .ci/panic-free.sh "$lib"
