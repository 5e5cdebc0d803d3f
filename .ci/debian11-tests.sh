#!/usr/bin/env bash
# The C library built here (Debian 12, glibc 2.36) used by a Debian 11 userland (glibc
# 2.31), as a server on an older distribution would use it: the Debian 11 root of the
# release tests (packaging/lib.sh: ensure_root bullseye, made with debootstrap from
# Debian's package registry; .ci/debian-roots.sh), with Debian 11's own gcc, compiles
# the C suite and the guard-page program against the .so and the .a built on this
# machine (`cargo build --release`, used from target/release as they are) and runs
# them, on the default back end and with each one this CPU supports forced.
#
# Needs root (chroot) and debootstrap; outside CI a missing one skips the test.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
source packaging/lib.sh
target_dir=${CARGO_TARGET_DIR:-$repo/target}

[ "$(id -u)" = 0 ] || skip_or_fail debian11-tests "needs root (chroot)"
command -v debootstrap >/dev/null || skip_or_fail debian11-tests "needs debootstrap" "apt-get install debootstrap"

ensure_root bullseye
root=$(roots_dir)/bullseye
echo "== inside: $(in_root bullseye 'ldd --version | head -n 1'); $(in_root bullseye 'gcc --version | head -n 1')"

echo "== the library, built on this machine"
cargo build --quiet --release -p utf8validate --lib
cargo test --quiet --profile test-release -p utf8validate-core --test force_backend -- --ignored --exact \
  --nocapture list_backends 2>/dev/null | sed -n 's/^backend: //p' >"$target_dir/debian11-backends"
mapfile -t backends <"$target_dir/debian11-backends"
[ ${#backends[@]} -gt 0 ] || { echo "no back end listed" >&2; exit 1; }

work=$root/utf8validate
rm -rf "$work"
mkdir -p "$work/lib"
cp -a "$target_dir/release/libutf8validate.so" "$target_dir/release/libutf8validate.so.0" \
  "$target_dir/release/libutf8validate.a" "$work/lib/"
cp -a include c-tests "$work/"
version=$(package_version)

# Runs a shell command inside the Debian 11 root, in /utf8validate.
inside() { in_root bullseye "cd /utf8validate && $1"; }

# The suite: check.c and every test_*.c (the glob is expanded by the root's shell).
suite="c-tests/check.c c-tests/test_*.c"
flags="-std=c99 -Wall -Wextra -pedantic -Werror -O2 -Iinclude -Ic-tests"
echo "== compiling with Debian 11's gcc: the suite and guard pages, shared and static"
inside "gcc $flags $suite -Llib -lutf8validate -o suite-shared"
inside "gcc $flags $suite lib/libutf8validate.a -o suite-static"
inside "gcc $flags c-tests/guard_pages.c c-tests/check.c -Llib -lutf8validate -o guard-shared"
inside "gcc $flags c-tests/guard_pages.c c-tests/check.c lib/libutf8validate.a -o guard-static"

run() { # run NAME COMMAND: the program's last line must be "N passed, 0 failed"
  local name=$1 last
  last=$(inside "$2" | tail -n 1) || { echo "$name: failed: $last" >&2; exit 1; }
  [[ $last =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]] || { echo "$name: $last" >&2; exit 1; }
  echo "$name: $last"
}
for forced in "" "${backends[@]}"; do
  env="UTF8VALIDATE_BACKEND=$forced LD_LIBRARY_PATH=/utf8validate/lib"
  for link in shared static; do
    run "suite ($link, ${forced:-default})" "$env ./suite-$link --expect-version $version"
    run "guard pages ($link, ${forced:-default})" "$env ./guard-$link"
  done
done
inside "LD_LIBRARY_PATH=/utf8validate/lib ldd ./suite-shared" | grep '/utf8validate/lib/libutf8validate.so.0' >/dev/null ||
  { echo "suite-shared does not load /utf8validate/lib/libutf8validate.so.0" >&2; exit 1; }
echo "debian11-tests: ok"
