#!/usr/bin/env bash
# Makes utf8validate's release artifacts from a checkout (see docs/releasing.md):
#
#   bash packaging/dist.sh [STAGE...]        STAGE: source, archives, debs (default: all)
#
# into target/dist/ (DIST_DIR):
#   source    utf8validate-VERSION.tar.xz: the sources (every file git tracks, and any
#             new file it does not ignore), the generated header, and every crate the
#             workspace needs, vendored (`cargo vendor`, with the source replacement in
#             .cargo/config.toml), so that `cargo build --release` and the CMake build
#             work with no network.
#   archives  utf8validate-VERSION-TARGET.tar.xz (.zip for Windows), for x86_64-linux-gnu,
#             aarch64-linux-gnu, i686-linux-gnu, x86_64-linux-musl and x86_64-windows-gnu
#             (ARCHIVE_TARGETS picks some): include/, lib/ (with pkgconfig/ and
#             cmake/utf8validate/, both relocatable), bin/utf8check, the man pages, the
#             gdb and lldb extensions, the licences and a README. Built from the source
#             release, unpacked, with no network (`unshare -n` where allowed). On
#             Linux, bin/utf8check is a static executable (musl), so that it runs
#             wherever the glibc >= 2.17 library does.
#   debs      debian/: libutf8validate0, libutf8validate-dev and utf8check (and their
#             -dbgsym packages), with the source package (.dsc, .orig.tar.xz = the
#             source release, .debian.tar.xz), built by dpkg-buildpackage from
#             packaging/debian over the source release in a Debian 11 userland
#             (debootstrap; the packages then install on Debian 11 and later), with no
#             network, using this machine's Rust toolchain (Debian has none new enough).
# and SHA256SUMS of everything there.
#
# Work files: target/dist-work (DIST_WORK); the build trees in it are reused by the next
# run and by .ci/release-tests.sh. Needs: git, cargo (Rust >= 1.89) with rustup, cmake,
# scdoc, xz, python3; for the archives the cross compilers (gcc-aarch64-linux-gnu,
# gcc-i686-linux-gnu, musl-tools, gcc-mingw-w64-x86-64) and the rustup targets (added
# when missing: network); for the debs root and debootstrap (the userland is kept in
# target/release-roots/bullseye).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/packaging/lib.sh"
source "$repo/packaging/archive-readme.sh"
started=$SECONDS

version=$(package_version "$repo/Cargo.toml")
[ -n "$version" ] || die "no version in Cargo.toml's [package]"
src_name=utf8validate-$version
dist=${DIST_DIR:-$repo/target/dist}
work=${DIST_WORK:-$repo/target/dist-work}
tarball=$dist/$src_name.tar.xz
tree=$work/tree/$src_name
mkdir -p "$dist" "$work"
dist=$(cd "$dist" && pwd)
work=$(cd "$work" && pwd)

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(source archives debs)
for s in "${stages[@]}"; do
  case $s in source | archives | debs) ;; *) die "unknown stage $s (source, archives, debs)" ;; esac
done
want() { [[ " ${stages[*]} " == *" $1 "* ]]; }
# A full run starts from an empty DIST_DIR: no file of an earlier version stays.
if want source && want archives && want debs; then
  find "$dist" -mindepth 1 -delete
fi

# Every artifact carries the time of the last commit (reproducible archives).
if sde=$(git -C "$repo" log -1 --format=%ct 2>/dev/null) && [ -n "$sde" ]; then :; else sde=$(date +%s); fi
export SOURCE_DATE_EPOCH=$sde
tar_flags=(--sort=name --format=gnu --mtime="@$sde" --owner=0 --group=0 --numeric-owner)

