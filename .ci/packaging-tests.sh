#!/usr/bin/env bash
# Packaging tests: the library as C and C++ projects consume it (see cmake/ and
# c-tests/consumers/). In a temporary directory:
#   1. the README's install command (cmake configure, build, install --prefix), and the
#      same install again with DESTDIR; the installed file list, links and .pc file;
#   2. the shared library's exports (`nm -D`: only utf8_* / utf8validate_* functions,
#      versioned with the soname) and its SONAME (`readelf -d`); the .pc file: nothing
#      but -lutf8validate for a static link (`pkg-config --static --libs`);
#   3. consumers, each fed a valid and an invalid input: C with CMake find_package
#      (shared), C++17 with CMake (static target), C with pkg-config (shared), C with
#      pkg-config --static (our library static in a dynamic executable, and a fully
#      static executable), C vendoring the repository (add_subdirectory, FetchContent
#      of the directory and FetchContent cloning it with git; shared and static);
#   4. the static library's global symbols (the C API only); a C program linking it next
#      to another Rust staticlib, with and without LTO, in both orders; as controls,
#      cargo's own staticlib (internals not hidden) failing to link next to either;
#   5. later releases, built and installed from copies of the tree with the version
#      changed: the next minor release (same major, same soname) and the next major
#      (another soname). find_package's version rule (same major) against each; the next
#      minor release replacing the library under programs linked against this one; two
#      majors of the .so in one process, each reached by its own dependent library (and,
#      as a control, the clash without symbol versions).
#
# Usage: bash .ci/packaging-tests.sh   (KEEP=1 keeps the temporary directory;
#        PACKAGING_WORKDIR=dir works in dir and keeps it, for quick reruns)
# Outside CI a missing tool (cmake, pkg-config, c++ ...) skips the tests with a message;
# with CI=true it fails.
set -euo pipefail
# No `producer | grep -q` below: grep -q exits at its first match, the producer then
# dies of SIGPIPE if it still has output (nm has plenty), and pipefail makes that
# a failed pipeline. `grep ... >/dev/null` reads to the end.
repo=$(cd "$(dirname "$0")/.." && pwd)
start=$SECONDS

for tool in cargo rustc cmake pkg-config cc c++ nm readelf; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
      echo "packaging-tests: FAIL: $tool is not installed (CI=true)" >&2
      exit 1
    fi
    echo "packaging-tests: SKIPPED: $tool is not installed (apt-get install cmake pkg-config g++)"
    exit 0
  fi
done

if [ -n "${PACKAGING_WORKDIR:-}" ]; then
  # Reuse (and keep) a work directory: the builds in it are then incremental.
  work=$PACKAGING_WORKDIR
  rm -rf "$work/prefix" "$work/stage" "$work/tv" "$work/later-src" "$work"/prefix-*
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/utf8validate-packaging.XXXXXX")
  if [ "${KEEP:-}" = 1 ]; then
    echo "packaging-tests: keeping $work"
  else
    trap 'rm -rf "$work"' EXIT
  fi
fi
# Whatever the caller's environment says, cargo builds where each step says.
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET RUSTFLAGS

step() { printf '\n--- %s (%ds)\n' "$*" $((SECONDS - start)); }
fail() { echo "packaging-tests: FAIL: $*" >&2; exit 1; }

# The library's version, read here independently of the CMake project.
source "$repo/.ci/lib.sh"
version=$(package_version "$repo/Cargo.toml")
IFS=. read -r major minor patch <<<"$version"
# The soname carries the major version only, also for 0.x: the C ABI only grows within
# a major version (see build.rs).
soname="libutf8validate.so.$major"
echo "utf8validate $version, expected soname $soname"

# The inputs every consumer is fed and what it must answer. The expected offset is
# worked out by hand from RFC 3629: "ok " is 3 bytes, then ED A0 80 would encode the
# surrogate U+D800, so the first ill-formed sequence starts at byte 3.
printf 'h\303\251llo \342\202\254 \360\237\230\200\n' >"$work/valid.txt"  # "héllo € 😀\n"
valid_expect="valid: 16 bytes"
printf 'ok \355\240\200 surrogate\n' >"$work/invalid.txt"
invalid_expect="invalid at byte 3"

