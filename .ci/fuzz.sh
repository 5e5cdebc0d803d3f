#!/usr/bin/env bash
# Bounded, coverage-guided, differential fuzzing of utf8validate (part of CI).
#
# Targets (each compares every answer with an oracle the library does not share):
#   validate  fuzz/fuzz_targets/validate.rs  the Rust crate's one-shot API and every back
#             end this CPU supports vs std::str::from_utf8 (validity, valid_up_to,
#             error_len) and the kinds.
#   chunked   fuzz/fuzz_targets/chunked.rs   data in chunks cut at points taken from the
#             input: validate_chunk / each back end (the state after every chunk vs
#             the draft's table, the final verdict vs the one-shot one) and Stream
#             (feed, position, and finish after every chunk vs std on the prefix so far).
#   render    fuzz/fuzz_targets/render.rs    escape_into / replace_into vs
#             String::from_utf8_lossy and <[u8]>::utf8_chunks, with a full and a
#             too-small buffer (truncation between units, no write past it).
#   c_api     c-tests/fuzz/fuzz_c_api.c      the C library's functions:
#             libFuzzer harness in C through the header,
#             built with clang -fsanitize=fuzzer,address,undefined, linking the static
#             library; oracle: the RFC 3629 grammar written in C (c-tests/oracle.h);
#             inputs also placed against PROT_NONE guard pages.
# The Rust targets are built by cargo-fuzz, and the static library the C harness links
# by this script with the same instrumentation: AddressSanitizer, libFuzzer's coverage
# counters, debug assertions and overflow checks; so ASan also checks the library's
# own loads when C calls it, and the C fuzzer is guided by the library's branches.
#
# Usage: bash .ci/fuzz.sh [target...]          (default: all targets)
#   FUZZ_SECONDS=N    seconds per target; by default each target's own number of
#                     executions (below). For a
#                     long run, e.g. overnight:
#                       FUZZ_SECONDS=28800 bash .ci/fuzz.sh validate
#                     or directly, with every libFuzzer option:
#                       RUSTC_BOOTSTRAP=1 cargo fuzz run chunked -- -max_len=65536 -jobs=2
#   FUZZ_JOBS=2       targets fuzzed at the same time (default 2, one per core here).
#   FUZZ_ARGS="..."   more libFuzzer options, e.g. FUZZ_ARGS="-max_len=65536" (the
#                     default -max_len is 4096: 64 AVX-512 blocks, fast executions).
# Corpus: fuzz/corpus/<target>/ keeps what each run found (git-ignored); every run
# also starts from seeds generated into a temporary directory from test vectors,
# ../shared/testdata/UTF-8-test.txt (line by line) and slices of ../shared/corpus/.
# Crashes and mismatches: the input is saved as fuzz/artifacts/<target>/crash-<sha1>
# (the script exits 1 and prints the log). Reproduce with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run <target> fuzz/artifacts/<target>/crash-<sha1>
#   target/fuzz/c_api/fuzz_c_api fuzz/artifacts/c_api/crash-<sha1>
#
# Needs: a stable Rust (nightly not required: RUSTC_BOOTSTRAP=1 lets stable accept
# -Zsanitizer=address), cargo-fuzz (installed from crates.io if missing), and for c_api
# clang with its sanitizer and libFuzzer runtimes (Debian 12: clang libclang-rt-14-dev;
# llvm for symbolized reports). The Rust targets link clang's libFuzzer too when it is
# there (CUSTOM_LIBFUZZER_PATH, which libfuzzer-sys reads); otherwise libfuzzer-sys
# compiles its own copy, with a C++ compiler. Under CI=true a missing tool fails the
# run; elsewhere c_api is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$SECONDS

