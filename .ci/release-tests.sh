#!/usr/bin/env bash
# The release (packaging/dist.sh): every artifact made from this checkout, then each
# installed and used as C and C++ users do (docs/releasing.md):
#
#   1. the source release: what it holds; built with no network at all (unshare -n)
#      on this machine (Debian 12): the README's `cargo build --release` and a C program
#      against target/release, the README's CMake install and a pkg-config consumer
#      (and every archive below is built from it the same way); in a Debian 11
#      userland: dpkg-buildpackage (step 3) builds it with no network;
#   2. the binary archives, each unpacked into a directory of its own (mktemp) and
#      used from there (packaging/archive-test.sh: pkg-config and CMake find_package,
#      C and C++, shared and static, and bin/utf8check): x86_64-linux-gnu here and in
#      Debian 11 and 12 userlands (debootstrap), x86_64-linux-musl with musl-gcc,
#      aarch64 and i686 with the cross compilers under qemu-user, Windows with
#      MinGW-w64 under Wine; on the x86_64 archive also a Meson project, the gdb and
#      lldb extensions and the man pages; its shared library references no glibc
#      newer than 2.17 and its utf8check is static;
#   3. the Debian packages: lintian (no error, no warning); the ABI of the built .so
#      against packaging/abi (abidiff) with two controls, and the baseline against the
#      symbols file; `apt install ./*.deb` in fresh-ish Debian 11 and 12 userlands, then
#      the packages' own tests (debian/tests, autopkgtest on the null back end there):
#      pkg-config, CMake, Meson, gdb auto-load, utf8check and its man page;
#   4. the Conan recipe: `conan create` (static and shared) from the unpacked source
#      release, with no remote and no network (conan from PyPI, in a venv);
#   5. one version everywhere (packaging/check-versions.sh).
#
# Needs root (chroot, unshare), debootstrap, the cross toolchains, MinGW-w64 and Wine of
# .ci/run, and: lintian abigail-tools meson ninja-build g++-aarch64-linux-gnu
# g++-i686-linux-gnu python3-venv (installed here with apt-get when missing and
# running as root), rustup targets (added when missing), conan (pip, in a venv). Outside
# CI a missing tool skips the whole step with a message; with CI=true it fails.
# Network: crates.io (cargo vendor), rustup, PyPI, Debian's mirror (DEBIAN_MIRROR).
# Work files and the Debian userlands are kept under target/ (dist-work, release-roots)
# and reused by the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
source packaging/lib.sh
started=$SECONDS
step() { printf '\n--- %s (at %ds, CPU %ss)\n' "$*" $((SECONDS - started)) "$(cpu_so_far $$)"; }
fail() { echo "release-tests: FAIL: $*" >&2; exit 1; }

# --- tools ----------------------------------------------------------------------------
apt_packages="lintian abigail-tools meson ninja-build g++-aarch64-linux-gnu g++-i686-linux-gnu python3-venv"
[ "$(id -u)" = 0 ] || skip_or_fail release-tests "needs root (chroot, unshare, debootstrap)"
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in $apt_packages; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi
missing=()
for t in cargo rustup cmake pkg-config scdoc xz python3 debootstrap unshare chroot lintian abidw abidiff \
  meson ninja gdb lldb musl-gcc aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ i686-linux-gnu-gcc \
  i686-linux-gnu-g++ qemu-aarch64 qemu-i386 x86_64-w64-mingw32-gcc x86_64-w64-mingw32-g++ dpkg-parsechangelog; do
  command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