# run_consumer NAME PROGRAM [env assignments...]: the valid input must give exit status
# 0 and $valid_expect, the invalid one exit status 1 and $invalid_expect.
run_consumer() {
  local name=$1 program=$2 out status
  shift 2
  for input in valid invalid; do
    status=0
    out=$(env "$@" "$program" <"$work/$input.txt") || status=$?
    local want_out want_status
    if [ "$input" = valid ]; then want_out=$valid_expect want_status=0
    else want_out=$invalid_expect want_status=1; fi
    [ "$status" = "$want_status" ] && [ "$out" = "$want_out" ] ||
      fail "$name on $input input: exit $status, output '$out' (want $want_status, '$want_out')"
  done
  echo "ok: $name ($valid_expect / $invalid_expect)"
}

# needed PROGRAM: the program's DT_NEEDED entries, one per line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
expect_shared() { needed "$2" | grep -x "$soname" >/dev/null || fail "$1 does not need $soname"; }
expect_static() { ! needed "$2" | grep '^libutf8validate' >/dev/null || fail "$1 needs the .so"; }

step "install: the README's command, into a temporary prefix"
prefix=$work/prefix
build=$work/build
(cd "$repo" &&
  cmake -S cmake -B "$build" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" &&
  cmake --build "$build" &&
  cmake --install "$build" --prefix "$prefix") >"$work/install.log" 2>&1 ||
  { cat "$work/configure.log" "$work/install.log" >&2; fail "the install command failed"; }
cargo_target=$build/cargo-target

step "install: what is where"
# list_files DIR: every file and link under DIR, with the link targets.
list_files() { (cd "$1" && find . \( -type f -o -type l \) -printf '%p %y %l\n' | sort); }
# The man pages are rendered with scdoc, when it is installed (the install command
# does not require it); CI must have it.
if command -v scdoc >/dev/null 2>&1; then
  man_pages="./share/man/man1/utf8check.1 f 
./share/man/man3/utf8validate.3 f "
elif [ "${CI:-}" = true ]; then
  fail "scdoc is not installed (CI=true): the man pages would not be installed"
else
  echo "packaging-tests: scdoc is not installed: no man pages expected (apt-get install scdoc)"
  man_pages=
fi

# want_files PREFIX: what an install with --prefix PREFIX must hold (the gdb auto-load
# script's path mirrors the library's absolute path).
want_files() {
  sort <<EOF | sed '/^$/d'
./bin/utf8check f 
./include/utf8validate.h f 
./lib/cmake/utf8validate/utf8validateConfig.cmake f 
./lib/cmake/utf8validate/utf8validateConfigVersion.cmake f 
./lib/libutf8validate.a f 
./lib/libutf8validate.so l $soname
./lib/libutf8validate.so.$version f 
./lib/$soname l libutf8validate.so.$version
./lib/pkgconfig/utf8validate.pc f 
./share/gdb/auto-load$1/lib/libutf8validate.so.$version-gdb.py f 
./share/utf8validate/debugger/utf8validate_debugger.py f 
./share/utf8validate/gdb/README.md f 
./share/utf8validate/gdb/utf8validate.py f 
./share/utf8validate/lldb/README.md f 
./share/utf8validate/lldb/utf8validate.py f 
$man_pages
EOF
}
list_files "$prefix" >"$work/files.txt"
want_files "$prefix" | diff -u - "$work/files.txt" || fail "installed files differ (- expected, + found)"
cat "$work/files.txt"
cmp "$repo/include/utf8validate.h" "$prefix/include/utf8validate.h" ||
  fail "the installed header is not include/utf8validate.h"
"$prefix/bin/utf8check" --version >/dev/null 2>&1 || fail "bin/utf8check --version failed"

step "install: DESTDIR staging with --prefix /usr/local"
DESTDIR=$work/stage cmake --install "$build" --prefix /usr/local >"$work/destdir.log" 2>&1 ||
  { cat "$work/destdir.log" >&2; fail "DESTDIR install failed"; }