# Each target's time is set by what it finds: started from the seeds (as in CI), in
# three runs of 90 s, new coverage edges per minute in 0-15, 15-30, 30-45, 45-60 and
# 60-90 s were validate 92, 9, 0, 0, 0; render 52, 3, 5, 3, 0; chunked 200, 9, 13,
# 1, 8; c_api 299, 29, 8, 11, 7 (docs/fuzzing.md). Each runs until its finds fall to
# a few a minute; the longest first. A run is a number of executions, the ones it
# makes in that time with a core to itself (its throughput there), so that a run
# beside other work tests as many inputs, only later; four times its time bounds it.
declare -A default_seconds=([c_api]=60 [chunked]=45 [render]=30 [validate]=20)
declare -A default_runs=([c_api]=36000 [chunked]=740000 [render]=108000 [validate]=600000)
jobs=${FUZZ_JOBS:-2}
all_targets=(c_api chunked render validate)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
# A stable toolchain accepts -Z flags with this; harmless on nightly.
export RUSTC_BOOTSTRAP=1
target_dir="${CARGO_TARGET_DIR:-$root/target}/fuzz"
triple=$(rustc -vV | sed -n 's/^host: //p')

say() { printf '[fuzz %3ds] %s\n' $((SECONDS - start)) "$*"; }
missing() {
  if [ "${CI:-}" = true ]; then
    say "FAIL: $1 (required in CI)"
    exit 1
  fi
  say "skipping: $1"
}

# --- tools -----------------------------------------------------------------------
if ! cargo fuzz --version >/dev/null 2>&1; then
  # A debug build without debug info: cargo-fuzz only runs cargo and the fuzzer, and
  # it compiles in half the CPU time of a release build.
  say "installing cargo-fuzz from crates.io"
  CARGO_PROFILE_DEV_DEBUG=false cargo install cargo-fuzz --locked --quiet --debug
fi
say "$(cargo fuzz --version), $(rustc --version)"

want_c=false
for t in "${targets[@]}"; do [ "$t" = c_api ] && want_c=true; done
if $want_c; then
  probe=$(mktemp -d)
  printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
    >"$probe/p.c"
  why=
  if ! command -v clang >/dev/null; then
    why="clang not found (apt-get install clang libclang-rt-14-dev)"
  elif ! clang -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    why="clang cannot link -fsanitize=fuzzer,address,undefined (apt-get install libclang-rt-14-dev)"
  fi
  rm -rf "$probe"
  if [ -n "$why" ]; then
    missing "$why"
    want_c=false
    mapfile -t targets < <(printf '%s\n' "${targets[@]}" | grep -vx c_api || true)
  fi
fi

# The Rust targets link clang's libFuzzer runtime, the one c_api links, rather than
# one libfuzzer-sys compiles from C++ (most of their build's CPU time).
# Set for the runs as well: `cargo fuzz run` rebuilds when it changes.
if [ -z "${CUSTOM_LIBFUZZER_PATH:-}" ] && command -v clang >/dev/null; then
  runtime="$(clang --print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-$(uname -m).a"
  [ ! -f "$runtime" ] || export CUSTOM_LIBFUZZER_PATH=$runtime
fi
say "libFuzzer: ${CUSTOM_LIBFUZZER_PATH:-the one libfuzzer-sys builds}"

