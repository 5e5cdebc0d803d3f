# Sourced by the Windows test scripts: a Wine of their own to run Windows programs in.
#
# Sets `wine` (the 64-bit loader: wine64, or Debian's /usr/lib/wine/wine64), WINEPREFIX
# (target/wine-prefix, created on first use), WINEDEBUG=-all, and a trap that stops
# this prefix's wineserver when the script exits. Defines `windows_path DIR` (the path
# a Windows program sees for DIR, for WINEPATH).
#
# Wine before 9 has no bcryptprimitives.dll, which every program built with Rust's
# standard library imports (the Rust test programs; the C library does not): the
# stand-in .ci/wine/bcryptprimitives.c is built with MinGW-w64 and copied into the
# prefix when the prefix has none.
#
# Needs wine64 (Debian: wine64, wine) and x86_64-w64-mingw32-gcc; the caller checks
# them (`wine` is empty when there is no Wine, and nothing else is done then).

wine=$(command -v wine64 || true)
if [ -z "$wine" ] && [ -x /usr/lib/wine/wine64 ]; then
  wine=/usr/lib/wine/wine64
fi
[ -n "$wine" ] || wine=$(command -v wine || true)
wineserver=$(command -v wineserver || true)
for candidate in "$(dirname "$wine")/wineserver" "$(dirname "$wine")/wineserver64"; do
  [ -n "$wineserver" ] || { [ -x "$candidate" ] && wineserver=$candidate; }
done

# No Wine: the caller says so (and skips or fails).
[ -n "$wine" ] || return 0

export WINEPREFIX
mkdir -p "${CARGO_TARGET_DIR:-target}"
WINEPREFIX=$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/wine-prefix
export WINEDEBUG=-all
# No Mono or Gecko installer when the prefix is created (nothing here needs them).
export WINEDLLOVERRIDES="mscoree,mshtml="

stop_wineserver() { [ -z "$wineserver" ] || "$wineserver" -k 2>/dev/null || true; }
trap stop_wineserver EXIT

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  mkdir -p "$WINEPREFIX"
  echo "== creating the Wine prefix $WINEPREFIX"
  "$wine" wineboot --init >"$WINEPREFIX.log" 2>&1 || { cat "$WINEPREFIX.log" >&2; exit 1; }
  [ -z "$wineserver" ] || "$wineserver" -w
fi
# One wineserver for the whole script: -p600 keeps it up to ten minutes after its last
# program exits (the trap above stops it at the end), not Wine's default 3 s. With
# that default, each program's server exits a few seconds after it, and on a loaded
# machine the next program can connect while it is exiting and fail with "wine
# client error: recvmsg: Connection reset by peer". (It fails, harmlessly, when this
# prefix's server is running already.)
[ -z "$wineserver" ] || "$wineserver" -p600 2>/dev/null || true
system32=$WINEPREFIX/drive_c/windows/system32
if [ ! -e "$system32/bcryptprimitives.dll" ]; then
  echo "== this Wine has no bcryptprimitives.dll: installing .ci/wine/bcryptprimitives.c"
  x86_64-w64-mingw32-gcc -std=c99 -Wall -Wextra -pedantic -Werror -O2 -shared \
    -o "$system32/bcryptprimitives.dll" .ci/wine/bcryptprimitives.c -ladvapi32
fi

windows_path() { "$wine" winepath -w "$1" 2>/dev/null | tr -d '\r'; }