want_files /usr/local | diff -u - <(list_files "$work/stage/usr/local") ||
  fail "DESTDIR install put other files"
[ "$(find "$work/stage" -mindepth 1 -maxdepth 1)" = "$work/stage/usr" ] ||
  fail "DESTDIR install wrote outside DESTDIR/usr/local"
grep -qx 'prefix=/usr/local' "$work/stage/usr/local/lib/pkgconfig/utf8validate.pc" ||
  fail "the DESTDIR install's .pc file does not say prefix=/usr/local"

step "shared library: exported symbols (nm -D --defined-only) and soname (readelf -d)"
so=$prefix/lib/libutf8validate.so.$version
nm -D --defined-only "$so" | tee "$work/exports.txt"
# Allowed: public functions (T) named utf8_* or utf8validate_*, each versioned with the
# soname; and the version definition itself (an absolute symbol named after the soname).
esc_soname=${soname//./\\.}
bad=$(awk '{print $2, $3}' "$work/exports.txt" |
  grep -Ev "^(T (utf8|utf8validate)_[a-z0-9_]+@@$esc_soname|A $esc_soname)\$" || true)
[ -z "$bad" ] || fail "symbols outside the public API (or unversioned) are exported:
$bad"
for fn in utf8_validate utf8_first_error utf8_validate_chunk utf8validate_version; do
  grep -q " T $fn@@$esc_soname\$" "$work/exports.txt" || fail "$fn is not exported"
done
echo "ok: $(grep -c ' T ' "$work/exports.txt") functions exported, all utf8_*/utf8validate_*@@$soname"
readelf -d "$so" | grep SONAME | tee "$work/soname.txt"
grep -q "Library soname: \[$esc_soname\]" "$work/soname.txt" || fail "SONAME is not $soname"

step "pkg-config: the .pc file"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cat "$PKG_CONFIG_PATH/utf8validate.pc"
[ "$(pkg-config --modversion utf8validate)" = "$version" ] || fail "pkg-config --modversion"
[ "$(pkg-config --variable=prefix utf8validate)" = "$prefix" ] || fail "the .pc prefix"
# The library is no_std: a static link needs nothing but the archive (and the C
# library, which every link has).
static_libs=$(pkg-config --static --libs utf8validate | xargs)
[ "$static_libs" = "-L$prefix/lib -lutf8validate" ] ||
  fail "pkg-config --static --libs says '$static_libs', not just -L$prefix/lib -lutf8validate"
echo "ok: pkg-config --static --libs: $static_libs"

step "consumer: C, CMake find_package, shared library"
cmake -S "$repo/c-tests/consumers/find-package-c" -B "$work/find-package-c" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/fpc.log" 2>&1 &&
  cmake --build "$work/find-package-c" >>"$work/fpc.log" 2>&1 ||
  { cat "$work/fpc.log" >&2; fail "find-package-c did not build"; }
expect_shared find-package-c "$work/find-package-c/consumer"
run_consumer "C, find_package, shared (RPATH from CMake)" "$work/find-package-c/consumer"

step "consumer: C++17, CMake find_package, static target"
cmake -S "$repo/c-tests/consumers/static-cxx" -B "$work/static-cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/scxx.log" 2>&1 &&
  cmake --build "$work/static-cxx" >>"$work/scxx.log" 2>&1 ||
  { cat "$work/scxx.log" >&2; fail "static-cxx did not build"; }
expect_static static-cxx "$work/static-cxx/consumer"
run_consumer "C++17, find_package, static" "$work/static-cxx/consumer"

# find_package_rule PREFIX REQUEST WANT: find_package(utf8validate REQUEST) against the
# package installed in PREFIX must be WANT (accepted or refused).
find_package_rule() {
  local dir=$work/version-$(basename "$1")-$2 got
  mkdir -p "$dir"
  printf 'cmake_minimum_required(VERSION 3.16)\nproject(v NONE)\nfind_package(utf8validate %s CONFIG REQUIRED)\n' \
    "$2" >"$dir/CMakeLists.txt"
  if cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$1" >"$dir.log" 2>&1; then
    got=accepted
  else
    got=refused
  fi
  [ "$got" = "$3" ] || { cat "$dir.log" >&2; fail "find_package(utf8validate $2) against $1: $got, want $3"; }
  echo "ok: find_package(utf8validate $2) $got by $(basename "$1")"
}
# Releases the version rules talk about: the next minor and the next major.
later_minor=$major.$((minor + 1)).0
next_major=$((major + 1)).0.0

step "consumer: find_package version rules against $version (same major, not older)"
for rule in "$major.$minor accepted" "$version accepted" "$major accepted" \
  "$major.$((minor + 1)) refused" "$((major + 1)).0 refused"; do
  # shellcheck disable=SC2086  # "request want"
  find_package_rule "$prefix" $rule
done

step "consumer: C, cc \$(pkg-config --cflags --libs utf8validate), shared"
consumer_c=$repo/c-tests/consumers/common/consumer.c
# shellcheck disable=SC2046  # pkg-config output is meant to be split into words
cc -std=c99 -Wall -Wextra -pedantic -Werror -o "$work/pc-shared" "$consumer_c" \
  $(pkg-config --cflags --libs utf8validate)
expect_shared pkg-config "$work/pc-shared"
run_consumer "C, pkg-config, shared (LD_LIBRARY_PATH)" "$work/pc-shared" \
  LD_LIBRARY_PATH="$prefix/lib"

step "consumer: C, pkg-config --static, our library static in a dynamic executable"
# -Bstatic picks libutf8validate.a; --as-needed then drops the .so (and the system
# libraries nothing uses) that the second, --static, list names again.
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -pedantic -Werror -o "$work/pc-static" "$consumer_c" \
  $(pkg-config --cflags utf8validate) \
  -Wl,-Bstatic $(pkg-config --libs utf8validate) -Wl,-Bdynamic \
  -Wl,--as-needed $(pkg-config --static --libs utf8validate)
expect_static "pkg-config --static" "$work/pc-static"
run_consumer "C, pkg-config --static" "$work/pc-static"

step "consumer: C, fully static executable (cc -static, pkg-config --static)"
# shellcheck disable=SC2046
cc -static -std=c11 -Wall -Wextra -pedantic -Werror -o "$work/pc-fully-static" "$consumer_c" \
  $(pkg-config --cflags --static --libs utf8validate) \
  2>"$work/fully-static.log" || { cat "$work/fully-static.log" >&2; fail "cc -static failed"; }
[ -z "$(needed "$work/pc-fully-static")" ] || fail "the -static program needs shared libraries"
run_consumer "C, fully static" "$work/pc-fully-static"

step "consumer: C vendoring the repository (add_subdirectory, FetchContent, FetchContent from git)"
# FetchContent from git clones this repository at its HEAD commit (the README's
# GIT_REPOSITORY form, with a local path as the URL): it tests what is committed, not
# changes in the working tree. A copy of the tree without git (a release tarball)
# skips it, except under CI=true.
hows="add_subdirectory FetchContent"
if head=$(git -C "$repo" rev-parse --verify HEAD 2>/dev/null); then
  hows="$hows FetchContent-git"
elif [ "${CI:-}" = true ]; then
  fail "$repo is not a git repository with a commit (CI=true)"
else
  echo "skipping FetchContent from git: $repo is not a git repository with a commit"
fi
for how in $hows; do
  fc=OFF
  tag=
  case $how in
    FetchContent) fc=ON ;;
    FetchContent-git) fc=ON tag=$head ;;
  esac
  # The cargo target directory of the install build: cargo has nothing left to compile
  # (from a git clone, only the crate itself, whose path differs).
  cmake -S "$repo/c-tests/consumers/vendored" -B "$work/vendored-$how" \
    -DUTF8VALIDATE_DIR="$repo" -DUSE_FETCHCONTENT=$fc -DUTF8VALIDATE_GIT_TAG="$tag" \
    -DUTF8VALIDATE_CARGO_TARGET_DIR="$cargo_target" >"$work/vendored-$how.log" 2>&1 &&
    cmake --build "$work/vendored-$how" >>"$work/vendored-$how.log" 2>&1 ||
    { cat "$work/vendored-$how.log" >&2; fail "vendored ($how) did not build"; }
  if [ $how = FetchContent-git ]; then
    fetched=$(git -C "$work/vendored-$how/_deps/utf8validate-src" rev-parse HEAD)
    [ "$fetched" = "$head" ] || fail "FetchContent checked out $fetched, not $head"
    echo "ok: FetchContent cloned $head"
  fi
  expect_shared "vendored ($how)" "$work/vendored-$how/consumer_shared"
  expect_static "vendored ($how)" "$work/vendored-$how/consumer_static"
  run_consumer "C, vendored with $how, shared" "$work/vendored-$how/consumer_shared"
  run_consumer "C, vendored with $how, static" "$work/vendored-$how/consumer_static"
