#!/usr/bin/env bash
# Checks the compiled library, not just its source: the machine code of the crate
# itself (its objects in the static library) calls no panic routine (failed index,
# slice, unwrap, expect, arithmetic or formatting panics) and no allocator. Clippy
# denies the panicking constructs in the source (src/lib.rs); this proves that
# nothing of the kind was left or generated, on each architecture checked.
#
# Allowed, as they are no panic sites:
# - core::panicking::panic_cannot_unwind and panic_in_cleanup: the compiler's guards
#   at the `extern "C"` boundary, which abort the process if an unwind reached it;
# - std::process::abort: what UTF8_ASSERT_VALID does on ill-formed input, by design;
# - __rust_dealloc: dropping what std returns (an OsString from reading
#   UTF8VALIDATE_BACKEND when it is set, an io::Error from a failed write).
#
# Usage: bash .ci/panic-free.sh [libutf8validate.a ...]
# Without arguments, builds and checks the host's release static library.
set -euo pipefail
cd "$(dirname "$0")/.."

libs=("$@")
if [ ${#libs[@]} -eq 0 ]; then
  cargo build --release --no-default-features --lib
  libs=("${CARGO_TARGET_DIR:-target}/release/libutf8validate.a")
fi

forbidden='panic|_fail|unwrap_failed|expect_failed|handle_alloc_error|capacity_overflow|__rust_alloc|__rust_realloc|format_inner|alloc::'
allowed='^core::panicking::(panic_cannot_unwind|panic_in_cleanup)$'

# The undefined symbols (what the code calls elsewhere) of the given objects,
# demangled, one per line. readelf rather than nm: GNU nm reports "no symbols" for
# the standard library's objects that rustc puts into a static library.
undefined() {
  readelf -sW --demangle "$@" |
    awk '$7 == "UND" && NF >= 8 { $1 = $2 = $3 = $4 = $5 = $6 = $7 = ""; sub(/^ +/, ""); print }' |
    sort -u
}

status=0
for lib in "${libs[@]}"; do
  archive=$(realpath "$lib")
  work=$(mktemp -d)
  # The crate's code generation units (not its allocator shim), and the alloc
  # crate's, for the canary below.
  mapfile -t members < <(ar t "$archive" | grep -E '^(utf8validate[.]utf8validate[.].*-cgu[.].*|alloc-.*)[.]o$')
  (cd "$work" && ar x "$archive" "${members[@]}")
  ours=("$work"/utf8validate.utf8validate.*-cgu.*.o)
  if [ ! -e "${ours[0]}" ]; then
    echo "panic-free: no object of the crate found in $lib" >&2
    status=1
    rm -rf "$work"
    continue
  fi
  calls=$(undefined "${ours[@]}")
  bad=$(grep -E "$forbidden" <<<"$calls" | grep -Ev "$allowed" || true)
  # The filter must be able to fail: the alloc crate's code in the same archive
  # does panic (on capacity overflow, for one).
  canary=$(undefined "$work"/alloc-*.o | grep -E "$forbidden" | grep -Ev "$allowed" |
    head -n 1 || true)
  rm -rf "$work"
  if [ -z "$canary" ]; then
    echo "panic-free: the filter finds nothing even in the alloc crate's code in $lib;" \
      "is readelf working?" >&2
    status=1
  elif [ -n "$bad" ]; then
    echo "panic-free: FAILED: $lib: the crate's code calls:" >&2
    sed 's/^/  /' <<<"$bad" >&2
    status=1
  else
    echo "panic-free: ok: $lib: the crate's code calls no panic or allocation routine" \
      "($(wc -l <<<"$calls") external symbols; the same filter finds \"$canary\" in the alloc crate's)"
  fi
done
exit $status
