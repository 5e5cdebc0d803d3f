#!/usr/bin/env bash
# The man pages (man/*.scd): rendered with scdoc exactly as the CMake build renders
# them (cmake/scdoc.cmake), then:
#   1. `mandoc -T lint -W warning`: no warning and no error on either page (style
#      suggestions, such as input lines over 80 bytes, are not warnings);
#   2. `man --warnings -l` (man-db and groff, when installed): each page formats with
#      nothing on stderr;
#   3. utf8check(1) against `utf8check --help`: every option the program has is
#      described in OPTIONS, and OPTIONS describes no option the program lacks;
#   4. utf8validate(3) against include/utf8validate.h: each function has a section
#      of its own in FUNCTIONS, and every macro, enum value and type is mentioned.
#
# Needs scdoc, mandoc and cmake (Debian: scdoc mandoc cmake), and cargo for
# utf8check. Outside CI a missing tool skips the check with a message; with CI=true
# it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for tool in scdoc mandoc cmake cargo; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  source .ci/lib.sh
  skip_or_fail "man pages" "not installed: ${missing[*]}" "Debian: scdoc mandoc cmake"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/utf8validate-man.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "man pages: FAIL: $*" >&2; failed=1; }

pages=(utf8check.1 utf8validate.3)
for page in "${pages[@]}"; do
  cmake -DSCDOC="$(command -v scdoc)" -DIN="man/$page.scd" -DOUT="$work/$page" \
    -P cmake/scdoc.cmake
  # The page as plain text, one long line per paragraph (no overstrike, no wrapping).
  mandoc -T ascii -O width=1000 "$work/$page" | sed 's/.\x08//g' >"$work/$page.txt"
done

echo "== mandoc -T lint -W warning"
for page in "${pages[@]}"; do
  if lint=$(mandoc -T lint -W warning "$work/$page" 2>&1) && [ -z "$lint" ]; then
    echo "ok: $page"
  else
    fail "mandoc reports on $page:"$'\n'"$lint"
  fi
done

echo "== man --warnings -l"
if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
  for page in "${pages[@]}"; do
    errors=$(MANWIDTH=80 man --warnings -l "$work/$page" 2>&1 >/dev/null) || fail "man -l $page failed"
    [ -z "$errors" ] && echo "ok: $page" || fail "man -l $page warns:"$'\n'"$errors"
  done
elif [ "${CI:-}" = true ]; then
  fail "man or groff is not installed (CI=true; Debian: man-db)"
else
  echo "skipped: man or groff is not installed (Debian: man-db)"
fi

# section PAGE NAME: the text of section NAME of PAGE (its heading to the next one).
section() { awk -v h="$2" '/^[A-Z]/ { on = ($0 == h); next } on' "$work/$1.txt"; }

echo "== utf8check(1) against utf8check --help"
cargo build --release --quiet -p utf8check
help=$("${CARGO_TARGET_DIR:-target}/release/utf8check" --help)
# Options are the words that start with - or -- in the lines that list them (the
# help's own prose, such as "-v is ignored", is indented deeper or follows them).
options() { grep -oE '(^|[ ,\[])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,[]//' | sort -u; }
want=$(grep -E '^ {2,6}(-[a-zA-Z], )?--[a-z]|\[alias: ' <<<"$help" | options)
have=$(section utf8check.1 OPTIONS | grep -E '^ {0,7}-' | options)
if [ "$want" = "$have" ]; then
  echo "ok: OPTIONS describes exactly $(wc -l <<<"$want") options: $(echo $want)"
else
  fail "OPTIONS differs from --help (- only in --help, + only in the man page):"$'\n'"$(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | sed 's/^</-/; s/^>/+/')"
fi

echo "== utf8validate(3) against include/utf8validate.h"
header=include/utf8validate.h
functions=$(grep -oE '^[a-z][a-z0-9_ ]*[ *](utf8[a-z0-9_]*)\(' "$header" | grep -oE 'utf8[a-z0-9_]*\($' | tr -d '(' | sort -u)
[ -n "$functions" ] || fail "no function found in $header"
headings=$(grep -E '^\.SS ' "$work/utf8validate.3" | sed 's/^\.SS //; s/"//g')
for f in $functions; do
  grep -qE "(^|, )$f(,|$)" <<<"$headings" || fail "utf8validate(3) has no section for $f"
done
names=$(grep -oE '^#define (UTF8[A-Z0-9_]*)' "$header" | cut -d' ' -f2 | grep -vx UTF8VALIDATE_H
  grep -oE '^ *(UTF8_(STATE|ERROR)_[A-Z_]+) =' "$header" | tr -d ' ='
  grep -oE '} (utf8_[a-z_]+);' "$header" | tr -d '};' | tr -d ' ')
for n in $(sort -u <<<"$names"); do
  grep -qw -- "$n" "$work/utf8validate.3.txt" || fail "utf8validate(3) does not mention $n"
done
echo "checked: $(wc -w <<<"$functions") functions, $(sort -u <<<"$names" | wc -l) macros, enum values and types"

[ $failed = 0 ] && echo "man pages: ok"
exit $failed
