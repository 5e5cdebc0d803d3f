#!/usr/bin/env bash
# Checks the compiled library, not just its source: the machine code of both crates
# (their objects in the static library: the C ABI's and utf8validate-core's) calls no
# panic routine (failed index, slice, unwrap, expect, arithmetic or formatting panics)
# and no allocator. Clippy denies the panicking constructs in the source; this proves
# that nothing of the kind was left or generated, on each architecture checked. (The
# library is `no_std` without `alloc`: an allocation would not even link.)
#
# The filter is tried on `core`'s own object in the same archive, which does call the
# panic handler: a filter that finds nothing there is broken, and the check fails.
#
# Usage: bash .ci/panic-free.sh [libutf8validate.a ...]
# Without arguments, builds and checks the host's release static library.
set -euo pipefail
cd "$(dirname "$0")/.."

libs=("$@")
if [ ${#libs[@]} -eq 0 ]; then
  cargo build --release --package utf8validate --lib
  libs=("${CARGO_TARGET_DIR:-target}/release/libutf8validate.a")
fi

forbidden='panic|begin_unwind|_fail|unwrap_failed|expect_failed|handle_alloc_error|capacity_overflow|__rust_alloc|__rust_realloc|format_inner|alloc::'

undefined() {
  readelf -sW --demangle "$@" |
    awk '$7 == "UND" && NF >= 8 { $1 = $2 = $3 = $4 = $5 = $6 = $7 = ""; sub(/^ +/, ""); print }' |
    sort -u
}

status=0
for lib in "${libs[@]}"; do
  archive=$(realpath "$lib")
  work=$(mktemp -d)
  mapfile -t members < <(ar t "$archive" |
    grep -E '^(utf8validate[.]utf8validate[.]|utf8validate_core-|core-).*[.]o$')
  (cd "$work" && ar x "$archive" "${members[@]}")
  ours=("$work"/utf8validate.utf8validate.*.o "$work"/utf8validate_core-*.o)
  if [ ! -e "${ours[0]}" ] || [ ! -e "${ours[-1]}" ]; then
    echo "panic-free: the objects of the two crates are not both in $lib" >&2
    status=1
    rm -rf "$work"
    continue
  fi
  calls=$(undefined "${ours[@]}")
  bad=$(grep -E "$forbidden" <<<"$calls" || true)
  canary=$(undefined "$work"/core-*.o | grep -E "$forbidden" | head -n 1 || true)
  rm -rf "$work"
  if [ -z "$canary" ]; then
    echo "panic-free: the filter finds nothing even in core's code in $lib;" \
      "is readelf working?" >&2
    status=1
  elif [ -n "$bad" ]; then
    echo "panic-free: FAILED: $lib: the library's code calls:" >&2
    sed 's/^/  /' <<<"$bad" >&2
    status=1
  else
    echo "panic-free: ok: $lib: the library's code calls no panic or allocation routine" \
      "($(wc -l <<<"$calls") external symbols; the same filter finds \"$canary\" in core's)"
  fi
done
exit $status
