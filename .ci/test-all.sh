#!/usr/bin/env bash
# Every test of the project: the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

step() { printf '\n=== %s (%ds)\n' "$*" $((SECONDS - start)); }

step "cargo test (Rust tests, C suite against the .a and the .so)"
cargo test --all-targets 2>&1

step "exhaustive 4-byte test in release mode"
cargo test --release --test exhaustive -- --ignored 2>&1

step "done in $((SECONDS - start))s"
