#!/usr/bin/env bash
# utf8check against cat and isutf8 on a large file in the page cache, side by side with
# hyperfine (the utf8check table in BENCHMARKS.md):
#   1. builds utf8check (release);
#   2. writes a 1 GiB file, the texts of the corpus's wikipedia_mars/ repeated (once:
#      it is kept in $UTF8CHECK_BENCH_DIR, default target/utf8check-bench), and reads it
#      once so that it sits in the page cache;
#   3. times, in one hyperfine run: `cat FILE > /dev/null`, `utf8check FILE`,
#      `utf8check < FILE`, then through a pipe `cat FILE | cat > /dev/null` and
#      `cat FILE | utf8check`, and moreutils' `isutf8 FILE` when it is installed;
#   4. writes hyperfine's results as CSV to
#      benches/results/<machine>/<date>-utf8check.csv (the machine named as
#      benches/summarize.py names it).
#
# Usage: bash benches/utf8check.sh [--runs N]   (default 15 runs each; about a minute)
# Needs: hyperfine, python3, cargo, and the corpus at ../shared/corpus beside the
# repository (or $UTF8VALIDATE_CORPUS).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=15
while [ $# -gt 0 ]; do
  case $1 in
    --runs) [ $# -ge 2 ] || { echo "utf8check.sh: --runs needs a number" >&2; exit 64; }; runs=$2; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "utf8check.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
  shift
done
command -v hyperfine >/dev/null || { echo "utf8check.sh: hyperfine not found (apt-get install hyperfine)" >&2; exit 1; }
corpus=${UTF8VALIDATE_CORPUS:-$repo/../shared/corpus}
[ -d "$corpus/wikipedia_mars" ] || { echo "utf8check.sh: no $corpus/wikipedia_mars" >&2; exit 1; }

cd "$repo"
cargo build --quiet --release -p utf8check
target=$(realpath "${CARGO_TARGET_DIR:-target}")
bin=$target/release/utf8check
dir=${UTF8CHECK_BENCH_DIR:-$target/utf8check-bench}
mkdir -p "$dir"
file=$dir/wikipedia-1GiB.txt
if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -ne $((1 << 30)) ]; then
  echo "== writing $file" >&2
  python3 - "$corpus/wikipedia_mars" "$file" <<'EOF'
import pathlib, sys
texts = b"".join(p.read_bytes() for p in sorted(pathlib.Path(sys.argv[1]).glob("*.txt")))
size = 1 << 30
with open(sys.argv[2], "wb") as out:
    written = 0
    while written + len(texts) <= size:
        out.write(texts)
        written += len(texts)
    out.write(b"a" * (size - written))  # ASCII up to exactly 1 GiB
EOF
fi
cat "$file" > /dev/null  # into the page cache

commands=(
  "cat '$file' > /dev/null"
  "'$bin' '$file'"
  "'$bin' < '$file'"
  "cat '$file' | cat > /dev/null"
  "cat '$file' | '$bin'"
)
if command -v isutf8 >/dev/null; then commands+=("isutf8 '$file'"); fi
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
echo "== $(nproc) CPUs: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" >&2
hyperfine --warmup 3 --runs "$runs" --export-csv "$csv" "${commands[@]}"

machine=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import summarize; print(summarize.machine())' "$repo/benches")
out=$repo/benches/results/$machine/$(date +%F)-utf8check.csv
mkdir -p "$(dirname "$out")"
# The file's path is the machine's, not the result's: name it FILE.
sed "s|$file|FILE|g; s|$bin|utf8check|g" "$csv" > "$out"
echo "(written: $out)" >&2
