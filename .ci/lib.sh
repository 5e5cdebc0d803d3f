# Shell functions the .ci scripts share; source it (`source .ci/lib.sh`).

# The version of the C library's package (its [package] section), from the
# Cargo.toml at $1 (default: ./Cargo.toml): what the soname, the .pc file and the
# CMake package version are made from.
package_version() {
  sed -n '/^\[package\]/,/^\[/s/^version *= *"\([0-9.]*\)".*/\1/p' "${1:-Cargo.toml}"
}

# The one rule for a check whose tools are missing: under CI=true it fails
# ("$1: FAIL: $2"), elsewhere it says so and is skipped ("$1: skipped: $2 ($3)",
# $3 saying how to install them). Exits either way.
skip_or_fail() {
  if [ "${CI:-}" = true ]; then
    echo "$1: FAIL: $2 (CI=true)" >&2
    exit 1
  fi
  echo "$1: skipped: $2${3:+ ($3)}"
  exit 0
}
