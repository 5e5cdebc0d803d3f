#!/usr/bin/env bash
# Checks the compiled library, not just its source: the machine code of the C library
# and of utf8validate-core in the static library (as built: one LTO object) holds and
# calls no panic routine (failed index, slice, unwrap, expect, arithmetic or
# formatting panics, the panic handler itself) and no allocator. Clippy denies the
# panicking constructs in the source; this proves that nothing of the kind was left
# or generated, on each architecture checked. (The library is `no_std` without
# `alloc`: an allocation would not even link.) With link-time optimisation, code that
# nothing reaches is dropped, so any panic routine in the object is one the library
# can reach. compiler_builtins' objects (integer helpers, linked only if used) are
# not the library's code and are left out.
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
# The filter must catch what it is for.
for sample in core::panicking::panic_bounds_check core::option::unwrap_failed \
  __rustc::rust_begin_unwind alloc::alloc::handle_alloc_error; do
  grep -Eq "$forbidden" <<<"$sample" || { echo "panic-free: the filter misses $sample" >&2; exit 1; }
done

status=0
for lib in "${libs[@]}"; do
  archive=$(realpath "$lib")
  work=$(mktemp -d)
  mapfile -t members < <(ar t "$archive" | grep -v '^compiler_builtins-\|^[0-9a-f]*-[a-z0-9_]*[.]o$')
  (cd "$work" && ar x "$archive" "${members[@]}")
  symbols=$(nm -C "$work"/*.o 2>/dev/null | awk 'NF >= 2 { $1 = ($1 ~ /^[0-9a-f]+$/) ? "" : $1; print }' |
    sed 's/^ *//' | sort -u)
  rm -rf "$work"
  # The listing is real: it holds the C API and the core crate's functions.
  if ! grep -q 'utf8_validate$' <<<"$symbols" || ! grep -q 'utf8validate_core::' <<<"$symbols"; then
    echo "panic-free: no symbol of the library found in $lib (members: ${members[*]})" >&2
    status=1
    continue
  fi
  bad=$(grep -E "$forbidden" <<<"$symbols" || true)
  if [ -n "$bad" ]; then
    echo "panic-free: FAILED: $lib: the library's code holds or calls:" >&2
    sed 's/^/  /' <<<"$bad" >&2
    status=1
  else
    echo "panic-free: ok: $lib: no panic or allocation routine among its $(wc -l <<<"$symbols") symbols"
  fi
done
exit $status
