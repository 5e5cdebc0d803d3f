# Shell functions the .ci scripts share; source it (`source .ci/lib.sh`).

# The version of the C library's package (its [package] section), from the
# Cargo.toml at $1 (default: ./Cargo.toml): what the soname, the .pc file and the
# CMake package version are made from.
package_version() {
  sed -n '/^\[package\]/,/^\[/s/^version *= *"\([0-9.]*\)".*/\1/p' "${1:-Cargo.toml}"
}