done

# The steps below build the crate in other ways with cargo, in the install build's
# target directory (cargo then only recompiles the crate itself, not its dependencies).

step "cargo's own static library, as \`cargo build --release\` makes it"
(cd "$repo" && cargo build --release --package utf8validate --lib --target-dir "$cargo_target") \
  >"$work/cargo-staticlib.log" 2>&1 ||
  { cat "$work/cargo-staticlib.log" >&2; fail "cargo build --lib failed"; }
mkdir -p "$work/profile-staticlib"
cp "$cargo_target/release/libutf8validate.a" "$work/profile-staticlib/"

step "static library: only the C API is global"
nm -g --defined-only "$prefix/lib/libutf8validate.a" >"$work/static-globals.txt"
# Allowed: the public functions, and COMDAT group signatures (hidden, weak: DW.ref.*).
bad=$(awk 'NF == 3 {print $2, $3}' "$work/static-globals.txt" |
  grep -Ev '^(T (utf8|utf8validate)_[a-z0-9_]+|V DW\.ref\.[A-Za-z0-9_.]+)$' || true)
[ -z "$bad" ] || fail "libutf8validate.a has other global symbols:
$bad"
echo "ok: $(grep -c ' T ' "$work/static-globals.txt") global functions, all utf8_*/utf8validate_*"

