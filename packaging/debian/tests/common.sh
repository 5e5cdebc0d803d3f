# Sourced by the tests: the inputs every consumer gets and what it must answer
# (c-tests/consumers/common/consumer.c; "ok " is 3 bytes, then ED A0 80 would encode
# the surrogate U+D800), and helpers.
set -eu
src=$(pwd)
work=${AUTOPKGTEST_TMP:-$(mktemp -d)}
printf 'h\303\251llo \342\202\254 \360\237\230\200\n' >"$work/valid.txt"
printf 'ok \355\240\200 surrogate\n' >"$work/invalid.txt"
# The version the installed header says, which the library must say too.
version=$(sed -n 's/^#define UTF8VALIDATE_VERSION_STRING "\(.*\)"$/\1/p' /usr/include/utf8validate.h)

fail() { echo "FAIL: $*" >&2; exit 1; }
# run_consumer NAME PROGRAM: exit 0 and "valid: 16 bytes" on the valid input, exit 1
# and "invalid at byte 3" on the invalid one.
run_consumer() {
  out=$("$2" <"$work/valid.txt") || fail "$1 on valid input: exit $?, '$out'"
  [ "$out" = "valid: 16 bytes" ] || fail "$1 on valid input: '$out'"
  status=0
  out=$("$2" <"$work/invalid.txt") || status=$?
  [ "$status" = 1 ] && [ "$out" = "invalid at byte 3" ] || fail "$1 on invalid input: exit $status, '$out'"
  echo "ok: $1"
}
needs_so() { readelf -d "$2" | grep -q 'NEEDED.*\[libutf8validate\.so\.0\]' || fail "$1 does not need libutf8validate.so.0"; }
static_only() { ! readelf -d "$2" | grep -q 'NEEDED.*libutf8validate' || fail "$1 needs the shared library"; }
