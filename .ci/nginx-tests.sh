#!/usr/bin/env bash
# The nginx module (nginx/), built and run as nginx/README.md says, in a temporary
# directory:
#   1. the library installed with CMake into a prefix;
#   2. the module built against Debian's nginx source tree (package nginx-dev) with
#      ./configure --with-compat --add-dynamic-module, twice: linked to the shared
#      library (RUNPATH into the prefix) and to the static one (no libutf8validate
#      needed at run time, none of its symbols exported);
#   3. for each, the functional tests (nginx/tests/test_module.py) against Debian's
#      nginx on 127.0.0.1, started and stopped by the test with its own files;
#   4. the soak (nginx/load/load.py soak): 1,000,000 requests, half of them invalid,
#      through the static build with wrk; no worker crash, worker memory flat.
#
# Usage: bash .ci/nginx-tests.sh   (KEEP=1 keeps the temporary directory;
#        NGINX_SOAK_REQUESTS=n changes the soak's request count, 0 skips it)
# Outside CI a missing tool skips the tests with a message; with CI=true it fails.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/.ci/lib.sh"
start=$SECONDS
nginx_src=/usr/share/nginx/src
nginx_bin=/usr/sbin/nginx

missing=
for tool in cargo cmake pkg-config cc make python3 wrk curl readelf nm; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -x "$nginx_bin" ] || missing="$missing nginx"
[ -x "$nginx_src/configure" ] || missing="$missing nginx-dev"
if [ -n "$missing" ]; then
  skip_or_fail nginx-tests "not installed:$missing" "apt-get install nginx nginx-dev wrk curl cmake pkg-config build-essential"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/utf8validate-nginx.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then
  echo "nginx-tests: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
unset CARGO_BUILD_TARGET RUSTFLAGS

step() { printf '\n--- %s (%ds)\n' "$*" $((SECONDS - start)); }
fail() { echo "nginx-tests: FAIL: $*" >&2; exit 1; }

step "install the library: cmake into $work/prefix"
install_library "$repo" "$work" || fail "the library did not build and install"

for link in shared static; do
  step "build the module ($link library) against $nginx_src"
  src=$work/nginx-src-$link
  cp -r "$nginx_src" "$src"
  (cd "$src" &&
    PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" UTF8VALIDATE_LINK=$link \
      ./configure --with-compat --add-dynamic-module="$repo/nginx" &&
    make -f objs/Makefile modules) >"$work/module-$link.log" 2>&1 ||
    { cat "$work/module-$link.log" >&2; fail "the module ($link) did not build"; }
  so=$src/objs/ngx_http_utf8_check_module.so
  check_module_link "$so" $link "$work/prefix/lib" || fail "linkage ($link)"

  step "functional tests, $link library"
  python3 "$repo/nginx/tests/test_module.py" --module "$so" --nginx "$nginx_bin" ||
    fail "functional tests ($link library)"
done

requests=${NGINX_SOAK_REQUESTS:-1000000}
if [ "$requests" -gt 0 ]; then
  step "soak: $requests requests, half of them invalid (static library)"
  python3 "$repo/nginx/load/load.py" soak --requests "$requests" \
    --module "$work/nginx-src-static/objs/ngx_http_utf8_check_module.so" \
    --nginx "$nginx_bin" || fail "soak"
fi

step "all nginx module tests passed in $((SECONDS - start))s"
