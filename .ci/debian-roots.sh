#!/usr/bin/env bash
# The Debian 11 and Debian 12 userlands of the release tests and the Debian 11
# consumer (packaging/lib.sh: ensure_root), made side by side with debootstrap from
# Debian's package registry, or reused from target/release-roots when they hold
# the package list already. Mostly waiting on the network: a step of its own, so
# that the builds run meanwhile.
#
# Usage: bash .ci/debian-roots.sh   (needs root and debootstrap; outside CI a
#        missing one skips with a message, with CI=true it fails)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/packaging/lib.sh"
[ "$(id -u)" = 0 ] || skip_or_fail debian-roots "needs root (chroot, debootstrap)"
command -v debootstrap >/dev/null || skip_or_fail debian-roots "needs debootstrap" "apt-get install debootstrap"

mkdir -p "$(roots_dir)"
started=$SECONDS
declare -A pid=()
for suite in bullseye bookworm; do
  ensure_root "$suite" >"$(roots_dir)/$suite.out" 2>&1 &
  pid[$suite]=$!
done
status=0
for suite in bullseye bookworm; do
  if wait "${pid[$suite]}"; then
    echo "ok: $suite: $(roots_dir)/$suite ($(cat "$(roots_dir)/$suite/etc/debian_version"))"
  else
    cat "$(roots_dir)/$suite.out" >&2
    echo "debian-roots: FAIL: making the $suite userland failed" >&2
    status=1
  fi
done
echo "debian-roots: $((SECONDS - started)) s"
exit $status