[ ${#missing[@]} -eq 0 ] ||
  skip_or_fail release-tests "missing: ${missing[*]}" "bash .ci/run installs most; apt-get install $apt_packages"

version=$(package_version)
major=${version%%.*}
dist=$repo/target/dist
work=$repo/target/dist-work
export DIST_DIR=$dist DIST_WORK=$work
rm -rf "$dist"   # every file in it is made again below (and no file of an earlier version stays)
tree=$work/tree/utf8validate-$version
scratch=$(mktemp -d "${TMPDIR:-/tmp}/utf8validate-release.XXXXXX")
roots_pid=""
cleanup() {
  [ -z "$roots_pid" ] || kill "$roots_pid" 2>/dev/null || true
  # The wineserver of check-versions' utf8check.exe run, if any.
  WINEPREFIX=$work/wine-prefix "$(command -v wineserver || echo /usr/lib/wine/wineserver)" -k 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
# printf input for every consumer (c-tests/consumers/common/consumer.c)
printf 'h\303\251llo \342\202\254 \360\237\230\200\n' >"$scratch/valid.txt"
printf 'ok \355\240\200 surrogate\n' >"$scratch/invalid.txt"
consumer_ok() { # consumer_ok NAME PROGRAM [env...]: the consumer's two answers
  local name=$1 prog=$2 out status=0
  shift 2
  out=$(env "$@" "$prog" <"$scratch/valid.txt") || fail "$name on valid input: '$out'"
  [ "$out" = "valid: 16 bytes" ] || fail "$name on valid input: '$out'"
  out=$(env "$@" "$prog" <"$scratch/invalid.txt") || status=$?
  [ "$status" = 1 ] && [ "$out" = "invalid at byte 3" ] || fail "$name on invalid input: exit $status, '$out'"
  echo "ok: $name"
}

# The Debian userlands take minutes to make the first time (debootstrap): made while
# the builds run (at once when .ci/test-all.sh's step made them already).
bash .ci/debian-roots.sh >"$scratch/roots.log" 2>&1 &
roots_pid=$!
wait_roots() {
  wait "$roots_pid" || { cat "$scratch/roots.log" >&2; fail "making the Debian userlands failed"; }
  roots_pid=""
}

# --- 1. the source release, and the archives built from it ----------------------------
step "dist.sh source archives"
bash packaging/dist.sh source archives

step "source release: contents"
tar -tJf "$dist/utf8validate-$version.tar.xz" >"$scratch/src-files"
for f in Cargo.toml Cargo.lock .cargo/config.toml include/utf8validate.h cmake/CMakeLists.txt \
  packaging/debian/control packaging/conan/conanfile.py vendor/cbindgen-0.29.4/Cargo.toml; do
  grep -qx "utf8validate-$version/$f" "$scratch/src-files" || fail "the source release lacks $f"
done
! grep -q -e "^utf8validate-$version/target/" -e "/\.git/" "$scratch/src-files" || fail "the source release holds build output or .git"
echo "ok: $(wc -l <"$scratch/src-files") entries, $(grep -c '/Cargo.toml$' "$scratch/src-files") Cargo.toml files"

step "source release, no network, Debian 12: the README's cargo build and a C program against target/release"
(cd "$tree" && offline cargo build --release --locked) >"$scratch/readme-cargo.log" 2>&1 ||
  { cat "$scratch/readme-cargo.log" >&2; fail "cargo build --release (offline) failed in the source release"; }
consumer=$tree/c-tests/consumers/common/consumer.c
cc -std=c99 -Wall -Wextra -Werror -o "$scratch/readme-app" "$consumer" -I"$tree/include" -L"$tree/target/release" -lutf8validate
consumer_ok "README: cc -Iinclude -Ltarget/release -lutf8validate" "$scratch/readme-app" LD_LIBRARY_PATH="$tree/target/release"
cc -std=c99 -Wall -Wextra -Werror -o "$scratch/readme-app-static" "$consumer" -I"$tree/include" "$tree/target/release/libutf8validate.a"
consumer_ok "README: cc ... target/release/libutf8validate.a" "$scratch/readme-app-static"
"$tree/target/release/utf8check" "$tree/README.md" "$tree/src/lib.rs" || fail "utf8check from the source release"

step "source release, no network, Debian 12: the README's CMake install (cmake -S cmake ..., install --prefix)"
# cargo's target directory of the build above: nothing left to compile.
(cd "$tree" && offline cmake -S cmake -B "$scratch/readme-cmake" -DCMAKE_BUILD_TYPE=Release \
  -DUTF8VALIDATE_CARGO_TARGET_DIR="$tree/target" && offline cmake --build "$scratch/readme-cmake" &&
  cmake --install "$scratch/readme-cmake" --prefix "$scratch/readme-prefix") >"$scratch/readme-cmake.log" 2>&1 ||
  { cat "$scratch/readme-cmake.log" >&2; fail "the README's CMake route failed offline"; }
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror -o "$scratch/readme-pc" "$consumer" \
  $(PKG_CONFIG_PATH=$scratch/readme-prefix/lib/pkgconfig pkg-config --cflags --libs utf8validate)
consumer_ok "README CMake install, pkg-config consumer" "$scratch/readme-pc" LD_LIBRARY_PATH="$scratch/readme-prefix/lib"
"$scratch/readme-prefix/bin/utf8check" --version
echo "(each archive below was built the same way, by dist.sh, offline: CMake for the gnu targets and Windows)"

# --- 2. the archives -------------------------------------------------------------------
unpack() { # unpack ARCHIVE: into a new random directory; prints the archive's directory
  local d
  d=$(mktemp -d "$scratch/unpacked.XXXXXX")
  (cd "$d" && cmake -E tar xf "$1")
  echo "$d/$(ls "$d")"
}
archive=$dist/utf8validate-$version
step "archive x86_64-linux-gnu, here (Debian 12)"
u=$(unpack "$archive-x86_64-linux-gnu.tar.xz")
bash packaging/archive-test.sh "$u" gnu c-tests/consumers "$scratch/at-gnu"
so=$u/lib/libutf8validate.so.$version
echo "the .so needs: $(needed "$so" | tr '\n' ' '); newest glibc symbol: GLIBC_$(newest_glibc "$so")"
[ -z "$(needed "$u/bin/utf8check")" ] && ! readelf -l "$u/bin/utf8check" | grep -q 'INTERP' ||
  fail "bin/utf8check is not a static executable"
echo "ok: bin/utf8check is static: no interpreter, no shared library"
man -M "$u/share/man" -P cat utf8validate 2>/dev/null | grep -q utf8_first_error || fail "man -M share/man utf8validate"
man -M "$u/share/man" -P cat utf8check 2>/dev/null | grep -q isutf8 || fail "man -M share/man utf8check"
echo "ok: the man pages"
# Meson, pkg-config through the relocatable .pc file.
mkdir -p "$scratch/meson-src"
cp packaging/meson/meson.build "$consumer" "$scratch/meson-src/"
PKG_CONFIG_PATH=$u/lib/pkgconfig meson setup "$scratch/meson-build" "$scratch/meson-src" >"$scratch/meson.log" 2>&1 &&
  ninja -C "$scratch/meson-build" >>"$scratch/meson.log" 2>&1 || { cat "$scratch/meson.log" >&2; fail "Meson against the archive"; }
needed "$scratch/meson-build/consumer_shared" | grep -qx "libutf8validate.so.$major" || fail "Meson: consumer_shared does not need the .so"
! needed "$scratch/meson-build/consumer_static" | grep -q libutf8validate || fail "Meson: consumer_static needs the .so"
consumer_ok "Meson dependency('utf8validate'), shared" "$scratch/meson-build/consumer_shared" LD_LIBRARY_PATH="$u/lib"
consumer_ok "Meson dependency('utf8validate', static: true)" "$scratch/meson-build/consumer_static"
# The debugger extensions, sourced from the archive, find the archive's library.
cat >"$scratch/prog.c" <<'EOF'
#include <stddef.h>
#include <utf8validate.h>
const char request[] = "ok \355\240\200 surrogate";
volatile int sink;
void stop_here(void) { sink = 1; }
int main(void) {
    stop_here();
    return utf8_validate(request, sizeof request - 1) ? 0 : 1;
}
EOF
cc -g -O0 -o "$scratch/prog" "$scratch/prog.c" -I"$u/include" -L"$u/lib" -lutf8validate -Wl,-rpath,"$u/lib"
gdb -nx -batch -ex "source $u/share/utf8validate/gdb/utf8validate.py" -ex 'break stop_here' -ex run \
  -ex 'utf8-check request' -ex 'utf8-annotate on' -ex 'print request' -ex kill "$scratch/prog" >"$scratch/gdb.out" 2>&1 || true
grep -q '^invalid UTF-8 at byte 3 (line 1, char 4): ' "$scratch/gdb.out" || { cat "$scratch/gdb.out" >&2; fail "gdb extension from the archive"; }
grep -q ' \[invalid UTF-8 at byte 3: surrogate (ED)\]$' "$scratch/gdb.out" || { cat "$scratch/gdb.out" >&2; fail "gdb: utf8-annotate from the archive"; }
echo "ok: gdb: source share/utf8validate/gdb/utf8validate.py; utf8-check; utf8-annotate"
# lldb's embedded Python: the system's (not another python3 first on PATH), with the
# directory of lldb's package that Debian 12's lldb 14 does not name itself (as
# .ci/lldb_tests.py does it).
lldb_pythonpath=$(dirname "$(find "$(dirname "$(dirname "$(readlink -f "$(command -v lldb)")")")"/lib/python3* \
  -name embedded_interpreter.py -path '*/lldb/*' | head -n 1)")/..
PATH=/usr/bin:/bin PYTHONPATH=$lldb_pythonpath lldb --batch -o "command script import $u/share/utf8validate/lldb/utf8validate.py" -o 'breakpoint set -n stop_here' \
  -o run -o 'utf8-check request' -o 'utf8-annotate on' -o 'target variable request' -o kill "$scratch/prog" >"$scratch/lldb.out" 2>&1 || true
grep -q 'invalid UTF-8 at byte 3 (line 1, char 4): ' "$scratch/lldb.out" || { cat "$scratch/lldb.out" >&2; fail "lldb extension from the archive"; }
grep -q ' request = .* \[invalid UTF-8 at byte 3: surrogate (ED)\]$' "$scratch/lldb.out" || { cat "$scratch/lldb.out" >&2; fail "lldb: utf8-annotate from the archive"; }
echo "ok: lldb: command script import share/utf8validate/lldb/utf8validate.py; utf8-check; utf8-annotate"

step "archive x86_64-linux-musl (musl-gcc), aarch64-linux-gnu (qemu-aarch64), i686-linux-gnu (qemu-i386)"
bash packaging/archive-test.sh "$(unpack "$archive-x86_64-linux-musl.tar.xz")" musl c-tests/consumers "$scratch/at-musl"
for arch in aarch64 i686; do
  u=$(unpack "$archive-$arch-linux-gnu.tar.xz")
  bash packaging/archive-test.sh "$u" "$arch" c-tests/consumers "$scratch/at-$arch"
  echo "$arch: the .so needs: $(needed "$u/lib/libutf8validate.so.$version" | tr '\n' ' ');" \
    "newest glibc symbol: GLIBC_$(newest_glibc "$u/lib/libutf8validate.so.$version"); utf8check static:" \
    "$([ -z "$(needed "$u/bin/utf8check")" ] && echo yes)"
done

step "archive x86_64-windows-gnu (MinGW-w64, Wine)"
(
  # A Wine prefix of this script's own (target/dist-work/wine-prefix).
  export CARGO_TARGET_DIR=$work
  source .ci/wine-env.sh
  [ -n "$wine" ] || fail "no Wine"
  unset CARGO_TARGET_DIR
  u=$(unpack "$archive-x86_64-windows-gnu.zip")
  imports=$(x86_64-w64-mingw32-objdump -p "$u/bin/utf8validate.dll" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort | tr '\n' ' ')
  [ "$imports" = "KERNEL32.dll msvcrt.dll " ] || fail "utf8validate.dll imports $imports"
  echo "ok: utf8validate.dll imports $imports"
  WINE=$wine bash packaging/archive-test.sh "$u" windows c-tests/consumers "$scratch/at-windows"
)

step "archive x86_64-linux-gnu in Debian 11 and Debian 12 userlands"
wait_roots
for suite in bullseye bookworm; do
  root=$(roots_dir)/$suite
  rm -rf "$root/release"
  mkdir -p "$root/release/src"
  cp "$archive-x86_64-linux-gnu.tar.xz" "$root/release/"
  cp -a packaging "$root/release/src/"
  mkdir -p "$root/release/src/c-tests"
  cp -a c-tests/consumers "$root/release/src/c-tests/"
  in_root "$suite" "cd /release
    echo \"\$(. /etc/os-release && echo \$PRETTY_NAME), \$(ldd --version | head -n 1)\"
    d=\$(mktemp -d /tmp/archive.XXXXXX)
    tar -C \"\$d\" -xJf utf8validate-$version-x86_64-linux-gnu.tar.xz
    bash src/packaging/archive-test.sh \"\$d/utf8validate-$version-x86_64-linux-gnu\" gnu src/c-tests/consumers \"\$d/work\"
    rm -rf \"\$d\""
done

# --- 3. the Debian packages ------------------------------------------------------------
step "dist.sh debs (dpkg-buildpackage in Debian 11, no network)"
bash packaging/dist.sh debs

# lintian (minutes: it reads every vendored file of the source package) and the
# installs in the two userlands run side by side; their reports follow.
lintian --fail-on error,warning "$dist/debian/utf8validate_${version}"-*_amd64.changes >"$scratch/lintian.log" 2>&1 &
lintian_pid=$!

step "ABI: the built .so (with debug info) against packaging/abi; the baseline and the symbols file"
built_so=$(ls "$(roots_dir)"/bullseye/build/utf8validate-"$version"/debian/tmp/usr/lib/*/libutf8validate.so."$version")
bash packaging/abi-check.sh "$built_so"
bash packaging/abi-check.sh --symbols
# Controls: a baseline with one more exported function (so the built library lacks
# it: removed) must fail; the same with another soname in the baseline must pass.
base=$(find packaging/abi -name '*.abi' | sort -V | tail -n 1)
sed "s|<elf-function-symbols>|&\n    <elf-symbol name='utf8_removed_for_test' version='libutf8validate.so.$major' is-default-version='yes' type='func-type' binding='global-binding' visibility='default-visibility' is-defined='yes'/>|" \
  "$base" >"$scratch/removed.abi"
if BASELINE=$scratch/removed.abi bash packaging/abi-check.sh "$built_so" >"$scratch/abi-control.log" 2>&1; then
  cat "$scratch/abi-control.log" >&2
  fail "control: abi-check passed a library that lacks a function of the baseline"
fi
echo "ok: control: a removed function fails ($(grep -o 'FAIL: incompatible[^(]*' "$scratch/abi-control.log"))"
sed "1s/soname='libutf8validate.so.$major'/soname='libutf8validate.so.$((major + 99))'/" "$scratch/removed.abi" >"$scratch/other-soname.abi"
BASELINE=$scratch/other-soname.abi bash packaging/abi-check.sh "$built_so" >"$scratch/abi-control.log" 2>&1 ||
  { cat "$scratch/abi-control.log" >&2; fail "control: abi-check failed an incompatible change that comes with a new soname"; }
echo "ok: control: the same change with another soname passes"

step "Debian packages in Debian 11 and 12: apt install ./*.deb, then debian/tests (autopkgtest)"
install_test() { # install_test SUITE
  local suite=$1 root
  root=$(roots_dir)/$suite
  rm -rf "$root/release"
  mkdir -p "$root/release/debs" "$root/release/src"
  cp "$dist"/debian/*.deb "$root/release/debs/"
  tar -C "$root/release/src" -xJf "$dist/utf8validate-$version.tar.xz"
  cp -a "$root/release/src/utf8validate-$version/packaging/debian" "$root/release/src/utf8validate-$version/debian"
  in_root "$suite" "export DEBIAN_FRONTEND=noninteractive
    echo \"== \$(. /etc/os-release && echo \$PRETTY_NAME), \$(ldd --version | head -n 1)\"
    apt-get purge -y -qq libutf8validate0 libutf8validate-dev utf8check >/dev/null 2>&1 || true
    cd /release/debs
    echo '# apt-get install ./libutf8validate0_*.deb ./libutf8validate-dev_*.deb ./utf8check_*.deb'
    apt-get install -y -qq --no-install-recommends ./libutf8validate0_*.deb ./libutf8validate-dev_*.deb ./utf8check_*.deb >/release/apt.log 2>&1 ||
      { cat /release/apt.log; exit 1; }
    dpkg -l libutf8validate0 libutf8validate-dev utf8check | tail -n 3
    utf8check --version
    rc=0
    echo '# autopkgtest -B <the three .deb> <source> -- null'
    autopkgtest --output-dir /release/autopkgtest -B ./libutf8validate0_*.deb ./libutf8validate-dev_*.deb \
      ./utf8check_*.deb /release/src/utf8validate-$version -- null >/release/autopkgtest.log 2>&1 || rc=\$?
    cat /release/autopkgtest/summary
    if [ \$rc -ne 0 ]; then tail -n 60 /release/autopkgtest.log; exit 1; fi
    apt-get purge -y -qq libutf8validate0 libutf8validate-dev utf8check >/dev/null"
}
install_test bullseye >"$scratch/install-bullseye.log" 2>&1 &
pid_11=$!
install_test bookworm >"$scratch/install-bookworm.log" 2>&1 &
pid_12=$!
status_11=0 status_12=0
wait "$pid_11" || status_11=$?
wait "$pid_12" || status_12=$?
cat "$scratch/install-bullseye.log" "$scratch/install-bookworm.log"
[ "$status_11" = 0 ] || fail "the Debian packages in Debian 11"
[ "$status_12" = 0 ] || fail "the Debian packages in Debian 12"

step "lintian: no error, no warning"
status=0
wait "$lintian_pid" || status=$?
cat "$scratch/lintian.log"
[ "$status" = 0 ] || fail "lintian reports errors or warnings"
echo "ok: lintian: no error, no warning (overrides: packaging/debian/*lintian-overrides, each with its reason)"

# --- 4. Conan ---------------------------------------------------------------------------
step "Conan 2: conan create from the unpacked source release, no remote, no network"
venv=$work/venv
[ -x "$venv/bin/conan" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q conan; }
"$venv/bin/conan" --version
export CONAN_HOME=$work/conan-home
"$venv/bin/conan" profile detect --force >/dev/null 2>&1
"$venv/bin/conan" remote remove conancenter >/dev/null 2>&1 || true
[ -z "$("$venv/bin/conan" remote list --format=json 2>/dev/null | python3 -c 'import json,sys; print(*[r["name"] for r in json.load(sys.stdin)])')" ] ||
  fail "conan has a remote"
"$venv/bin/conan" remove 'utf8validate/*' -c >/dev/null 2>&1 || true
rm -rf "$work/conan-src"
mkdir -p "$work/conan-src"
tar -C "$work/conan-src" -xJf "$dist/utf8validate-$version.tar.xz"
for shared in False True; do
  # Sharing the archives' cargo target directory: the vendored crates are compiled
  # already, only the workspace's own crates are (the sources are Conan's copy), and
  # only for the first package (the recipe's no_copy_source: one source folder).
  offline "$venv/bin/conan" create "$work/conan-src/utf8validate-$version/packaging/conan" -o "&:shared=$shared" \
    -c "tools.cmake.cmaketoolchain:extra_variables={'UTF8VALIDATE_CARGO_TARGET_DIR': '$tree/target'}" \
    >"$scratch/conan-$shared.log" 2>&1 || { tail -n 60 "$scratch/conan-$shared.log" >&2; fail "conan create (shared=$shared)"; }
  grep -E "^utf8validate [0-9.]+: ok" "$scratch/conan-$shared.log" || fail "test_package printed no result (shared=$shared)"
  echo "ok: conan create -o shared=$shared"
done

# --- 5. one version --------------------------------------------------------------------
step "one version: Cargo.toml's, everywhere"
# (utf8check.exe --version under Wine, in the prefix of the Windows step)
export WINEPREFIX=$work/wine-prefix WINEDEBUG=-all
PATH=$venv/bin:$PATH bash packaging/check-versions.sh "$dist"
# Control: against another version, every place must disagree.
other=$major.$(cut -d. -f2 <<<"$version").99
if PATH=$venv/bin:$PATH EXPECT_VERSION=$other bash packaging/check-versions.sh "$dist" >"$scratch/versions-control.log" 2>&1; then
  fail "control: check-versions passed against version $other"
fi
mismatches=$(grep -c '^MISMATCH' "$scratch/versions-control.log")
oks=$(grep -c '^ok:' "$scratch/versions-control.log" || true)
# Only the checks that do not compare a version (the Debian package name, the sonames)
# may still pass.
grep '^ok:' "$scratch/versions-control.log" | grep -v -e 'soname' -e 'library package' -e 'symbols file' -e 'top directory' &&
  fail "control: these version checks passed against $other"
echo "ok: control: against $other, check-versions reports $mismatches mismatches ($oks checks without a version number pass)"

step "artifacts"
(cd "$dist" && find . -type f ! -name SHA256SUMS -printf '%s\t%P\n' | sort -k2 |
  awk -F'\t' '{ printf "%9.1f KiB  %s\n", $1 / 1024, $2 }')
echo "release-tests: all passed in $((SECONDS - started)) s"
