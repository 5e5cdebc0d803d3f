#!/usr/bin/env bash
# The shared library's ABI against the committed baseline (packaging/abi/*.abi, made
# by libabigail's abidw from the release's libutf8validate.so with its debug info):
#
#   bash packaging/abi-check.sh LIB.so            compare (LIB.so must have DWARF)
#   bash packaging/abi-check.sh --update LIB.so   write packaging/abi/utf8validate-VERSION.abi
#   bash packaging/abi-check.sh --symbols         the baseline and the Debian symbols
#                                                 file name the same exports
#
# The comparison (abidiff, against the newest baseline) fails on an incompatible
# change: an exported function removed, or a change to an existing function's type or
# to a type it uses (abidiff --no-added-syms still reporting a change), unless the
# library's soname differs from the baseline's (a new major version, which may break
# the ABI). Added functions are reported and accepted: the ABI only grows within a
# major version. Needs abigail-tools (abidw, abidiff).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/.ci/lib.sh"
abi_dir=$repo/packaging/abi
symbols=$repo/packaging/debian/libutf8validate$(package_version "$repo/Cargo.toml" | cut -d. -f1).symbols

# The exports the baseline and the symbols file name, as name@version lines.
baseline_exports() {
  sed -n "/<elf-\(function\|variable\)-symbols>/,/<\/elf-\(function\|variable\)-symbols>/s/.*<elf-symbol name='\([^']*\)' version='\([^']*\)'.*/\1@\2/p" "$1" | sort
}
symbols_exports() {
  awk '/^ / { split($1, a, "@"); if (a[1] != a[2]) print $1 }' "$symbols" | sort
}
newest_baseline() { find "$abi_dir" -name '*.abi' | sort -V | tail -n 1; }

case ${1:-} in
  --update)
    lib=${2:?usage: abi-check.sh --update LIB.so}
    version=$(package_version "$repo/Cargo.toml")
    mkdir -p "$abi_dir"
    out=$abi_dir/utf8validate-$version.abi
    abidw --no-corpus-path --no-comp-dir-path --no-show-locs --type-id-style hash "$lib" >"$out"
    grep -q '<function-decl name=.utf8_validate.' "$out" ||
      { echo "abi-check: $lib has no debug info for utf8_validate: build it with debug info" >&2; rm -f "$out"; exit 1; }
    echo "wrote $out ($(grep -c '<elf-symbol' "$out") exported symbols)"
    exit 0
    ;;
  --symbols)
    base=$(newest_baseline)
    if diff -u <(baseline_exports "$base") <(symbols_exports); then
      echo "abi-check: $(basename "$base") and $(basename "$symbols") name the same $(baseline_exports "$base" | wc -l) exports"
      exit 0
    fi
    echo "abi-check: FAIL: the baseline (-) and the symbols file (+) name different exports" >&2
    exit 1
    ;;
  "" | -*) sed -n '2,16s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

lib=$1
base=${BASELINE:-$(newest_baseline)}
[ -f "$base" ] || { echo "abi-check: no baseline in $abi_dir" >&2; exit 1; }
new_soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
base_soname=$(sed -n "1s/.* soname='\([^']*\)'.*/\1/p" "$base")
echo "abi-check: $lib ($new_soname) against $(basename "$base") ($base_soname)"
readelf -S "$lib" | grep '\.debug_info' >/dev/null ||
  { echo "abi-check: FAIL: $lib has no debug info (.debug_info): types cannot be compared" >&2; exit 1; }

status=0
abidiff "$base" "$lib" >"${TMPDIR:-/tmp}/abidiff.$$" 2>&1 || status=$?
full=$(cat "${TMPDIR:-/tmp}/abidiff.$$")
status_existing=0
abidiff --no-added-syms "$base" "$lib" >"${TMPDIR:-/tmp}/abidiff.$$" 2>&1 || status_existing=$?
existing=$(cat "${TMPDIR:-/tmp}/abidiff.$$")
rm -f "${TMPDIR:-/tmp}/abidiff.$$"
if [ $((status & 3)) -ne 0 ] || [ $((status_existing & 3)) -ne 0 ]; then
  echo "$full" >&2
  echo "abi-check: FAIL: abidiff could not compare (exit $status)" >&2
  exit 1
fi
[ -z "$full" ] || echo "$full"
if [ $((status_existing & 12)) -eq 0 ]; then
  if [ $((status & 12)) -eq 0 ]; then
    echo "abi-check: ok: the same ABI as $(basename "$base")"
  else
    echo "abi-check: ok: compatible: only additions to $(basename "$base")"
  fi
  exit 0
fi
if [ "$new_soname" != "$base_soname" ]; then
  echo "abi-check: ok: incompatible changes, and the soname changed ($base_soname -> $new_soname)"
  exit 0
fi
[ "$existing" = "$full" ] || echo "$existing" >&2
echo "abi-check: FAIL: incompatible ABI change against $(basename "$base") with the same soname $new_soname" >&2
echo "  (a removed or changed function or type breaks programs linked against $new_soname: bump the" >&2
echo "  major version, or, if abidiff reports a change that is not one, review it and refresh the" >&2
echo "  baseline with: bash packaging/abi-check.sh --update LIB.so; see docs/releasing.md)" >&2
exit 1
