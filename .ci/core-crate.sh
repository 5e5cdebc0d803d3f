#!/usr/bin/env bash
# The Rust crate utf8validate-core on its own, as a Rust user gets it:
#   - it builds for a target with no standard library at all (thumbv7em-none-eabihf,
#     where the scalar machine serves), with no warning;
#   - its documentation builds without a warning (RUSTDOCFLAGS=-D warnings);
#   - it is publishable: `cargo publish --dry-run` packages it and builds the package.
# A missing rustup target is installed (rustup target add).
set -euo pipefail
cd "$(dirname "$0")/.."

target=thumbv7em-none-eabihf
if ! rustup target list --installed | grep -x "$target" >/dev/null; then
  rustup target add "$target"
fi
echo "== cargo build -p utf8validate-core --target $target (no std)"
RUSTFLAGS="-D warnings" cargo build --quiet -p utf8validate-core --release --target "$target"
echo "== cargo doc -p utf8validate-core (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --quiet -p utf8validate-core --no-deps
echo "== cargo publish --dry-run -p utf8validate-core"
cargo publish --dry-run --quiet -p utf8validate-core --allow-dirty 2>&1 | tail -n 3
echo "core crate: ok"