# --- seeds -----------------------------------------------------------------------
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds/bytes" "$seeds/chunked"
seed() { # seed <bytes on stdin>: one more seed file
  cat >"$(mktemp "$seeds/bytes/seed-XXXXXX")"
}
slice() { # slice <file> <offset> <length>: those bytes (fewer at the end of the file)
  head -c $(($2 + $3)) "$1" | tail -c +$(($2 + 1))
}
# Test vectors: the RFC 3629 section 7 examples, the edges of Unicode Table 3-7, and
# ill-formed sequences of every kind (overlong, surrogate, too large, never-used byte,
# stray continuation, missing continuation, truncated).
for hex in \
  '41 E2 89 A2 CE 91 2E' 'ED 95 9C EA B5 AD EC 96 B4' 'E6 97 A5 E6 9C AC E8 AA 9E' \
  'EF BB BF F0 A3 8E B4' '00' '7F' 'C2 80' 'DF BF' 'E0 A0 80' 'EF BF BF' 'ED 9F BF' \
  'EE 80 80' 'F0 90 80 80' 'F4 8F BF BF' 'C0 AF' 'C1 BF' 'E0 9F BF' 'F0 8F BF BF' \
  'ED A0 80' 'ED BF BF' 'ED A0 80 ED B0 80' 'F4 90 80 80' 'F5 80 80 80' 'F8 88 80 80 80' \
  'FC 84 80 80 80 80' 'FE' 'FF' '80' 'BF' 'C3 A9 BF' 'C3 41' 'E2 82 41' 'F0 9F 98 41' \
  'E2 82' 'F0 9F 98' '61 62 63 F0 9F 98 80 64 65 66'; do
  printf "$(printf '\\x%s' $hex)" | seed
done
testdata=$root/../shared/testdata/UTF-8-test.txt
corpus=$root/../shared/corpus
if [ -f "$testdata" ]; then
  split -l 1 -a 3 "$testdata" "$seeds/bytes/kuhn-"
  for off in 0 4000 4400 8000 16000; do slice "$testdata" $off 1024 | seed; done
else
  missing "$testdata not found (seeds from test vectors and corpus only)"
fi
if [ -d "$corpus" ]; then
  # Slices at odd offsets start and end inside characters.
  for f in "$corpus"/*.txt "$corpus"/*/*.txt; do
    for slice in 0:64 1:100 1001:33 5001:1000 20002:4096; do
      slice "$f" "${slice%:*}" "${slice#*:}" | seed
    done
  done
else
  missing "$corpus not found (seeds from test vectors and test data only)"
