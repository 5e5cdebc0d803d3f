#!/usr/bin/env bash
# The chunks benchmark (benches/src/chunks.rs), both runs, and its tables:
#   1. with the default back end (the best this CPU supports);
#   2. with UTF8VALIDATE_BACKEND=avx2, like for like with simdutf8's streaming
#      validators, which are AVX2 in both runs.
# Each run's criterion results go to target/criterion-chunks-<run>[-<round>]/; the
# tables (GB/s and ratios) are printed, and the numbers are written as CSV to
# benches/results/<machine>/<date>-chunks-<run>.csv.
#
# Each run is pinned to the last CPU with taskset (when there is one), away from
# CPU 0, which takes most interrupts: on a shared 2-vCPU VM an unpinned run moves
# small-chunk figures by up to a third between runs.
#
# With --rounds N, both runs are made N times, alternating, and each contender's
# fastest round is taken (benches/summarize.py): on a VM whose speed changes every
# few seconds, that leaves the slow spells out for every contender alike.
#
# Usage: bash benches/chunks.sh [--rounds N]   (about 4 minutes per round on 2 cores)
# Needs: ../shared/corpus beside the repository (or UTF8VALIDATE_CORPUS).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=1
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) [ $# -ge 2 ] && [ "$2" -ge 1 ] 2>/dev/null ||
      { echo "chunks.sh: --rounds needs a count of 1 or more" >&2; exit 64; }
      rounds=$2; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "chunks.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
  shift
done
target=$(realpath "${CARGO_TARGET_DIR:-target}")
# The shared library the benchmark loads, as `cargo build --release` makes it.
cargo build --quiet --release -p utf8validate --lib
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then pin=(taskset -c "$(($(nproc) - 1))"); fi
# Criterion's output directory for a run and round (no suffix for a single round).
home() { if [ "$rounds" -eq 1 ]; then echo "$target/criterion-chunks-$1"; else echo "$target/criterion-chunks-$1-$2"; fi; }
for round in $(seq "$rounds"); do
  for run in default avx2; do
    export CRITERION_HOME=$(home $run "$round")
    rm -rf "$CRITERION_HOME"
    if [ $run = avx2 ]; then export UTF8VALIDATE_BACKEND=avx2; else unset UTF8VALIDATE_BACKEND; fi
    echo "== chunks benchmark, $run back end, round $round of $rounds" >&2
    "${pin[@]}" cargo bench --quiet -p utf8validate-bench --bench chunks >"$target/chunks-$run.log" 2>&1 ||
      { tail -n 30 "$target/chunks-$run.log" >&2; exit 1; }
    grep '^utf8validate back end' "$target/chunks-$run.log" || true
  done
done
unset UTF8VALIDATE_BACKEND
for run in default avx2; do
  echo "== $run back end" >&2
  dirs=()
  for round in $(seq "$rounds"); do dirs+=("$(home $run "$round")"); done
  python3 benches/summarize.py --chunks --csv "chunks-$run" "${dirs[@]}"
done
