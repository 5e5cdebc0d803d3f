# Shell functions that packaging/dist.sh and .ci/release-tests.sh share; source it after
# setting `repo` (the repository's top directory).

# shellcheck source=../.ci/lib.sh
source "$repo/.ci/lib.sh"

# The Debian mirror the userlands (debootstrap) and their apt come from.
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

say() { printf '\n== %s\n' "$*"; }
die() { echo "${0##*/}: FAIL: $*" >&2; exit 1; }

# offline CMD...: runs CMD with no network at all when this machine allows it (root, or
# unprivileged user namespaces: `unshare -n`), and always with cargo told to stay
# offline. What is built from the source release must not need the network.
offline() {
  if [ -z "${_offline_mode:-}" ]; then
    if unshare -n true 2>/dev/null; then
      _offline_mode=unshare
    elif unshare -rn true 2>/dev/null; then
      _offline_mode=unshare-user
    else
      _offline_mode=env
      echo "note: cannot run without network here (unshare -n): only CARGO_NET_OFFLINE=true" >&2
    fi
  fi
  case $_offline_mode in
    unshare) CARGO_NET_OFFLINE=true unshare -n -- "$@" ;;
    unshare-user) CARGO_NET_OFFLINE=true unshare -rn -- "$@" ;;
    *) CARGO_NET_OFFLINE=true "$@" ;;
  esac
}

# The Rust toolchain cargo runs here (the real directory, not rustup's proxies), for
# use inside a Debian userland: bin/cargo, bin/rustc, lib/rustlib/<targets>.
rust_toolchain_dir() {
  local rustc
  rustc=$(rustup which rustc 2>/dev/null || command -v rustc)
  (cd "$(dirname "$rustc")/.." && pwd -P)
}

# ensure_rust_targets TRIPLE...: adds the rustup targets that are missing.
ensure_rust_targets() {
  local installed t missing=()
  installed=$(rustup target list --installed 2>/dev/null || true)
  for t in "$@"; do
    grep -qx "$t" <<<"$installed" || missing+=("$t")
  done
  [ ${#missing[@]} -eq 0 ] || rustup target add "${missing[@]}"
}

# Debian userlands, made with debootstrap and kept in target/release-roots/<suite>
# (about 400 MB each), so that a second run starts at once; when the package list
# below changes, apt adds what is missing.
#   root_packages SUITE: what each has: C and C++ compilers, CMake, pkg-config, Meson,
#   gdb and man (the consumers and the install tests); bullseye also has what
#   dpkg-buildpackage needs for debian/ (debhelper, scdoc).
root_packages() {
  local common="gcc g++ libc6-dev make cmake pkg-config meson ninja-build gdb man-db xz-utils
    autopkgtest"
  case $1 in
    bullseye) echo "$common build-essential dpkg-dev debhelper scdoc" ;;
    *) echo "$common" ;;
  esac
}
roots_dir() { echo "${RELEASE_ROOTS:-$repo/target/release-roots}"; }

# ensure_root SUITE: makes (or reuses) the root; prints nothing. Needs root and
# debootstrap.
ensure_root() {
  local suite=$1 root packages log
  root=$(roots_dir)/$suite
  packages=$(root_packages "$suite" | tr -s ' \n' '\n\n' | sed '/^$/d' | sort | tr '\n' ' ')
  log=$(roots_dir)/$suite-debootstrap.log
  if [ -f "$root/.utf8validate-packages" ] && [ "$(cat "$root/.utf8validate-packages")" = "$packages" ]; then
    return 0
  fi
  if [ ! -f "$root/.utf8validate-base" ]; then
    # Never delete a root something is mounted in (every mount here is made in a
    # private mount namespace, so none should outlive its command).
    if grep -qF " $root/" /proc/mounts; then
      die "something is mounted under $root; unmount it first"
    fi
    rm -rf "$root"
    mkdir -p "$root"
    echo "debootstrap $suite into $root (a few minutes; log: $log)"
    # A bare minbase first, then the packages with apt, which (unlike debootstrap's
    # --include) resolves alternatives and virtual packages.
    debootstrap --variant=minbase "$suite" "$root" "$DEBIAN_MIRROR" >"$log" 2>&1 ||
      { tail -n 30 "$log" >&2; die "debootstrap $suite failed"; }
    echo "deb $DEBIAN_MIRROR $suite main" >"$root/etc/apt/sources.list"
    touch "$root/.utf8validate-base"
  fi
  echo "installing into the $suite userland: $packages"
  in_root "$suite" "export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $packages" >>"$log" 2>&1 ||
    { tail -n 30 "$log" >&2; die "installing the packages into $suite failed"; }
  echo "$packages" >"$root/.utf8validate-packages"
}

# in_root SUITE [--offline] [--rust] SCRIPT: runs the shell script SCRIPT as root inside
# the userland, with /proc mounted (gdb needs it), in a mount namespace of its own (no
# mount outlives the command). --rust mounts this machine's Rust toolchain read-only on
# /opt/rust and puts it first on PATH; --offline takes the network away.
in_root() {
  local suite=$1 root toolchain="" net=()
  shift
  root=$(roots_dir)/$suite
  while [ $# -gt 1 ]; do
    case $1 in
      --offline) net=(-n) ;;
      --rust) toolchain=$(rust_toolchain_dir) ;;
      *) die "in_root: unknown option $1" ;;
    esac
    shift
  done
  mkdir -p "$root/opt/rust"
  unshare -m "${net[@]}" -- env -i HOME=/root TERM=dumb LANG=C.UTF-8 ROOT="$root" \
    TOOLCHAIN="$toolchain" SCRIPT="$1" /bin/sh -c '
    set -e
    mount -t proc proc "$ROOT/proc"
    # Terminals for apt and gdb, where the container allows it.
    mount --bind /dev/pts "$ROOT/dev/pts" 2>/dev/null || true
    path=/usr/sbin:/usr/bin:/sbin:/bin
    if [ -n "$TOOLCHAIN" ]; then
      mount --bind -o ro "$TOOLCHAIN" "$ROOT/opt/rust"
      path=/opt/rust/bin:$path
    fi
    exec chroot "$ROOT" /usr/bin/env PATH="$path" /bin/sh -ec "$SCRIPT"'
}

# needed FILE: the ELF file's DT_NEEDED entries, one a line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# newest_glibc FILE: the newest GLIBC_x.y version FILE needs ("" when none).
newest_glibc() {
  { objdump -T "$1" 2>/dev/null || true; } | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' |
    sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1
}
