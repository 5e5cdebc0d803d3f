#!/usr/bin/env bash
# Smoke test of the C ABI benchmark (benches/c-abi/): it builds and installs the library
# with cmake/, builds the C++ benchmark against the installed static library (checking
# with ldd that no libutf8validate.so is loaded), and runs it once per back end (default,
# then AVX2) with a tiny time per benchmark and one repetition. Each run first requires
# every contender (ours, C++ simdutf, GLib, iconv, memchr) to give each input's known
# answer. Then the same for the lengths 1 to 512 (--sizes), whose answers are checked
# against simdutf, GLib and iconv at every length. Its timings are not meant to be read; the numbers come from a full run
# (bash benches/c-abi/run.sh, see BENCHMARKS.md).
#
# Needs the Debian packages libbenchmark-dev and libglib2.0-dev (and cmake, g++,
# pkg-config). Without them it fails when CI=true and skips otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
echo '#include <benchmark/benchmark.h>' | c++ -x c++ -E - >/dev/null 2>&1 ||
  missing+=(libbenchmark-dev)
pkg-config --exists glib-2.0 2>/dev/null || missing+=(libglib2.0-dev)
if [ ${#missing[@]} -gt 0 ]; then
  source .ci/lib.sh
  skip_or_fail "c-abi bench smoke" "missing Debian packages: ${missing[*]}" "apt-get install ${missing[*]}"
fi

bash benches/c-abi/run.sh --smoke
exec bash benches/c-abi/run.sh --smoke --sizes
