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
  local began=$SECONDS status=0 cpu
  # The step in a subshell, whose `times` then gives the CPU time of every process
  # the step waited for: how many of the cores it kept busy.
  cpu=$(mktemp)
  ( "$@"; s=$?; times >"$cpu"; exit $s ) || status=$?
  cpu=$(awk 'END { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }' "$cpu" && rm -f "$cpu")
  if [ "$status" = 0 ]; then
    passed=$((passed + 1))
    printf '=== ok: %s (%ds, CPU %ss)\n' "$name" $((SECONDS - began)) "$cpu"
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf '=== FAILED: %s (%ds, CPU %ss)\n' "$name" $((SECONDS - began)) "$cpu"
  fi
}

# Both crates' lints (panicking constructs are denied outside tests), on every target
# of the workspace.
step "clippy" cargo clippy --workspace --all-targets -- -D warnings
# Rust tests: the Rust crate (utf8validate-core), the CLI, and the C library's tests
# (c-tests/: the C suite against the .a and the .so, plain, ASan/UBSan, valgrind and
# guard pages; linkage; the header; gdb; the assertion macros; the example).
step "cargo test (debug)" cargo test
# The exhaustive and long differential tests, in release mode.
step "exhaustive and long tests (release)" \
  cargo test --profile test-release -p utf8validate-core --test exhaustive --test stream --test backends \
  --test diagnostics -- --ignored
# utf8check's routes (parts, windows, read blocks) on every back end, in release.
step "utf8check routes on every back end (release)" \
  cargo test --profile test-release -p utf8check --test routes -- --ignored
# The C suite against the optimised library.
step "C suite (release)" cargo test --profile test-release -p utf8validate-c-tests --test c_suite --test linkage
# Data in chunks through the optimised .so, on every back end: every split of every
# length up to 300 bytes, long chunks at every block edge, large inputs in random chunks.
step "C ABI in chunks, every split (release)" \
  cargo test --profile test-release -p utf8validate-c-tests --test chunks -- --ignored
# The lldb extension in a real lldb: live, breakpoint callback, core file, docs/debugging.md sessions.
step "lldb extension" bash .ci/lldb-tests.sh
# The optimised library's own machine code calls no panic or allocation routine.
step "no panic paths (release library)" bash .ci/panic-free.sh
# The Rust crate on its own: no_std on a target without std, docs, publishable.
step "the Rust crate alone" bash .ci/core-crate.sh
# The man pages: rendered with scdoc, no mandoc or groff warning, in step with
# utf8check --help and with the header.
step "man pages" bash .ci/man-pages.sh
# Install with CMake into temporary prefixes; pkg-config, find_package, vendoring,
# static and shared consumers, exported symbols, soname, two majors in one process.
step "packaging and consumers" bash .ci/packaging-tests.sh
# The C library built on this machine, used by a Debian 11 (glibc 2.31) userland.
step "Debian 11 consumer" bash .ci/debian11-tests.sh
# The release (packaging/dist.sh): the source release built with no network, the binary
# archives, the Debian packages and the Conan recipe, each installed and used as C
# users do (Debian 11 and 12 userlands, musl, qemu-user, Wine); lintian, the ABI
# baseline, one version everywhere.
step "release artifacts" bash .ci/release-tests.sh
# The nginx module built against Debian's nginx-dev (shared and static library), its
# functional tests in a real nginx on 127.0.0.1, and a soak of 1,000,000 requests.
step "nginx module" bash .ci/nginx-tests.sh
# The Apache httpd module built with apxs (shared and static library), its functional
# tests in a real Apache (event and prefork MPMs), and a soak of 1,000,000 requests.
step "apache module" bash .ci/apache-tests.sh
# The independent C ABI benchmark builds against the installed static library, and
# every contender gives each input's known answer (timings not read here).
step "C ABI benchmark (smoke)" bash .ci/c-abi-bench-smoke.sh
# Other Linux targets: the Rust crate's suites and the C suite on each (see
# .ci/cross-tests.sh for which suites run where).
for target in i686-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-gnu \
  s390x-unknown-linux-gnu riscv64gc-unknown-linux-gnu; do
  step "$target" bash .ci/cross-tests.sh "$target"
done
# Windows under Wine (MinGW-w64: the DLL and static library, the Rust and C suites, the
# CMake cross build and its consumers; the MSVC static library) and macOS compile checks.
for s in windows-tests windows-cmake-tests macos-checks; do step "$s" bash ".ci/$s.sh"; done
# Bounded coverage-guided differential fuzzing (Rust API and C ABI).
step "fuzzing" bash .ci/fuzz.sh
# The Rust crate under Miri (undefined behaviour): the scalar, SSSE3, AVX2 and NEON back ends.
step "Miri" bash .ci/miri.sh
# Mutation testing of the code changed since the last full run: no missed mutant.
step "mutation testing (changed code)" bash .ci/mutants.sh

printf '\n=== %d s in all\n' $((SECONDS - start))
for f in "${failures[@]}"; do printf 'failed step: %s\n' "$f"; done
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
