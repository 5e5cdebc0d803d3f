# Shell functions the .ci scripts share; source it (`source .ci/lib.sh`).

# The version of the C library's package (its [package] section), from the
# Cargo.toml at $1 (default: ./Cargo.toml): what the soname, the .pc file and the
# CMake package version are made from.
package_version() {
  sed -n '/^\[package\]/,/^\[/s/^version *= *"\([0-9.]*\)".*/\1/p' "${1:-Cargo.toml}"
}

# The CPU seconds the shell $1 (default: this one) has had from its children so far
# (the ones it has waited for, and theirs): a script's sub-steps print it, so that the
# share of the cores each takes shows. In a command substitution, pass $$.
cpu_so_far() {
  awk -v tck="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%d", ($14 + $15) / tck }' \
    "/proc/${1:-$BASHPID}/stat"
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

# Builds the C library with the CMake project (no CLI, no gdb extension) and installs
# it into $2/prefix, from the repository at $1; the log goes to $2/install.log and is
# printed if the build fails. Returns non-zero on failure. Cargo builds where
# `cargo build --release` does ($CARGO_TARGET_DIR, default $1/target), so that the
# library other steps built already is not compiled again.
install_library() {
  (cd "$1" &&
    cmake -S cmake -B "$2/build" -DCMAKE_BUILD_TYPE=Release \
      -DUTF8VALIDATE_BUILD_CLI=OFF -DUTF8VALIDATE_INSTALL_GDB=OFF \
      -DUTF8VALIDATE_CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$1/target}" &&
    cmake --build "$2/build" &&
    cmake --install "$2/build" --prefix "$2/prefix") >"$2/install.log" 2>&1 ||
    { cat "$2/install.log" >&2; return 1; }
}

# How a server module $1 is linked to the library, as $2 says: "shared" (it needs
# libutf8validate.so.N and has a RUNPATH to $3) or "static" (it does not need it,
# and exports none of its utf8* functions, except the module's own symbol $4 if
# given). Prints what is wrong and returns non-zero, else prints what it needs.
check_module_link() {
  local so=$1 link=$2 libdir=$3 own=${4:-} needed
  needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  if [ "$link" = shared ]; then
    echo "$needed" | grep -x 'libutf8validate\.so\.[0-9]*' >/dev/null ||
      { echo "the shared build does not need libutf8validate.so: $needed" >&2; return 1; }
    readelf -d "$so" | grep "RUNPATH.*\[$libdir\]" >/dev/null ||
      { echo "the shared build has no RUNPATH to $libdir" >&2; return 1; }
  else
    ! echo "$needed" | grep libutf8validate >/dev/null ||
      { echo "the static build needs the shared library" >&2; return 1; }
    local exported
    exported=$(nm -D --defined-only "$so" | awk -v own="$own" '$3 ~ /^utf8/ && $3 != own')
    [ -z "$exported" ] ||
      { echo "the static build exports the library's functions: $exported" >&2; return 1; }
  fi
  echo "ok: $so needs: $(echo $needed)"
}
