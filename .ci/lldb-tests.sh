#!/usr/bin/env bash
# The lldb extension (lldb/utf8validate.py) in a real lldb: see .ci/lldb_tests.py for
# what is checked. Builds the library and utf8check (the oracle) with cargo first.
#
# Needs lldb with its Python package (Debian: lldb, python3-lldb-14), clang, clang++
# and python3. Outside CI a missing one skips the tests with a message; with CI=true
# it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for tool in lldb clang clang++ python3; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  source .ci/lib.sh
  skip_or_fail "lldb tests" "not installed: ${missing[*]}" "Debian: lldb python3-lldb-14 clang"
fi

cargo build --release --quiet
exec python3 .ci/lldb_tests.py
