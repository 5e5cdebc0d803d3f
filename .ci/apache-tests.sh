#!/usr/bin/env bash
# The Apache httpd module (apache/), built and run as apache/README.md says, in a
# temporary directory:
#   1. the library installed with CMake into a prefix;
#   2. the module built with apxs (package apache2-dev) twice: linked to the shared
#      library (RUNPATH into the prefix) and to the static one (no libutf8validate
#      needed at run time, none of its symbols exported);
#   3. for each, the functional tests (apache/tests/test_module.py) against Debian's
#      apache2 on 127.0.0.1 under the event MPM and under the prefork MPM, started and
#      stopped by the test with its own files;
#   4. the soak (apache/load/load.py soak): 1,000,000 requests, half of them invalid,
#      through the static build with wrk; no child crash, children's memory flat.
#
# Usage: bash .ci/apache-tests.sh   (KEEP=1 keeps the temporary directory;
#        APACHE_SOAK_REQUESTS=n changes the soak's request count, 0 skips it)
# Outside CI a missing tool skips the tests with a message; with CI=true it fails.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/.ci/lib.sh"
start=$SECONDS
apache_bin=/usr/sbin/apache2

missing=
for tool in cargo cmake pkg-config cc make python3 wrk curl readelf nm apxs; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -x "$apache_bin" ] || missing="$missing apache2"
if [ -n "$missing" ]; then
  skip_or_fail apache-tests "not installed:$missing" "apt-get install apache2 apache2-dev libapache2-mod-security2 wrk curl cmake pkg-config build-essential"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/utf8validate-apache.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then
  echo "apache-tests: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
# Apache's children run as nobody: they must reach the module and the test files.
chmod 755 "$work"
unset CARGO_BUILD_TARGET RUSTFLAGS

step() { printf '\n--- %s (%ds)\n' "$*" $((SECONDS - start)); }
fail() { echo "apache-tests: FAIL: $*" >&2; exit 1; }

step "install the library: cmake into $work/prefix"
install_library "$repo" "$work" || fail "the library did not build and install"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
incdir=$(pkg-config --variable=includedir utf8validate)
libdir=$(pkg-config --variable=libdir utf8validate)

for link in shared static; do
  step "build the module ($link library) with apxs"
  dir=$work/module-$link
  mkdir -p "$dir"
  cp "$repo/apache/mod_utf8_check.c" "$dir/"
  # (apxs reads its options before the source file; what follows it goes to the link)
  if [ $link = shared ]; then
    opts=(-Wl,-R"$libdir" -L"$libdir" -lutf8validate)
    libs=()
  else
    # --exclude-libs: the library's functions stay private to the module.
    opts=(-Wl,-Wl,--exclude-libs,libutf8validate.a)
    libs=("$libdir/libutf8validate.a"
          $(pkg-config --static --libs-only-l utf8validate | sed 's/-lutf8validate//'))
  fi
  (cd "$dir" &&
    apxs -c -I"$incdir" -Wc,-Wall -Wc,-Werror "${opts[@]}" mod_utf8_check.c "${libs[@]}") \
    >"$work/module-$link.log" 2>&1 ||
    { cat "$work/module-$link.log" >&2; fail "the module ($link) did not build"; }
  so=$dir/.libs/mod_utf8_check.so
  check_module_link "$so" $link "$libdir" utf8_check_module || fail "linkage ($link)"
  if [ $link = static ]; then
    nm "$so" | grep ' t utf8_check_percent$' >/dev/null ||
      fail "the static build does not contain the library"
  fi
  nm -D --defined-only "$so" | grep ' D utf8_check_module$' >/dev/null ||
    fail "the module does not export utf8_check_module"

  step "functional tests, $link library, event and prefork MPMs"
  python3 "$repo/apache/tests/test_module.py" --module "$so" --apache "$apache_bin" \
    --mpm event,prefork || fail "functional tests ($link library)"
done

requests=${APACHE_SOAK_REQUESTS:-1000000}
if [ "$requests" -gt 0 ]; then
  step "soak: $requests requests, half of them invalid (static library)"
  python3 "$repo/apache/load/load.py" soak --requests "$requests" \
    --module "$work/module-static/.libs/mod_utf8_check.so" \
    --apache "$apache_bin" || fail "soak"
fi

step "all Apache module tests passed in $((SECONDS - start))s"
