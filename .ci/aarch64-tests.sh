#!/usr/bin/env bash
# Runs the Rust test suite for aarch64 (the NEON back end) under qemu user-mode
# emulation: Debian's cross gcc links, qemu-aarch64 runs the test binaries.
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