# --- the source release --------------------------------------------------------------
make_source() {
  say "source release $src_name.tar.xz"
  local stage=$work/source
  rm -rf "$stage"
  mkdir -p "$stage/$src_name"
  if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # Tracked files and new ones not ignored (a clean checkout has none of the latter);
    # deleted files are left out.
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard --deduplicate |
      while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
      tar --null -T - -cf -) | tar -C "$stage/$src_name" -xf -
  else
    die "$repo is not a git checkout: the file list of the release comes from git"
  fi
  [ -f "$stage/$src_name/include/utf8validate.h" ] || die "include/utf8validate.h is missing"
  # Every crate the workspace's Cargo.lock names, and cargo told to take them from
  # vendor/ (the lines cargo vendor prints).
  (cd "$stage/$src_name" && cargo vendor --locked --versioned-dirs vendor) \
    >"$work/vendor-config.toml" 2>"$work/vendor.log" || { cat "$work/vendor.log" >&2; die "cargo vendor failed"; }
  mkdir -p "$stage/$src_name/.cargo"
  local config=$stage/$src_name/.cargo/config.toml
  if [ -f "$config" ] && grep -q '^\[source\.' "$config"; then
    die ".cargo/config.toml already replaces sources; merge the vendoring by hand"
  fi
  {
    [ ! -s "$config" ] || echo
    echo "# Added by packaging/dist.sh: the crates come from vendor/ (cargo vendor), not crates.io."
    sed -n '/^\[source\./,$p' "$work/vendor-config.toml"
  } >>"$config"
  grep -q 'directory = "vendor"' "$config" || die "cargo vendor printed no source replacement"
  tar "${tar_flags[@]}" -C "$stage" -cf - "$src_name" | xz -T0 -6 >"$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
  rm -rf "$stage"
  echo "$(du -h "$tarball" | cut -f1) $tarball"
}

# The source release unpacked in $tree (cargo's target/ of the last run is kept, so
# that unchanged crates are not compiled again: the tarball gives every file the same
# time).
unpack_tree() {
  [ -f "$tarball" ] || die "no $tarball: run the source stage first"
  mkdir -p "$tree"
  find "$tree" -mindepth 1 -maxdepth 1 ! -name target -exec rm -rf {} +
  tar -C "$work/tree" -xJf "$tarball"
}

# --- the binary archives -------------------------------------------------------------
# target short name, Rust target, kind, CMake toolchain file (relative to the tree),
# Rust target of bin/utf8check.
archive_table="
x86_64-linux-gnu   x86_64-unknown-linux-gnu  gnu     -                                         x86_64-unknown-linux-musl
aarch64-linux-gnu  aarch64-unknown-linux-gnu gnu     packaging/toolchains/aarch64-linux-gnu.cmake aarch64-unknown-linux-musl
i686-linux-gnu     i686-unknown-linux-gnu    gnu     packaging/toolchains/i686-linux-gnu.cmake    i686-unknown-linux-musl
x86_64-linux-musl  x86_64-unknown-linux-musl musl    -                                         x86_64-unknown-linux-musl
x86_64-windows-gnu x86_64-pc-windows-gnu     windows cmake/toolchains/mingw-w64-x86_64.cmake  x86_64-pc-windows-gnu"
archive_targets=${ARCHIVE_TARGETS:-x86_64-linux-gnu aarch64-linux-gnu i686-linux-gnu x86_64-linux-musl x86_64-windows-gnu}

# The C compiler cargo links a Rust target's programs with, and that target's binutils
# prefix.
linker_of() {
  case $1 in
    x86_64-unknown-linux-gnu | x86_64-unknown-linux-musl) echo cc ;;
    aarch64-unknown-linux-*) echo aarch64-linux-gnu-gcc ;;
    i686-unknown-linux-*) echo i686-linux-gnu-gcc ;;
    x86_64-pc-windows-gnu) echo x86_64-w64-mingw32-gcc ;;
  esac
}
binutils_prefix() {
  case $1 in
    aarch64-*) echo aarch64-linux-gnu- ;;
    i686-*) echo i686-linux-gnu- ;;
    *-windows-gnu) echo x86_64-w64-mingw32- ;;
    *) echo "" ;;
  esac
}
cargo_env() { # cargo_env TRIPLE: the linker variable for cargo
  local upper
  upper=$(tr 'a-z-' 'A-Z_' <<<"$1")
  echo "CARGO_TARGET_${upper}_LINKER=$(linker_of "$1")"
}

render_man() { # render_man PAGE DIR: man/PAGE.scd rendered into DIR/man<section>/PAGE
  local page=$1 dir=$2
  mkdir -p "$dir/man${page##*.}"
  cmake -DSCDOC="$(command -v scdoc)" -DIN="$tree/man/$page.scd" \
    -DOUT="$dir/man${page##*.}/$page" -P "$tree/cmake/scdoc.cmake"
}

