#!/usr/bin/env bash
# The pieces benchmark (benches/src/pieces.rs), both runs, and its tables:
#   1. with the default back end (the best this CPU supports);
#   2. with UTF8VALIDATE_BACKEND=avx2, like for like with simdutf8's streaming
#      validators, which are AVX2 in both runs.
# Each run's criterion results go to target/criterion-pieces-<run>/; the tables
# (GB/s and ratios) are printed, and the numbers are written as CSV to
# benches/results/<machine>/<date>-pieces-<run>.csv.
#
# Each run is pinned to the last CPU with taskset (when there is one), away from
# CPU 0, which takes most interrupts: on a shared 2-vCPU VM an unpinned run moves
# small-piece figures by up to a third between runs.
#
# Usage: bash benches/pieces.sh          (about 4 minutes on 2 cores)
# Needs: ../shared/corpus beside the repository (or UTF8VALIDATE_CORPUS).
set -euo pipefail
cd "$(dirname "$0")/.."
target=$(realpath "${CARGO_TARGET_DIR:-target}")
# The shared library the benchmark loads, as `cargo build --release` makes it.
cargo build --quiet --release -p utf8validate --lib
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then pin=(taskset -c "$(($(nproc) - 1))"); fi
for run in default avx2; do
  export CRITERION_HOME=$target/criterion-pieces-$run
  rm -rf "$CRITERION_HOME"
  if [ $run = avx2 ]; then export UTF8VALIDATE_BACKEND=avx2; else unset UTF8VALIDATE_BACKEND; fi
  echo "== pieces benchmark, $run back end" >&2
  "${pin[@]}" cargo bench --quiet -p utf8validate-bench --bench pieces >"$target/pieces-$run.log" 2>&1 ||
    { tail -n 30 "$target/pieces-$run.log" >&2; exit 1; }
  grep '^utf8validate back end' "$target/pieces-$run.log" || true
  python3 benches/summarize.py --pieces --csv "pieces-$run" "$CRITERION_HOME"
done
