#!/usr/bin/env bash
# Mutation testing with cargo-mutants of the Rust code changed since the last full
# run: each change cargo-mutants makes to a changed line of utf8validate-core,
# utf8check or the C library (src/) must make a test fail ("caught"), or be listed as
# equivalent, with its reason, in .cargo/mutants.toml. A "missed" mutant fails the
# step: it is a change in behaviour no test notices.
#
# The last full run's commit is in .cargo/mutants-base; docs/testing.md says how to
# run in full and move it. Each package's mutants are tested by the tests that reach
# that code: the crate's own for utf8validate-core and utf8check, the C suite and the
# C ABI tests (c-tests/) for src/.
#
# Usage: bash .ci/mutants.sh [BASE]   (KEEP=1 keeps the output directory)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
source .ci/lib.sh
base=${1:-$(cat .cargo/mutants-base)}
if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
  echo "mutants: $base is not in this clone's history; testing the last commit's changes"
  base=HEAD^
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/utf8validate-mutants.XXXXXX")
[ "${KEEP:-}" = 1 ] && echo "mutants: keeping $work" || trap 'rm -rf "$work"' EXIT
# cargo-mutants tests copies of the tree, made in the temporary directory. The tests
# that read ../shared (the corpus and the stress-test files, required with CI=true)
# look for it beside the tree: the copies go to $work/copies, next to a link to it.
mkdir "$work/copies"
if [ -d ../shared ]; then ln -s "$(cd ../shared && pwd)" "$work/copies/shared"; fi
export TMPDIR=$work/copies
unset CARGO_BUILD_TARGET RUSTFLAGS
if git diff --quiet "$base" -- utf8validate-core/src utf8check/src src build.rs; then
  echo "mutants: no change to the mutated code since $(git rev-parse --short "$base")"
  exit 0
fi
version=27.1.0
if ! cargo mutants --version 2>/dev/null | grep -q "$version"; then
  # A debug build without debug info: cargo-mutants edits the source and runs cargo,
  # its own speed does not count, and it compiles in under half the CPU time of a
  # release build.
  CARGO_PROFILE_DEV_DEBUG=false cargo install --locked --quiet --debug "cargo-mutants@$version" ||
    skip_or_fail mutants "cannot install cargo-mutants $version" "cargo install cargo-mutants"
fi
command -v cargo-nextest >/dev/null ||
  CARGO_PROFILE_DEV_DEBUG=false cargo install --locked --quiet --debug cargo-nextest ||
  skip_or_fail mutants "cannot install cargo-nextest" "cargo install cargo-nextest"


failed=0
run() {
  local name=$1 paths=$2
  shift 2
  git diff "$base" -- $paths >"$work/$name.diff"
  if [ ! -s "$work/$name.diff" ]; then
    echo "mutants: $name: no change since $(git rev-parse --short "$base")"
    return
  fi
  local began=$SECONDS rc=0
  cargo mutants --in-diff "$work/$name.diff" --no-shuffle -o "$work/$name" "$@" \
    >"$work/$name.log" 2>&1 || rc=$?
  local out=$work/$name/mutants.out
  # (No mutant in the changed lines: cargo-mutants writes no lists.)
  count() { if [ -f "$out/$1.txt" ]; then wc -l <"$out/$1.txt"; else echo 0; fi; }
  printf 'mutants: %s: %s caught, %s missed, %s unviable, %s timeout (%ds)\n' "$name" \
    "$(count caught)" "$(count missed)" "$(count unviable)" "$(count timeout)" $((SECONDS - began))
  if [ -s "$out/missed.txt" ]; then
    echo "mutants: $name: missed (add a test that fails on each, or list it in .cargo/mutants.toml):"
    sed 's/^/  /' "$out/missed.txt"
    failed=1
  elif [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    # 3: some mutants made the tests hang, which the timeout caught. Otherwise the
    # tool's own message, without the backtrace frames CI's RUST_BACKTRACE adds.
    echo "mutants: $name: cargo-mutants stopped (exit $rc):"
    grep -v '^ *\([0-9]*: \|at \)' "$work/$name.log" | tail -n 20 | sed 's/^/  /' || true
    failed=1
  fi
}

run core utf8validate-core/src -p utf8validate-core
run utf8check utf8check/src -p utf8check
# The C library's own unit tests and the C tests, which build the library and
# utf8check again (cargo, in the tests): a longer timeout.
run c-library 'src build.rs' -p utf8validate --test-package utf8validate --test-package utf8validate-c-tests --timeout 240 \
  -- -E 'not binary(gdb) and not binary(example) and not binary(concurrency)'
[ "$failed" -eq 0 ]