# cargo_build TRIPLE PACKAGE...: a release build in the tree, offline.
cargo_build() {
  local triple=$1
  shift
  local pkgs=()
  for p in "$@"; do pkgs+=(-p "$p"); done
  (cd "$tree" && offline env "$(cargo_env "$triple")" cargo build --quiet --release --locked \
    --target "$triple" "${pkgs[@]}") || die "cargo build --target $triple ${pkgs[*]} failed"
}

build_archive() {
  local short=$1 triple=$2 kind=$3 toolchain=$4 cli_triple=$5
  local name=$src_name-$short
  local stage=$work/stage/$name build=$work/cmake/$short
  say "archive $name ($triple)"
  rm -rf "$stage"
  mkdir -p "$stage"
  if [ "$kind" = musl ]; then
    # No shared library (Rust's musl targets link statically): the static library
    # (localized as the CMake build does it), utf8check and the rest, placed by hand.
    cargo_build "$triple" utf8validate utf8check
    local out=$tree/target/$triple/release
    mkdir -p "$stage/lib/pkgconfig" "$stage/lib/cmake/utf8validate" "$stage/include" "$stage/bin"
    cmake -DIN="$out/libutf8validate.a" -DOUT="$stage/lib/libutf8validate.a" -DLD=ld -DOBJCOPY=objcopy \
      -DAR=ar -DREADELF=readelf -DWORK="$work/localize-$short" -P "$tree/cmake/localize-staticlib.cmake"
    cp "$tree/include/utf8validate.h" "$stage/include/"
    sed -e "s|@UTF8VALIDATE_PC_PREFIX@|\${pcfiledir}/../..|" -e "s|@UTF8VALIDATE_PC_LIBDIR@|\${prefix}/lib|" \
      -e "s|@UTF8VALIDATE_PC_INCLUDEDIR@|\${prefix}/include|" -e "s|@PROJECT_VERSION@|$version|" \
      -e "s|@PROJECT_DESCRIPTION@|Fast, exact UTF-8 validation (RFC 3629 section 4) as a C library|" \
      "$tree/cmake/utf8validate.pc.in" >"$stage/lib/pkgconfig/utf8validate.pc"
    sed -e "s|@VERSION@|$version|g" -e "s|@MAJOR_MINOR@|${version%.*}|g" -e "s|@TARGET@|$short|g" \
      "$tree/packaging/utf8validateConfig-static.cmake.in" >"$stage/lib/cmake/utf8validate/utf8validateConfig.cmake"
    cmake -DVERSION="$version" -DCMAKE_SIZEOF_VOID_P=8 -DOUT="$stage/lib/cmake/utf8validate/utf8validateConfigVersion.cmake" \
      -P "$repo/packaging/version-file.cmake"
    render_man utf8validate.3 "$stage/share/man"
    for d in debugger gdb lldb; do
      mkdir -p "$stage/share/utf8validate/$d"
      cp "$tree/$d/"*.py "$stage/share/utf8validate/$d/"
      [ ! -f "$tree/$d/README.md" ] || cp "$tree/$d/README.md" "$stage/share/utf8validate/$d/"
    done
  else
    local args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_LIBDIR=lib -DUTF8VALIDATE_MAN_PAGES=ON
      -DUTF8VALIDATE_CARGO_TARGET_DIR="$tree/target")
    if [ "$short" = x86_64-linux-gnu ]; then
      # The host's target, as the README builds it (no --target).
      [ "$(uname -m)" = x86_64 ] || die "the x86_64-linux-gnu archive is built on an x86_64 machine"
    else
      args+=(-DUTF8VALIDATE_RUST_TARGET="$triple" -DCMAKE_TOOLCHAIN_FILE="$tree/$toolchain")
    fi
    # On Linux, utf8check comes from musl (below), and the library is built on its
    # own: built together with utf8check, the libc crate gets its std feature, with
    # which it names no C library to link, and the .so would not record libc.so.6
    # (nor glibc's symbol versions).
    [ "$kind" = windows ] || args+=(-DUTF8VALIDATE_BUILD_CLI=OFF)
    rm -rf "$build"
    (offline cmake -S "$tree/cmake" -B "$build" "${args[@]}" &&
      offline cmake --build "$build" &&
      cmake --install "$build" --prefix "$stage") >"$work/build-$short.log" 2>&1 ||
      { tail -n 40 "$work/build-$short.log" >&2; die "the CMake build for $short failed (log: $work/build-$short.log)"; }
    # The gdb auto-load copy is named after the install prefix's absolute path: it
    # only works installed (the packages have it); the archive has the extension
    # itself in share/utf8validate/gdb.
    rm -rf "$stage/share/gdb"
    sed -i "s|^prefix=.*|prefix=\${pcfiledir}/../..|" "$stage/lib/pkgconfig/utf8validate.pc"
  fi
  if [ "$kind" != windows ]; then
    # bin/utf8check: static (musl), so that it needs no particular C library.
    [ "$cli_triple" = "$triple" ] || cargo_build "$cli_triple" utf8check
    mkdir -p "$stage/bin"
    cp "$tree/target/$cli_triple/release/utf8check" "$stage/bin/utf8check"
    [ -f "$stage/share/man/man1/utf8check.1" ] || render_man utf8check.1 "$stage/share/man"
  fi
  # A Linux shared library needs libc.so.6 and nothing else, and no glibc newer than
  # 2.17 (CentOS 7).
  if [ "$kind" = gnu ]; then
    local so=$stage/lib/libutf8validate.so.$version newest
    [ "$(needed "$so" | tr '\n' ' ')" = "libc.so.6 " ] || die "$short: the .so needs '$(needed "$so" | tr '\n' ' ')', not libc.so.6 alone"
    newest=$(newest_glibc "$so")
    [ -n "$newest" ] || die "$short: the .so references no versioned glibc symbol"
    [ "$(printf '%s\n' "$newest" 2.17 | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)" = 2.17 ] ||
      die "$short: the .so references GLIBC_$newest (newer than 2.17)"
    echo "ok: $short: the .so needs libc.so.6 only, glibc symbols up to GLIBC_$newest"
  fi
  # The files the consumer-facing metadata names must all be there, and no path of
  # this machine may be left in a text file.
  grep -q '^prefix=${pcfiledir}/../..$' "$stage/lib/pkgconfig/utf8validate.pc" || die "$short: .pc not relocatable"
  if grep -rIl -e "$work" -e "$repo" "$stage" >"$work/abs-paths.txt"; then
    cat "$work/abs-paths.txt" >&2
    die "$short: these files name a build path"
  fi
  local strip
  strip=$(binutils_prefix "$triple")strip
  for f in "$stage"/bin/* "$stage"/lib/libutf8validate.so.*.*.* "$stage"/bin/*.dll; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    "$strip" --strip-unneeded "$f"
  done
  # README, licences, and the licences of what is compiled in.
  archive_readme "$kind" "$version" "$name" "$short" "$triple" "$(requirement "$kind" "$short")" >"$stage/README.md"
  cp "$repo/packaging/licenses/LICENSE-MIT" "$repo/packaging/licenses/LICENSE-APACHE" "$stage/"
  python3 "$repo/packaging/licenses.py" third-party "$tree" "$cli_triple" utf8validate utf8check \
    >"$stage/THIRD-PARTY-LICENSES.md"
  third_party_runtime "$kind" >>"$stage/THIRD-PARTY-LICENSES.md"
  local rust_copyright
  rust_copyright=$(rust_toolchain_dir)/share/doc/rust/COPYRIGHT-library.html
  if [ -f "$rust_copyright" ]; then
    cp "$rust_copyright" "$stage/rust-library-COPYRIGHT.html"
  else
    die "no $rust_copyright (the Rust toolchain's documentation of its licences)"
  fi
  # Pack, in a fixed order with fixed owners and times.
  mkdir -p "$work/stage"
  if [ "$kind" = windows ]; then
    rm -f "$dist/$name.zip"
    (cd "$work/stage" && cmake -E tar cf "$dist/$name.zip" --format=zip \
      --mtime="$(date -u -d "@$sde" '+%Y-%m-%d %H:%M:%S UTC')" "$name")
    echo "$(du -h "$dist/$name.zip" | cut -f1) $dist/$name.zip"
  else
    tar "${tar_flags[@]}" -C "$work/stage" -cf - "$name" | xz -T0 -6 >"$dist/$name.tar.xz"
    echo "$(du -h "$dist/$name.tar.xz" | cut -f1) $dist/$name.tar.xz"
  fi
}

requirement() {
  case $1 in
    gnu) echo "Needs Linux with glibc 2.17 or newer (CentOS 7 and later): the shared library references nothing newer. \`bin/utf8check\` needs no C library at all." ;;
    musl) echo "For programs linked with musl (Alpine Linux, fully static executables): a static library. \`bin/utf8check\` is a static executable that runs on any x86_64 Linux." ;;
    windows) echo "For 64-bit Windows (7 or newer) with MinGW-w64: the DLL needs only KERNEL32.dll and the C runtime msvcrt.dll." ;;
  esac
}

third_party_runtime() {
  case $1 in
    gnu | musl) cat <<'EOF'

## musl libc (in bin/utf8check)

`bin/utf8check` is linked statically with musl libc (the copy in Rust's musl target),
MIT licence: Copyright © 2005-2020 Rich Felker, et al. (see
https://git.musl-libc.org/cgit/musl/tree/COPYRIGHT); the MIT licence text is text 1's
above (with that copyright line).
EOF
      ;;
    windows) cat <<'EOF'

## MinGW-w64 runtime (in the DLL and utf8check.exe)

The startup code and the few runtime helpers MinGW-w64 links into every program and
DLL are from the MinGW-w64 runtime: public domain, with parts under the Zope Public
License and MIT-style licences (see
https://sourceforge.net/p/mingw-w64/mingw-w64/ci/master/tree/COPYING.MinGW-w64-runtime/COPYING.MinGW-w64-runtime.txt);
`libgcc` parts are under the GCC Runtime Library Exception.
EOF
      ;;
  esac
}

make_archives() {
  local triples=() short triple kind toolchain cli
  while read -r short triple kind toolchain cli; do
    [ -n "$short" ] || continue
    [[ " $archive_targets " == *" $short "* ]] || continue
    triples+=("$triple" "$cli")
  done <<<"$archive_table"
  for tool in cmake scdoc python3; do command -v "$tool" >/dev/null || die "needs $tool"; done
  # shellcheck disable=SC2046  # one triple a word
  ensure_rust_targets $(printf '%s\n' "${triples[@]}" | sort -u | grep -vx "$(rustc -vV | sed -n 's/^host: //p')" || true)
  unpack_tree
  while read -r short triple kind toolchain cli; do
    [ -n "$short" ] || continue
    [[ " $archive_targets " == *" $short "* ]] || continue
    build_archive "$short" "$triple" "$kind" "$toolchain" "$cli"
  done <<<"$archive_table"
}

# --- the Debian packages -------------------------------------------------------------
make_debs() {
  say "Debian packages (dpkg-buildpackage in a Debian 11 userland)"
  [ "$(id -u)" = 0 ] || die "the Debian packages are built in a chroot: run as root"
  command -v debootstrap >/dev/null || die "needs debootstrap"
  [ -f "$tarball" ] || die "no $tarball: run the source stage first"
  ensure_root bullseye
  local root build
  root=$(roots_dir)/bullseye
  build=$root/build
  rm -rf "$build"
  mkdir -p "$build"
  cp "$tarball" "$build/utf8validate_$version.orig.tar.xz"
  tar -C "$build" -xJf "$tarball"
  cp -a "$build/$src_name/packaging/debian" "$build/$src_name/debian"
  python3 "$repo/packaging/licenses.py" debian-copyright "$build/$src_name" \
    <"$repo/packaging/debian-copyright.in" >"$build/$src_name/debian/copyright"
  local deb_version
  deb_version=$(cd "$build/$src_name" && dpkg-parsechangelog -SVersion)
  [ "${deb_version%-*}" = "$version" ] ||
    die "debian/changelog is at $deb_version, Cargo.toml at $version: add a changelog entry (dch -v $version-1)"
  in_root bullseye --offline --rust "cd /build/$src_name && dpkg-buildpackage -us -uc" \
    >"$work/dpkg-buildpackage.log" 2>&1 ||
    { tail -n 60 "$work/dpkg-buildpackage.log" >&2; die "dpkg-buildpackage failed (log: $work/dpkg-buildpackage.log)"; }
  rm -rf "$dist/debian"
  mkdir -p "$dist/debian"
  (cd "$build" && cp ./*.deb ./*.dsc ./*.debian.tar.xz ./*.orig.tar.xz ./*.changes ./*.buildinfo "$dist/debian/")
  ls -s --block-size=K "$dist/debian"
}

want source && make_source
want archives && make_archives
want debs && make_debs

(cd "$dist" && find . -type f ! -name SHA256SUMS -printf '%P\n' | sort | xargs sha256sum >SHA256SUMS)
say "done in $((SECONDS - started)) s: $dist"