step "two Rust staticlibs in one C program"
other=$repo/c-tests/consumers/other-rust-lib
# The other library as its Cargo.toml builds it (LTO), and without LTO.
for lto in true false; do
  (CARGO_PROFILE_RELEASE_LTO=$lto cargo build --release --manifest-path "$other/Cargo.toml" \
    --target-dir "$work/other-lto-$lto") >"$work/other.log" 2>&1 ||
    { cat "$work/other.log" >&2; fail "other-rust-lib did not build"; }
done
# link_two NAME OURS.a OTHER.a: link both (in both orders) with the system libraries the
# other library needs (a Rust staticlib with std; ours needs none), and run the program.
link_two() {
  local name=$1 ours=$2 other_a=$3 order out
  for order in ours-first other-first; do
    local libs=("$ours" "$other_a")
    [ $order = other-first ] && libs=("$other_a" "$ours")
    cc -Wall -Wextra -Werror -I"$prefix/include" -o "$work/two-$order" \
      "$other/two_rust_libs.c" "${libs[@]}" -lgcc_s -lpthread -ldl -lm >"$work/two-$order.log" 2>&1 ||
      return 1
    out=$("$work/two-$order") || fail "$name ($order) links but fails: $out"
  done
  echo "ok: $name: links and runs, both orders: $out"
}
# expect_clash NAME OURS.a OTHER.a: a control, which must fail to link; if it links, the
# tests above could not tell, which is said loudly (a newer Rust may remove the clash).
expect_clash() {
  if link_two "$@"; then
    echo "NOTE: control '$1' linked: this toolchain no longer shows the clash"
  else
    echo "ok: control: $1: fails to link, as expected:"
    grep -o 'multiple definition of `[^'"'"']*' "$work/two-ours-first.log" | sort -u | head -3
  fi
}
for lto in true false; do
  link_two "installed libutf8validate.a + other (LTO $lto)" "$prefix/lib/libutf8validate.a" \
    "$work/other-lto-$lto/release/libother_rust_lib.a" ||
    { cat "$work"/two-*.log >&2; fail "installed .a + other Rust staticlib (LTO $lto)"; }
