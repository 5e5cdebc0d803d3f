#!/usr/bin/env bash
# The C ABI benchmark, from the working tree (or a commit: --rev) to the table (see
# BENCHMARKS.md):
#   1. builds our library in release with its own CMake package (cmake/) and installs it
#      into a fresh prefix, as a C/C++ user does;
#   2. configures and builds benches/c-abi/ against that prefix (find_package, the static
#      target), C++ simdutf from the simdutf crate's amalgamation, GLib and Google
#      Benchmark, and checks with ldd that no libutf8validate.so is loaded;
#   3. runs it twice: the default back end, then the AVX2 back end
#      (UTF8VALIDATE_BACKEND=avx2, and simdutf's haswell kernel through
#      SIMDUTF_FORCE_IMPLEMENTATION: what an AVX2-only CPU runs), each run checking first
#      that every contender gives each input's known answer;
#   4. prints the Markdown table (benches/c-abi/summarize.py), and writes each run as
#      CSV to benches/results/<machine>/<date>-c-abi-<run>.csv.
#
# Usage:
#   bash benches/c-abi/run.sh            # the full run: a few minutes
#   bash benches/c-abi/run.sh --smoke    # builds, checks the answers, times each
#                                        # benchmark once, briefly: no numbers to quote
#   bash benches/c-abi/run.sh --sizes    # instead of the inputs above: ASCII and mixed
#                                        # text of every length from 1 to 512 bytes,
#                                        # ours and simdutf, the table by ranges of
#                                        # lengths (about 10 minutes)
#   bash benches/c-abi/run.sh [--smoke] -- --benchmark_filter=corpus   # extra flags for
#                                        # the benchmark program (Google Benchmark's)
#   bash benches/c-abi/run.sh --rev HEAD # our library built from a commit (git archive)
#                                        # instead of the working tree: a measurement
#                                        # of exactly that commit while the tree changes
#
# Needs: cmake, a C and C++ compiler, pkg-config, cargo, python3, and the Debian
# packages libbenchmark-dev and libglib2.0-dev. The corpus is $UTF8VALIDATE_CORPUS,
# default ../shared/corpus beside the repository (skipped with a message if absent).
# Cargo builds in $CARGO_TARGET_DIR (default target/, as `cargo build` does; a --rev
# build in a directory of its own). Build trees and results go to $C_ABI_BENCH_DIR,
# default ${CARGO_TARGET_DIR:-target}/c-abi-bench; the results stay in its results/
# (python3 benches/c-abi/summarize.py <that directory> prints the table again).
set -euo pipefail
# No `producer | grep -q` below: grep -q exits at its first match, the producer then
# dies of SIGPIPE if it still has output (nm has plenty), and pipefail makes that
# a failed pipeline. `grep ... >/dev/null` reads to the end.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
smoke=0
sizes=0
rev=
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --smoke) smoke=1 ;;
    --sizes) sizes=1 ;;
    --rev) [ $# -ge 2 ] || { echo "run.sh: --rev needs a commit" >&2; exit 64; }; rev=$2; shift ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
  shift
done

fail() { echo "run.sh: $*" >&2; exit 1; }
step() { echo "== $*" >&2; }

# --- What it needs, named by the package that provides it --------------------------------
need_tool() { command -v "$1" >/dev/null 2>&1 || fail "'$1' not found: $2"; }
need_tool cmake "apt-get install cmake"
need_tool c++ "apt-get install g++"
need_tool cc "apt-get install gcc"
need_tool pkg-config "apt-get install pkg-config"
need_tool python3 "apt-get install python3"
need_tool cargo "install Rust (https://rustup.rs)"
need_tool ldd "apt-get install libc-bin"
need_tool nm "apt-get install binutils"
echo '#include <benchmark/benchmark.h>' | c++ -x c++ -E - >/dev/null 2>&1 ||
  fail "Google Benchmark's header benchmark/benchmark.h not found: apt-get install libbenchmark-dev"
pkg-config --exists 'glib-2.0 >= 2.60' ||
  fail "glib-2.0 (>= 2.60, for g_utf8_validate_len) not found by pkg-config: apt-get install libglib2.0-dev"

work=${C_ABI_BENCH_DIR:-${CARGO_TARGET_DIR:-$repo/target}/c-abi-bench}
case $work in /*) ;; *) work=$repo/$work ;; esac
mkdir -p "$work"
log=$work/build.log
: >"$log"
run_logged() {
  "$@" >>"$log" 2>&1 || { tail -n 40 "$log" >&2; fail "failed: $* (whole log: $log)"; }
}

# --- 1. Our library, installed as users install it -----------------------------------------
if [ -n "$rev" ]; then
  commit=$(git -C "$repo" rev-parse --short=7 --verify "$rev^{commit}") || fail "no commit '$rev'"
  lib_src=$work/rev-src
  rm -rf "$lib_src"
  mkdir -p "$lib_src"
  git -C "$repo" archive "$commit" | tar -x -C "$lib_src"
  # Its own cargo target directory, and every file newer than anything built before:
  # cargo decides freshness by modification times, and git archive gives the commit's.
  find "$lib_src" -type f -exec touch {} +
  lib_build=$work/rev-lib-build
  cargo_target=$work/rev-cargo-target
else
  commit=$(git -C "$repo" describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)
  lib_src=$repo
  lib_build=$work/lib-build
  cargo_target=${CARGO_TARGET_DIR:-$repo/target}  # where `cargo build --release` builds
fi
step "building utf8validate $commit (release) with cmake/ and installing it into $work/prefix"
rm -rf "$work/prefix"
run_logged cmake -S "$lib_src/cmake" -B "$lib_build" -DCMAKE_BUILD_TYPE=Release \
  -DUTF8VALIDATE_BUILD_CLI=OFF -DUTF8VALIDATE_INSTALL_GDB=OFF \
  -DUTF8VALIDATE_CARGO_TARGET_DIR="$cargo_target"
run_logged cmake --build "$lib_build"
run_logged cmake --install "$lib_build" --prefix "$work/prefix"

# --- 2. The benchmark ----------------------------------------------------------------------
# The C++ amalgamation of the simdutf crate the Rust benchmark uses (no copy in the repo).
simdutf_dir=$(cargo metadata --format-version 1 --manifest-path "$repo/benches/Cargo.toml" 2>>"$log" |
  python3 -c '
import json, os, sys
pkgs = [p for p in json.load(sys.stdin)["packages"] if p["name"] == "simdutf"]
if len(pkgs) != 1:
    sys.exit("expected one simdutf package in benches/Cargo.toml, found %d" % len(pkgs))
print(os.path.join(os.path.dirname(pkgs[0]["manifest_path"]), "cpp"))
') || fail "cargo metadata did not name the simdutf crate's directory (log: $log)"
[ -f "$simdutf_dir/simdutf.cpp" ] || fail "no simdutf.cpp in $simdutf_dir (cargo fetch --manifest-path benches/Cargo.toml?)"

step "building the benchmark (simdutf from $simdutf_dir)"
run_logged cmake -S "$repo/benches/c-abi" -B "$work/bench-build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DSIMDUTF_CPP_DIR="$simdutf_dir"
bench=$work/bench-build/c_abi_bench
# Always linked again: the installed library keeps its build's time stamp, which can
# be older than a program linked by an earlier run (of another --rev), and make would
# then keep that program and the library it holds.
rm -f "$bench"
run_logged cmake --build "$work/bench-build"

# The static library, linked in: our symbols defined in the program, no .so loaded.
if ldd "$bench" | grep libutf8validate >/dev/null; then
  ldd "$bench" >&2
  fail "the benchmark loads libutf8validate.so; it must link libutf8validate.a"
fi
nm "$bench" | grep -E ' T utf8_validate$' >/dev/null || fail "utf8_validate is not defined in $bench"
echo "ok: libutf8validate.a linked in (ldd lists no libutf8validate.so)" >&2

# --- 3. The runs ---------------------------------------------------------------------------
export UTF8VALIDATE_CORPUS=${UTF8VALIDATE_CORPUS:-$repo/../shared/corpus}
if [ $smoke = 1 ]; then
  results=$work/results-smoke
  [ $sizes = 0 ] || results=$work/results-sizes-smoke
  flags=(--benchmark_min_time=0.0001 --benchmark_repetitions=1)
elif [ $sizes = 1 ]; then
  results=$work/results-sizes
  # 3072 benchmarks: shorter repetitions than the main run's, still in random order.
  flags=(--benchmark_min_time=0.01 --benchmark_repetitions=5
    --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true)
else
  results=$work/results
  # Repetitions in random order (each contender's samples spread over the whole run, so
  # a load that comes and goes on a shared machine hits all of them alike); the median.
  flags=(--benchmark_min_time=0.03 --benchmark_repetitions=10
    --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true)
fi
[ $sizes = 0 ] || flags+=(--sizes)
rm -rf "$results"
mkdir -p "$results"
echo "$commit" >"$results/commit.txt"
{
  sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1
  rustc --version
  c++ --version | head -n 1
} >"$results/machine.txt" 2>/dev/null || true

# run NAME ENV-ARGS...: one run of every benchmark, in its own process, under
# `env ENV-ARGS...`.
run() {
  local name=$1
  shift
  step "running: $name back end ($*); console output in $results/$name.log"
  env "$@" "$bench" "${flags[@]}" --benchmark_out_format=json \
    --benchmark_out="$results/$name.json" "${extra[@]}" >"$results/$name.log" 2>&1 ||
    { tail -n 30 "$results/$name.log" >&2; fail "the $name run failed (log: $results/$name.log)"; }
  grep '^agreement:' "$results/$name.log" >&2
}
start=$SECONDS
run default -u UTF8VALIDATE_BACKEND -u SIMDUTF_FORCE_IMPLEMENTATION
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  run avx2 UTF8VALIDATE_BACKEND=avx2 SIMDUTF_FORCE_IMPLEMENTATION=haswell
else
  echo "this CPU has no AVX2: no AVX2 run" >&2
fi
step "runs took $((SECONDS - start)) s"

# --- 4. The table --------------------------------------------------------------------------
summary=()
[ $smoke = 0 ] || summary+=(--smoke)
[ $sizes = 0 ] || summary+=(--sizes)
if [ $smoke = 1 ]; then
  python3 "$repo/benches/c-abi/summarize.py" "${summary[@]}" "$results"
else
  python3 "$repo/benches/c-abi/summarize.py" "${summary[@]}" "$results" | tee "$results/summary.md"
fi
