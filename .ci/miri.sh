#!/usr/bin/env bash
# utf8validate-core under Miri, which reports undefined behaviour (a read outside
# the input, an out-of-bounds or misaligned load, uninitialised memory, a broken
# `unsafe` contract) as it interprets the code: the crate's unit tests and
# tests/miri.rs, a sample of the suites sized for Miri (see its docs).
#
# Miri has no CPUID: cpufeatures reports a CPU feature when it is enabled at compile
# time. So the x86-64 runs turn on AVX2 (and with it SSSE3): backends::available()
# then lists avx2, ssse3 and scalar, and tests/miri.rs runs each. AVX-512 cannot run
# under Miri, which does not implement vpermb (llvm.x86.avx512.permvar.qi.512).
# Then tests/miri.rs again for aarch64, which Miri interprets on this machine
# (its sysroot built from rust-src): the NEON back end and the entry points (the
# scalar machine and the renderings, the same code on both targets, run for x86-64).
#
# Usage: bash .ci/miri.sh [PART...]   PART: setup, x86_64-lib, x86_64, aarch64
#   setup        the toolchain, and Miri's sysroots for both targets
#   x86_64-lib   the unit tests (src/), AVX2 enabled
#   x86_64       tests/miri.rs, AVX2 enabled
#   aarch64      tests/miri.rs for aarch64
# Without a PART, all four in turn. Miri interprets on one core: .ci/test-all.sh runs
# the three test parts side by side, after setup.
#
# Needs a nightly toolchain with the miri and rust-src components; installs them
# with rustup when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh
toolchain=${MIRI_TOOLCHAIN:-nightly}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(setup x86_64-lib x86_64 aarch64)
unset CARGO_BUILD_TARGET

# The x86-64 runs' flags; the sysroot is made with the flags of the runs that use it.
avx2="-C target-feature=+avx2"
miri() { # miri RUSTFLAGS CARGO-MIRI-ARGS...
  local flags=$1
  shift
  RUSTFLAGS=$flags cargo "+$toolchain" miri "$@"
}
for part in "${parts[@]}"; do
  case $part in
    setup)
      if ! cargo "+$toolchain" miri --version >/dev/null 2>&1; then
        if rustup toolchain list | grep -q "^$toolchain"; then
          rustup component add --toolchain "$toolchain" miri rust-src ||
            skip_or_fail miri "cannot add Miri to the $toolchain toolchain" "rustup component add --toolchain $toolchain miri rust-src"
        else
          rustup toolchain install "$toolchain" --profile minimal --component miri,rust-src ||
            skip_or_fail miri "cannot install a $toolchain toolchain with Miri" "rustup toolchain install nightly -c miri,rust-src"
        fi
      fi
      cargo "+$toolchain" miri --version
      miri "$avx2" setup
      miri "" setup --target aarch64-unknown-linux-gnu
      ;;
    x86_64-lib) miri "$avx2" test -p utf8validate-core --lib ;;
    x86_64) miri "$avx2" test -p utf8validate-core --test miri ;;
    aarch64) miri "" test -p utf8validate-core --target aarch64-unknown-linux-gnu --test miri ;;
    *) echo "miri.sh: unknown part $part (setup, x86_64-lib, x86_64, aarch64)" >&2; exit 2 ;;
  esac
done