done
# Control: cargo's own static library keeps its Rust internals global, among them the
# panic handler's symbol, which every Rust static library defines (std's too), so it
# clashes with another one built without LTO; hence the localized copy that the
# install makes. (An LTO'd library keeps only its C API global, so both link.)
expect_clash "cargo's staticlib, internals not hidden + other (no LTO)" \
  "$work/profile-staticlib/libutf8validate.a" "$work/other-lto-false/release/libother_rust_lib.a"

step "later releases: $later_minor and $next_major, built and installed from a copy of the tree"
later=$work/later-src
mkdir -p "$later"
tar -C "$repo" --exclude=./.git --exclude=./target --exclude=./fuzz/target \
  --exclude=./fuzz/corpus --exclude=./fuzz/artifacts -cf - . |
  tar -C "$later" -xf -
# In a copy of the install build's target directory, where only the crate itself needs
# compiling; not in that directory itself: cargo would later find release $version
# fresh and leave the other release's files in target/release, where the CMake build
# takes them. The two releases are built one after the other in the same copy (each
# CMake build runs cargo just before it takes the files).
rm -rf "$work/later-target"
cp -a "$cargo_target" "$work/later-target"
current=$version
for release in "$later_minor" "$next_major"; do
  sed -i "/^\[package\]/,/^\[/s/^version *= *\"$current\"/version = \"$release\"/" "$later/Cargo.toml"
  current=$release
  (cd "$later" &&
    cmake -S cmake -B "$work/build-$release" -DCMAKE_BUILD_TYPE=Release \
      -DUTF8VALIDATE_BUILD_CLI=OFF -DUTF8VALIDATE_INSTALL_GDB=OFF \
      -DUTF8VALIDATE_CARGO_TARGET_DIR="$work/later-target" &&
    cmake --build "$work/build-$release" &&
    cmake --install "$work/build-$release" --prefix "$work/prefix-$release") \
    >"$work/later-$release.log" 2>&1 ||
    { cat "$work/later-$release.log" >&2; fail "release $release did not build and install"; }
  [ "$(PKG_CONFIG_PATH=$work/prefix-$release/lib/pkgconfig pkg-config --modversion utf8validate)" = "$release" ] ||
    fail "the install of release $release does not say $release"
  printf '%s: ' "$release"
  readelf -d "$work/prefix-$release/lib/libutf8validate.so.$release" | grep SONAME
