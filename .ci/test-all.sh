#!/usr/bin/env bash
# Every test of the project: the README's test command. Each step runs even when an
# earlier one failed, so one run shows every failure; the last line counts the steps
# and the exit status is non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
passed=0
failed=0
failures=()

step() {
  local name=$1
  shift
  printf '\n=== %s (at %ds)\n' "$name" $((SECONDS - start))
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf '=== FAILED: %s\n' "$name"
  fi
}

# The library's lints (panicking constructs are denied outside tests).
step "clippy (library)" cargo clippy --lib --no-default-features
# Rust tests, the C suite against the .a and the .so (plain, ASan/UBSan, valgrind,
# guard pages), the CLI against isutf8, gdb, the assertion macros, the example.
step "cargo test (debug)" cargo test --all-targets
# The exhaustive and long differential tests, in release mode.
step "exhaustive and long tests (release)" \
  cargo test --release --test exhaustive --test stream --test backends --test diagnostics -- --ignored
# The C suite against the optimised library.
step "C suite (release)" cargo test --release --test c_suite
# The optimised library's own machine code calls no panic or allocation routine.
step "no panic paths (release library)" bash .ci/panic-free.sh
# Install with CMake into temporary prefixes; pkg-config, find_package, vendoring,
# static and shared consumers, exported symbols, soname, two majors in one process.
step "packaging and consumers" bash .ci/packaging-tests.sh
# The nginx module built against Debian's nginx-dev (shared and static library), its
# functional tests in a real nginx on 127.0.0.1, and a soak of 1,000,000 requests.
step "nginx module" bash .ci/nginx-tests.sh
# The independent C ABI benchmark builds against the installed static library, and
# every contender gives each input's known answer (timings not read here).
step "C ABI benchmark (smoke)" bash .ci/c-abi-bench-smoke.sh
# The NEON back end (and every suite) for aarch64 under qemu.
step "aarch64 under qemu" bash .ci/aarch64-tests.sh
# Bounded coverage-guided differential fuzzing (Rust API and C ABI).
step "fuzzing" bash .ci/fuzz.sh

printf '\n=== %d s in all\n' $((SECONDS - start))
for f in "${failures[@]}"; do printf 'failed step: %s\n' "$f"; done
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
