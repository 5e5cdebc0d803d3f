#!/usr/bin/env bash
# Every test of the project: the README's test command (and CI's: .ci/run installs the
# tools, then runs this).
#
#   bash .ci/test-all.sh            every step
#   bash .ci/test-all.sh --quick    the contributor's loop: clippy, the Rust suites and
#                                   the C suite (debug), the exhaustive tests and the C
#                                   suite in release, on this machine's back ends
#   bash .ci/test-all.sh ID...      these steps (and the steps they need); --list
#                                   lists the IDs
#
# The steps run side by side (.ci/steps.sh): each says how many cores it keeps busy and
# which steps must pass first, and starts as soon as they have and its cores are free.
# A failed step does not stop the others; each step's output is printed in one piece
# when it ends, and the last lines list every step's times and every failure. The exit
# status is non-zero if any step failed. JOBS=1 runs one step at a time.
set -uo pipefail
cd "$(dirname "$0")/.."
source .ci/steps.sh

# The steps in the order they start when their cores are free: the longest chains
# first (the userlands the release needs, Miri's setup and two of its one-core runs,
# the longest builds and emulators), the short steps after them, to fill the gaps,
# and last Miri's unit tests: one core of interpreting in a target directory of its
# own (target/miri), which fills the end, where the other steps mostly wait on each
# other's builds in target/ (cargo builds there one at a time).

# The Debian 11 and 12 userlands (debootstrap) of the release and the Debian 11
# consumer: mostly waiting on the network.
step debian-roots 1 - "Debian 11 and 12 userlands" -- bash .ci/debian-roots.sh
# The Rust crate under Miri (undefined behaviour): the scalar, SSSE3, AVX2 and NEON back
# ends; the toolchain and the two sysroots first, then three one-core runs (the unit
# tests near the end).
step miri-setup all - "Miri: toolchain and sysroots" -- bash .ci/miri.sh setup
# Rust tests, debug assertions on: the Rust crate (utf8validate-core), the CLI, and the
# C library's tests (c-tests/: the C suite against the .a and the .so of `cargo build`,
# plain, ASan/UBSan and guard pages, valgrind only in the release C suite; linkage; the
# header; gdb; the assertion macros; the example).
step test-debug all - "cargo test (debug)" -- cargo test --profile test-debug
# The release (packaging/dist.sh): the source release built with no network, the binary
# archives, the Debian packages and the Conan recipe, each installed and used as C
# users do (Debian 11 and 12 userlands, musl, qemu-user, Wine); lintian, the ABI
# baseline, one version everywhere.
step release all debian-roots "release artifacts" -- bash .ci/release-tests.sh
step miri-x86 1 miri-setup "Miri: tests/miri.rs (x86-64, AVX2)" -- bash .ci/miri.sh x86_64
step miri-aarch64 1 miri-setup "Miri: tests/miri.rs (aarch64, NEON)" -- bash .ci/miri.sh aarch64
# Other Linux targets: the Rust crate's suites and the C suite on each (see
# .ci/cross-tests.sh for which suites run where); most of the time in one emulator,
# or (i686) in the exhaustive tests.
cross() { step "${1%%-*}" 1 - "$1" -- bash .ci/cross-tests.sh "$1"; }
cross i686-unknown-linux-gnu
# Windows under Wine (MinGW-w64: the DLL and static library, the Rust and C suites; the
# MSVC static library).
step windows all - "windows-tests" -- bash .ci/windows-tests.sh
# The Apache httpd module built with apxs (shared and static library), its functional
# tests in a real Apache (event and prefork MPMs), and a soak of 1,000,000 requests.
step apache all - "apache module" -- bash .ci/apache-tests.sh
# The exhaustive and long differential tests, in release mode.
step exhaustive 1 - "exhaustive and long tests (release)" \
  -- cargo test --profile test-release -p utf8validate-core --test exhaustive --test stream \
  --test backends --test diagnostics -- --ignored