fi
# The chunked target reads a header first (fuzz/src/lib.rs, split_input): 3 cuts.
for f in "$seeds/bytes"/*; do
  len=$(stat -c %s "$f")
  {
    printf '\x03'
    for cut in $((len / 3)) $((len / 2 + 1)) $((2 * len / 3 + 2)); do
      printf "$(printf '\\x%02x\\x%02x' $((cut & 255)) $(((cut >> 8) & 255)))"
    done
    cat "$f"
  } >"$seeds/chunked/$(basename "$f")"
done
say "$(ls "$seeds/bytes" | wc -l) seeds"

# --- build -----------------------------------------------------------------------
mkdir -p fuzz/corpus fuzz/artifacts
say "building the Rust fuzz targets (cargo fuzz build, ASan + coverage)"
if ! cargo fuzz build --target-dir "$target_dir" >"$seeds/build.log" 2>&1; then
  cat "$seeds/build.log"
  say "FAIL: cargo fuzz build"
  exit 1
fi
if $want_c; then
  # The static library for the C harness, instrumented like cargo-fuzz instruments the
  # Rust targets: AddressSanitizer (so ASan checks the library's own loads, not only
  # the harness's), libFuzzer's coverage counters and compare tracing (so the fuzzer
  # is guided by the library's branches), debug assertions and overflow checks.
  # Its own target dir: other RUSTFLAGS, and only the static library (an instrumented
  # shared library would need the sanitizer runtime at its own link), without LTO
  # (LLVM's coverage instrumentation leaves references that an LTO object cannot
  # resolve).
  say "building libutf8validate.a for c_api (ASan + coverage)"
  c_target_dir="$target_dir/c_api"
  if ! RUSTFLAGS="-Zsanitizer=address -Cpasses=sancov-module \
      -Cllvm-args=-sanitizer-coverage-level=4 \
      -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
      -Cllvm-args=-sanitizer-coverage-pc-table \
      -Cllvm-args=-sanitizer-coverage-trace-compares \
      -Cdebug-assertions -Coverflow-checks -Cforce-frame-pointers -Cdebuginfo=1" \
    CARGO_PROFILE_RELEASE_LTO=false \
    cargo rustc --quiet --release --package utf8validate --lib --crate-type staticlib \
      --target "$triple" --target-dir "$c_target_dir" >"$seeds/build-c.log" 2>&1; then
    cat "$seeds/build-c.log"
    say "FAIL: building the static library for c_api"
    exit 1
  fi
  lib="$c_target_dir/$triple/release/libutf8validate.a"
  mkdir -p fuzz/artifacts/c_api
  say "building c_api (clang -fsanitize=fuzzer,address,undefined + $lib)"
  clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -Wall -Wextra -Werror -I include -I c-tests c-tests/fuzz/fuzz_c_api.c "$lib" \
    -o "$c_target_dir/fuzz_c_api"
fi

# --- run -------------------------------------------------------------------------
logs=$target_dir/logs
mkdir -p "$logs"
# -timeout: an input that takes over 10 s is a hang, reported like a crash.
# shellcheck disable=SC2206 # FUZZ_ARGS is split into words on purpose
libfuzzer_opts=(-max_len=4096 -timeout=10
  -dict="$root/fuzz/utf8.dict" -print_final_stats=1 ${FUZZ_ARGS:-})
# The libFuzzer options that end target $1's run: FUZZ_SECONDS, or its executions.
limits_of() {
  if [ -n "${FUZZ_SECONDS:-}" ]; then
    echo "-max_total_time=$FUZZ_SECONDS"
  else
    echo "-runs=${default_runs[$1]} -max_total_time=$((4 * ${default_seconds[$1]}))"
  fi
}
run_one() {
  local t=$1 seedset=bytes
  [ "$t" = chunked ] && seedset=chunked
  mkdir -p "fuzz/corpus/$t"
  if [ "$t" = c_api ]; then
    "$target_dir/c_api/fuzz_c_api" "fuzz/corpus/$t" "$seeds/$seedset" \
      -artifact_prefix="fuzz/artifacts/c_api/" $(limits_of "$t") "${libfuzzer_opts[@]}"
  else
    cargo fuzz run --target-dir "$target_dir" "$t" "fuzz/corpus/$t" "$seeds/$seedset" \
      -- $(limits_of "$t") "${libfuzzer_opts[@]}"
  fi
}
plan=$(for t in "${targets[@]}"; do
  if [ -n "${FUZZ_SECONDS:-}" ]; then printf '%s %s s\n' "$t" "$FUZZ_SECONDS"
  else printf '%s %s runs\n' "$t" "${default_runs[$t]}"; fi
done | paste -sd, | sed 's/,/, /g')
say "fuzzing, $jobs at a time: $plan"
declare -A pid_of=()
failed=()
finish() { # finish <target>: wait for it and report
  local t=$1 rc=0
  wait "${pid_of[$t]}" || rc=$?
  local runs rate
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/$t.log")
  if [ "$rc" = 0 ]; then
    say "$t: ok, ${runs:-?} runs, ${rate:-?} execs/s, corpus $(ls "fuzz/corpus/$t" | wc -l) inputs"
  else
    say "$t: FAILED (exit $rc); log $logs/$t.log, last lines:"
    grep -v '^#[0-9]' "$logs/$t.log" | tail -n 60
    ls -1 "fuzz/artifacts/$t/" 2>/dev/null | sed 's/^/    saved: fuzz\/artifacts\/'"$t"'\//'
    failed+=("$t")
  fi
}
running=()
for t in "${targets[@]}"; do
  run_one "$t" >"$logs/$t.log" 2>&1 &
  pid_of[$t]=$!
  running+=("$t")
  if [ "${#running[@]}" -ge "$jobs" ]; then
    finish "${running[0]}"
    running=("${running[@]:1}")
  fi
done
for t in "${running[@]}"; do finish "$t"; done

if [ "${#failed[@]}" -gt 0 ]; then
  say "FAIL: ${failed[*]}"
  exit 1
fi
say "done: ${targets[*]}"
