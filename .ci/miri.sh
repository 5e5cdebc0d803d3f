#!/usr/bin/env bash
# utf8validate-core under Miri, which reports undefined behaviour (a read outside
# the input, an out-of-bounds or misaligned load, uninitialised memory, a broken
# `unsafe` contract) as it interprets the code: the crate's unit tests and
# tests/miri.rs, a sample of the suites sized for Miri (see its docs).
#
# Miri has no CPUID: cpufeatures reports a CPU feature when it is enabled at compile
# time. So the run turns on AVX2 (and with it SSSE3): backends::available() then
# lists avx2, ssse3 and scalar, and tests/miri.rs runs each. AVX-512 cannot run
# under Miri, which does not implement vpermb (llvm.x86.avx512.permvar.qi.512).
# Then tests/miri.rs again for aarch64, which Miri interprets on this machine
# (its sysroot built from rust-src): the NEON back end and the scalar machine.
#
# Needs a nightly toolchain with the miri and rust-src components; installs them
# with rustup when missing. Takes about 19 minutes on 2 cores from a clean clone
# (building the two Miri sysroots included).
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh
toolchain=${MIRI_TOOLCHAIN:-nightly}
if ! cargo "+$toolchain" miri --version >/dev/null 2>&1; then
  if rustup toolchain list | grep -q "^$toolchain"; then
    rustup component add --toolchain "$toolchain" miri rust-src ||
      skip_or_fail miri "cannot add Miri to the $toolchain toolchain" "rustup component add --toolchain $toolchain miri rust-src"
  else
    rustup toolchain install "$toolchain" --profile minimal --component miri,rust-src ||
      skip_or_fail miri "cannot install a $toolchain toolchain with Miri" "rustup toolchain install nightly -c miri,rust-src"
  fi
fi
unset CARGO_BUILD_TARGET
RUSTFLAGS="-C target-feature=+avx2" cargo "+$toolchain" miri test -p utf8validate-core --lib --test miri
RUSTFLAGS= cargo "+$toolchain" miri test -p utf8validate-core --target aarch64-unknown-linux-gnu --test miri
