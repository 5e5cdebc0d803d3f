#!/usr/bin/env bash
# The library on another Linux target: bash .ci/cross-tests.sh TARGET
#
#   target                       how it runs                      Rust suites of utf8validate-core
#   i686-unknown-linux-gnu       natively (32-bit x86)            all, including the exhaustive ones
#   x86_64-unknown-linux-musl    natively (static, musl)          all but the ignored exhaustive ones
#   aarch64-unknown-linux-gnu    qemu-aarch64 (NEON)              unit tests, backends, differential,
#   s390x-unknown-linux-gnu      qemu-s390x (big-endian, scalar)    exhaustive (1-3 bytes), diagnostics,
#   riscv64gc-unknown-linux-gnu  qemu-riscv64 (scalar)              stream: the rest takes too long
#                                                                   under emulation
#
# Then, on every target: `UTF8VALIDATE_BACKEND` selects each back end this CPU runs
# (force_backend's child test, run directly: qemu-user cannot spawn it); the C suite
# and the guard-page program, compiled with the target's C compiler against the
# target's static library (as C users link it: the archive and nothing else), run
# once per back end; and the library's code is checked for panic paths.
#
# Needs: the rustup target (added here when missing), and Debian's cross compilers
# and qemu-user (.ci/run installs them). Outside CI a missing tool skips the target.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: cross-tests.sh TARGET}
runner=()
rust_tests=(--lib --test backends --test differential --test exhaustive --test diagnostics --test stream)
case $target in
  i686-unknown-linux-gnu)
    cc=i686-linux-gnu-gcc; tools=(i686-linux-gnu-gcc)
    rust_tests=(); exhaustive=yes ;;
  x86_64-unknown-linux-musl)
    cc=musl-gcc; tools=(musl-gcc)
    rust_tests=(); exhaustive=no ;;
  aarch64-unknown-linux-gnu)
    cc=aarch64-linux-gnu-gcc; tools=(aarch64-linux-gnu-gcc qemu-aarch64)
    runner=(qemu-aarch64 -L /usr/aarch64-linux-gnu); exhaustive=no ;;
  s390x-unknown-linux-gnu)
    cc=s390x-linux-gnu-gcc; tools=(s390x-linux-gnu-gcc qemu-s390x)
    runner=(qemu-s390x -L /usr/s390x-linux-gnu); exhaustive=no ;;
  riscv64gc-unknown-linux-gnu)
    cc=riscv64-linux-gnu-gcc; tools=(riscv64-linux-gnu-gcc qemu-riscv64)
    runner=(qemu-riscv64 -L /usr/riscv64-linux-gnu); exhaustive=no ;;
  *) echo "cross-tests: unknown target $target" >&2; exit 2 ;;
esac
for tool in "${tools[@]}"; do
  if ! command -v "$tool" >/dev/null; then
    echo "cross-tests: $target needs $tool" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    echo "skipping $target (not in CI)"; exit 0
  fi
done
if ! rustup target list --installed | grep -x "$target" >/dev/null; then
  rustup target add "$target"
fi

upper=$(tr 'a-z-' 'A-Z_' <<<"$target")
export "CARGO_TARGET_${upper}_LINKER=$cc"
[ ${#runner[@]} -eq 0 ] || export "CARGO_TARGET_${upper}_RUNNER=${runner[*]}"
export "CC_${target//-/_}=$cc"
# musl: rustc links test binaries itself (self-contained), with the host's cc.
[ "$target" = x86_64-unknown-linux-musl ] && unset "CARGO_TARGET_${upper}_LINKER"
target_dir=${CARGO_TARGET_DIR:-target}
started=$SECONDS

echo "== $target: Rust suites of utf8validate-core (release)"
cargo test --quiet --profile test-release -p utf8validate-core --target "$target" "${rust_tests[@]}"
if [ "$exhaustive" = yes ]; then
  echo "== $target: the exhaustive and long tests"
  cargo test --quiet --profile test-release -p utf8validate-core --target "$target" --test exhaustive \
    --test stream --test backends --test diagnostics -- --ignored
fi

# The back ends this CPU runs, best first, as the crate sees them on this target.
mapfile -t backends < <(cargo test --quiet --profile test-release -p utf8validate-core --target "$target" \
  --test force_backend -- --ignored --exact --nocapture list_backends 2>/dev/null |
  sed -n 's/^backend: //p')
[ ${#backends[@]} -gt 0 ] || { echo "cross-tests: no back end listed for $target" >&2; exit 1; }
echo "== $target: back ends: ${backends[*]}"
for forced in "" "${backends[@]}"; do
  expect=${forced:-${backends[0]}}
  UTF8VALIDATE_BACKEND=$forced UTF8VALIDATE_EXPECT_SELECTED=$expect \
    cargo test --quiet --profile test-release -p utf8validate-core --target "$target" --test force_backend \
    -- --ignored --exact child_reports_selected
done

echo "== $target: the C suite and the guard pages against libutf8validate.a"
cargo build --quiet --release --target "$target" -p utf8validate --lib
lib="$target_dir/$target/release/libutf8validate.a"
out="$target_dir/$target/c-tests"
mkdir -p "$out"
source .ci/lib.sh
version=$(package_version)
cflags=(-std=c99 -Wall -Wextra -pedantic -Werror -O2 -g -Iinclude -Ic-tests)
[ "$target" = x86_64-unknown-linux-musl ] && cflags+=(-static)
# The suite: check.c and every test_*.c.
"$cc" "${cflags[@]}" c-tests/check.c c-tests/test_*.c -o "$out/c_suite" "$lib"
"$cc" "${cflags[@]}" c-tests/guard_pages.c c-tests/check.c -o "$out/guard_pages" "$lib"

run_c() {
  local what=$1; shift
  local log="$out/${what//[^A-Za-z0-9]/_}"
  local status=0 last began=$SECONDS
  "${runner[@]}" "$@" >"$log.stdout" 2>"$log.stderr" || status=$?
  last=$(grep -v '^[[:space:]]*$' "$log.stdout" | tail -n 1 || true)
  echo "$what: ${last:-no output} (exit status $status, $((SECONDS - began)) s)"
  if [ "$status" -ne 0 ] || ! [[ $last =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
    echo "--- $what failed; the end of its output ($log.stdout, .stderr):" >&2
    tail -n 40 "$log.stdout" "$log.stderr" >&2
    exit 1
  fi
}
for forced in "${backends[@]}"; do
  UTF8VALIDATE_BACKEND=$forced run_c "$target C suite, $forced" "$out/c_suite" --expect-version "$version"
  # The library, the header and Cargo.toml agree (as c-tests/tests/c_suite.rs checks
  # on the host).
  want="library version: $version, header version: $version"
  grep -qxF "$want" "$out/${target//[^A-Za-z0-9]/_}_C_suite__${forced}.stdout" || {
    echo "$target C suite, $forced: no line \"$want\"" >&2; exit 1; }
  UTF8VALIDATE_BACKEND=$forced run_c "$target guard pages, $forced" "$out/guard_pages"
done

# The target's library code calls no panic or allocation routine, as on the host.
bash .ci/panic-free.sh "$lib"
echo "== $target: ok ($((SECONDS - started)) s)"
