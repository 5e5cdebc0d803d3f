#!/usr/bin/env bash
# One version: the version in Cargo.toml's [package] table is the one every artifact
# carries. Fails, naming each place that disagrees:
#
#   bash packaging/check-versions.sh [DIST_DIR]      (default target/dist)
#
# In the repository: utf8check/Cargo.toml, include/utf8validate.h's macros,
# CHANGELOG.md, packaging/debian/changelog (upstream part), the Debian package name of
# the library and its symbols file (the soname's major), the ABI baseline's soname, and
# the Conan recipe (`conan inspect`, when conan is on PATH). In DIST_DIR: the source
# release's name and top directory; each archive's name, top directory, .pc Version,
# CMake package version, library file name and soname, and utf8check --version (run
# where it can be: natively, or under qemu-user/Wine when present); the .deb files'
# versions and the library's soname in libutf8validate<major>.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/.ci/lib.sh"
dist=${1:-$repo/target/dist}
[ ! -d "$dist" ] || dist=$(cd "$dist" && pwd)

# EXPECT_VERSION: check against another version (the release tests' control: every
# place must then be reported).
version=${EXPECT_VERSION:-$(package_version "$repo/Cargo.toml")}
IFS=. read -r major minor patch <<<"$version"
echo "Cargo.toml: $version (soname libutf8validate.so.$major)"
bad=0
check() { # check WHAT GOT: GOT must be WANT (the third argument, default $version)
  local want=${3:-$version}
  if [ "$2" = "$want" ]; then
    echo "ok: $1: $2"
  else
    echo "MISMATCH: $1: '$2', not '$want'" >&2
    bad=1
  fi
}

# --- the repository ---------------------------------------------------------------------
check "Cargo.toml" "$(package_version "$repo/Cargo.toml")"
check "utf8check/Cargo.toml" "$(package_version "$repo/utf8check/Cargo.toml")"
h=$repo/include/utf8validate.h
macro() { sed -n "s/^#define UTF8VALIDATE_VERSION_$1 \"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p" "$h"; }
check "header UTF8VALIDATE_VERSION_STRING" "$(macro STRING)"
check "header MAJOR.MINOR.PATCH" "$(macro MAJOR).$(macro MINOR).$(macro PATCH)"
grep -q "^## \[$version\]" "$repo/CHANGELOG.md" && echo "ok: CHANGELOG.md has ## [$version]" ||
  { echo "MISMATCH: CHANGELOG.md has no section ## [$version]" >&2; bad=1; }
deb_changelog=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$repo/packaging/debian/changelog")
check "packaging/debian/changelog (upstream version)" "${deb_changelog%-*}"
check "packaging/debian/control: the library package" \
  "$(sed -n 's/^Package: \(libutf8validate[0-9]*\)$/\1/p' "$repo/packaging/debian/control")" "libutf8validate$major"
check "packaging/debian/libutf8validate$major.symbols: soname and package" \
  "$(head -n 1 "$repo/packaging/debian/libutf8validate$major.symbols" 2>/dev/null | cut -d' ' -f1-2)" \
  "libutf8validate.so.$major libutf8validate$major"
for abi in "$repo"/packaging/abi/*.abi; do
  check "$(basename "$abi"): soname" "$(sed -n "1s/.* soname='\([^']*\)'.*/\1/p" "$abi")" "libutf8validate.so.$major"
done
if command -v conan >/dev/null 2>&1; then
  check "the Conan recipe (conan inspect)" \
    "$(conan inspect "$repo/packaging/conan" --format=json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')"
else
  echo "note: conan is not on PATH: the Conan recipe's version is not checked here"
fi

# --- the artifacts ----------------------------------------------------------------------
if [ -d "$dist" ]; then
  src=$dist/utf8validate-$version.tar.xz
  if [ -f "$src" ]; then
    check "source release top directory" "$(tar -tJf "$src" | head -n 1 | cut -d/ -f1)" "utf8validate-$version"
  fi
  work=$(mktemp -d "${TMPDIR:-/tmp}/utf8validate-versions.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  shopt -s nullglob
  archives=("$dist"/utf8validate-*-*-*.tar.xz "$dist"/utf8validate-*-*-*.zip)
  for a in "${archives[@]}"; do
    base=$(basename "$a")
    base=${base%.tar.xz}
    base=${base%.zip}
    check "$base: the version in its name" "$(sed 's/^utf8validate-\([0-9]*\.[0-9]*\.[0-9]*\)-.*/\1/' <<<"$base")"
    mkdir -p "$work/$base"
    cmake -E chdir "$work/$base" cmake -E tar xf "$a"
    top=$(ls "$work/$base")
    check "$base: top directory" "$top" "$base"
    u=$work/$base/$top
    check "$base: .pc Version" "$(sed -n 's/^Version: //p' "$u/lib/pkgconfig/utf8validate.pc")"
    check "$base: CMake package version" \
      "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$u/lib/cmake/utf8validate/utf8validateConfigVersion.cmake")"
    check "$base: header" "$(sed -n 's/^#define UTF8VALIDATE_VERSION_STRING "\(.*\)"$/\1/p' "$u/include/utf8validate.h")"
    if [ -e "$u/lib/libutf8validate.so.$version" ]; then
      check "$base: soname" "$(readelf -d "$u/lib/libutf8validate.so.$version" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" \
        "libutf8validate.so.$major"
    elif [[ $base == *-linux-gnu ]]; then
      echo "MISMATCH: $base: no lib/libutf8validate.so.$version" >&2
      bad=1
    fi
    runner=()
    case $base in
      *-aarch64-linux-gnu) runner=(qemu-aarch64) ;;
      *-i686-linux-gnu) runner=(qemu-i386) ;;
      # Wine only with a prefix named (WINEPREFIX), none made in $HOME.
      *-windows-gnu) runner=("$(command -v wine64 || echo /usr/lib/wine/wine64)")
        [ -n "${WINEPREFIX:-}" ] || runner=(no-wineprefix) ;;
    esac
    exe=$u/bin/utf8check
    [ -f "$exe" ] || exe=$u/bin/utf8check.exe
    if [ ${#runner[@]} -eq 0 ] || command -v "${runner[0]}" >/dev/null 2>&1; then
      out=$(WINEDEBUG=-all "${runner[@]}" "$exe" --version 2>/dev/null | tr -d '\r') || true
      check "$base: utf8check --version" "$out" "utf8check $version"
    else
      echo "note: $base: utf8check --version not run (no ${runner[0]#no-})"
    fi
  done
  for deb in "$dist"/debian/*.deb; do
    pkg=$(dpkg-deb -f "$deb" Package)
    v=$(dpkg-deb -f "$deb" Version)
    check "$pkg $(basename "$deb"): upstream version" "${v%-*}"
    if [ "$pkg" = "libutf8validate$major" ]; then
      dpkg-deb -x "$deb" "$work/deb"
      check "$pkg: its library's soname" \
        "$(readelf -d "$work"/deb/usr/lib/*/libutf8validate.so.$version | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" \
        "libutf8validate.so.$major"
    fi
  done
fi

[ "$bad" = 0 ] || { echo "check-versions: FAIL: the places above disagree with Cargo.toml ($version)" >&2; exit 1; }
echo "check-versions: every place says $version"