done
soname_of() { readelf -d "$1" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p'; }
[ "$(soname_of "$work/prefix-$later_minor/lib/libutf8validate.so.$later_minor")" = "$soname" ] ||
  fail "release $later_minor does not have the soname $soname"
major_soname=libutf8validate.so.$((major + 1))
[ "$(soname_of "$work/prefix-$next_major/lib/libutf8validate.so.$next_major")" = "$major_soname" ] ||
  fail "release $next_major does not have the soname $major_soname"
echo "ok: $later_minor keeps $soname, $next_major has $major_soname"

step "find_package version rules against $later_minor and $next_major"
# What a project written against this release asks for (find_package(utf8validate
# $major.$minor)) must take a later minor release and must refuse the next major.
for rule in "$major.$minor accepted" "$major.$((minor + 1)) accepted" "$major.$((minor + 2)) refused" \
  "$((major + 1)).0 refused"; do
  # shellcheck disable=SC2086
  find_package_rule "$work/prefix-$later_minor" $rule
done
for rule in "$major.$minor refused" "$major refused" "$((major + 1)).0 accepted"; do
  # shellcheck disable=SC2086
  find_package_rule "$work/prefix-$next_major" $rule
done

step "release $later_minor replaces $version under a program linked against $version"
# The pkg-config consumer was linked against this install (and has no RPATH): every
# symbol it binds (utf8_*@$soname) must be in the later release with the same version,
# and with that release's lib directory in LD_LIBRARY_PATH the program must run with it
# (CONSUMER_EXPECT_LIBRARY: it checks that the library says $later_minor).
bound=$(nm -D --undefined-only "$work/pc-shared" | awk '{print $2}' | grep "@$esc_soname\$" || true)
[ -n "$bound" ] || fail "the pkg-config consumer binds no symbol @$soname"
for sym in $bound; do
  nm -D --defined-only "$work/prefix-$later_minor/lib/libutf8validate.so.$later_minor" |
    grep " T ${sym/@/@@}\$" >/dev/null || fail "release $later_minor lacks $sym"
  echo "ok: $later_minor defines $sym"
done
run_consumer "C linked against $version, run with $later_minor" "$work/pc-shared" \
  LD_LIBRARY_PATH="$work/prefix-$later_minor/lib" CONSUMER_EXPECT_LIBRARY="$later_minor"

step "two major releases of the .so in one process ($version and $next_major)"
tv=$repo/c-tests/consumers/two-versions
mkdir -p "$work/tv"
cc -shared -fPIC -I"$prefix/include" -o "$work/tv/libfirst.so" "$tv/first.c" \
  -L"$prefix/lib" -lutf8validate
cc -shared -fPIC -I"$work/prefix-$next_major/include" -o "$work/tv/libsecond.so" "$tv/second.c" \
  -L"$work/prefix-$next_major/lib" -lutf8validate
needed "$work/tv/libfirst.so" | grep -x "$soname" >/dev/null || fail "libfirst.so does not need $soname"
needed "$work/tv/libsecond.so" | grep -x "$major_soname" >/dev/null || fail "libsecond.so does not need $major_soname"
cc -o "$work/tv/main" "$tv/main.c" -L"$work/tv" -lfirst -lsecond \
  -Wl,-rpath-link,"$prefix/lib:$work/prefix-$next_major/lib"
# libfirst's library comes first in the loader's search order: without symbol versions
# libsecond's call would bind to it.
out=$(LD_LIBRARY_PATH="$work/tv:$prefix/lib:$work/prefix-$next_major/lib" \
  "$work/tv/main" "$version" "$next_major") || fail "two releases in one process: $out"
echo "ok: $out"
# And with the later minor release in place of this one (libfirst, linked against
# $version, gets $later_minor; libsecond still gets $next_major).
out=$(LD_LIBRARY_PATH="$work/tv:$work/prefix-$later_minor/lib:$work/prefix-$next_major/lib" \
  "$work/tv/main" "$later_minor" "$next_major") || fail "two releases in one process: $out"
echo "ok: with $later_minor installed: $out"
# Control: the next major built without symbol versions (build.rs's --default-symver
# line removed, in the copy of the tree); libsecond's unversioned reference then binds
# to libfirst's library, which the loader searches first.
sed -i '/--default-symver/d' "$later/build.rs"
(cd "$later" && cargo build --release --lib --target-dir "$work/later-target") \
  >"$work/unversioned.log" 2>&1 || { cat "$work/unversioned.log" >&2; fail "the control build failed"; }
mkdir -p "$work/tv/unversioned"
cp "$work/later-target/release/libutf8validate.so" "$work/tv/unversioned/$major_soname"
ln -sf "$major_soname" "$work/tv/unversioned/libutf8validate.so"
nm -D --defined-only "$work/tv/unversioned/$major_soname" | grep '@' >/dev/null &&
  fail "the control library still has symbol versions"
cc -shared -fPIC -I"$later/include" -o "$work/tv/unversioned/libsecond.so" "$tv/second.c" \
  -L"$work/tv/unversioned" -lutf8validate
out=$(LD_LIBRARY_PATH="$work/tv/unversioned:$work/tv:$prefix/lib" \
  "$work/tv/main" "$version" "$next_major") || true
if [ "$out" = "libfirst sees $version, libsecond sees $version" ]; then
  echo "ok: control: without symbol versions: $out"
else
  echo "NOTE: control without symbol versions gave '$out': this loader does not show the clash"
fi

step "all packaging tests passed in $((SECONDS - start))s"