# utf8check's routes (parts, windows, read blocks) on every back end, in release.
step routes 1 - "utf8check routes on every back end (release)" \
  -- cargo test --profile test-release -p utf8check --test routes -- --ignored
# Bounded coverage-guided differential fuzzing (Rust API and C ABI).
step fuzz all - "fuzzing" -- bash .ci/fuzz.sh
# Mutation testing of the code changed since the last full run: no missed mutant.
step mutants all - "mutation testing (changed code)" -- bash .ci/mutants.sh
cross aarch64-unknown-linux-gnu
# The nginx module built against Debian's nginx-dev (shared and static library), its
# functional tests in a real nginx on 127.0.0.1, and a soak of 1,000,000 requests.
step nginx all - "nginx module" -- bash .ci/nginx-tests.sh
# Install with CMake into temporary prefixes; pkg-config, find_package, vendoring,
# static and shared consumers, exported symbols, soname, two majors in one process.
step packaging 1 - "packaging and consumers" -- bash .ci/packaging-tests.sh
# The C suite against the optimised library.
step c-suite 1 - "C suite (release)" \
  -- cargo test --profile test-release -p utf8validate-c-tests --test c_suite --test linkage
cross riscv64gc-unknown-linux-gnu
cross s390x-unknown-linux-gnu
# The formatting (rustfmt), and both crates' lints (panicking constructs are denied
# outside tests) on every target of the workspace.
step clippy all - "rustfmt and clippy" \
  -- bash -c 'cargo fmt --all --check && cargo clippy --workspace --all-targets -- -D warnings'
cross x86_64-unknown-linux-musl
# Data in chunks through the optimised .so, on every back end: every split of every
# length up to 300 bytes, long chunks at every block edge, large inputs in random chunks.
step chunks 1 - "C ABI in chunks, every split (release)" \
  -- cargo test --profile test-release -p utf8validate-c-tests --test chunks -- --ignored
# The lldb extension in a real lldb: live, breakpoint callback, core file, docs/debugging.md sessions.
step lldb 1 - "lldb extension" -- bash .ci/lldb-tests.sh
# The independent C ABI benchmark builds against the installed static library, and
# every contender gives each input's known answer (timings not read here).
step bench-smoke 1 - "C ABI benchmark (smoke)" -- bash .ci/c-abi-bench-smoke.sh
# The CMake cross build for Windows and its consumers under Wine (after windows-tests:
# the same Wine prefix).
step windows-cmake 1 windows "windows-cmake-tests" -- bash .ci/windows-cmake-tests.sh
# The C library built on this machine, used by a Debian 11 (glibc 2.31) userland.
step debian11 1 debian-roots "Debian 11 consumer" -- bash .ci/debian11-tests.sh
# macOS compile checks.
step macos 1 - "macos-checks" -- bash .ci/macos-checks.sh
# The Rust crate on its own: no_std on a target without std, docs, publishable.
step core-crate 1 - "the Rust crate alone" -- bash .ci/core-crate.sh
# The man pages: rendered with scdoc, no mandoc or groff warning, in step with
# utf8check --help and with the header.
step man-pages 1 - "man pages" -- bash .ci/man-pages.sh
# The optimised library's own machine code calls no panic or allocation routine.
step panic-free 1 - "no panic paths (release library)" -- bash .ci/panic-free.sh
# The unit tests under Miri (see miri-setup above).
step miri-x86-lib 1 miri-setup "Miri: unit tests (x86-64, AVX2)" -- bash .ci/miri.sh x86_64-lib

quick=(clippy test-debug exhaustive c-suite)
case ${1:-} in
  --list) for id in "${ci_ids[@]}"; do printf '%-14s %s\n' "$id" "${ci_title[$id]}"; done; exit 0 ;;
  --quick) only_steps "${quick[@]}" ;;
  "") ;;
  *) only_steps "$@" ;;
esac
run_steps
