#!/usr/bin/env python3
"""Turns the C ABI benchmark's Google Benchmark JSON into Markdown tables.

Usage: python3 benches/c-abi/summarize.py [--smoke] RESULTS_DIR

RESULTS_DIR is what benches/c-abi/run.sh wrote: default.json (the default back end),
avx2.json (the AVX2 back end forced, with simdutf's haswell kernel) when this CPU has
AVX2, and commit.txt. For each run: per input, GB/s (1 GB = 1e9 bytes; short inputs in
ns per call) from the median of the repetitions' real time per call, and the ratios
ours/simdutf, ours/glib, ours/memchr (utf8_validate's speed over the peer's: above 1,
ours is faster), fe/val (utf8_first_error over utf8_validate) and fe/simdutf w/e
(utf8_first_error over simdutf::validate_utf8_with_errors); then the geometric mean of
each ratio over the non-ASCII lipsum files and over the wikipedia files.

Each run is also written as CSV, benches/results/<machine>/<date>-c-abi-<run>.csv
(the machine's name and the file's as benches/summarize.py makes them; the date is
the run's): one row per input and contender with the bytes per call, the median time
per call in ns, GB/s and the coefficient of variation over the repetitions (%).

With --sizes, RESULTS_DIR is what `run.sh --sizes` wrote (ASCII and mixed text of every
length from 1 to 512 bytes, three contenders): per range of lengths, the fastest and
slowest median ns per call of utf8_validate, utf8_first_error and simdutf::validate_utf8,
and the lowest ratio ours/simdutf in the range with its length; CSV c-abi-sizes-<run>.

--smoke only checks that every input has every contender (a smoke run's timings are
too short to quote), prints no numbers and writes no CSV.
"""

import importlib.util
import json
import math
import sys
from pathlib import Path
from statistics import median

# machine() and write_csv() of benches/summarize.py (a module of the same name as this
# file, so loaded by its path).
_spec = importlib.util.spec_from_file_location(
    "bench_summarize", Path(__file__).resolve().parent.parent / "summarize.py")
bench_summarize = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_summarize)

CONTENDERS = [
    ("ours_validate", "validate"),
    ("ours_first_error", "first_error"),
    ("simdutf_validate", "simdutf"),
    ("simdutf_with_errors", "simdutf w/e"),
    ("glib", "glib"),
    ("iconv", "iconv"),
    ("memchr", "memchr"),
]
# (label, numerator, denominator): the numerator's speed over the denominator's.
RATIOS = [
    ("ours/simdutf", "ours_validate", "simdutf_validate"),
    ("ours/glib", "ours_validate", "glib"),
    ("ours/memchr", "ours_validate", "memchr"),
    ("fe/val", "ours_first_error", "ours_validate"),
    ("fe/simdutf w/e", "ours_first_error", "simdutf_with_errors"),
]
# The contenders of a --sizes run, and its ranges of lengths (each route's threshold,
# 16/32/64 bytes for the vectors, 64 and 256 for blocks, falls at a range's edge).
SIZE_CONTENDERS = CONTENDERS[:3] + [("ours_inline", "inline"), ("hand_rolled", "hand-rolled")]
SIZE_RANGES = [(1, 3), (4, 7), (8, 15), (16, 31), (32, 63), (64, 64), (65, 128), (129, 255),
               (256, 256), (257, 512)]
RUNS = [
    ("default", "Default back end"),
    ("avx2", "AVX2 back end forced (UTF8VALIDATE_BACKEND=avx2, SIMDUTF_FORCE_IMPLEMENTATION=haswell)"),
]
TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path):
    """(context, {input: {contender: (ns per call, bytes, cv or None)}})"""
    doc = json.loads(path.read_text())
    medians, cvs, singles = {}, {}, {}
    for b in doc["benchmarks"]:
        run_name = b.get("run_name", b["name"])
        if "/" not in run_name:
            continue
        ns = b["real_time"] * TO_NS[b.get("time_unit", "ns")]
        key = tuple(run_name.split("/", 1))
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = (ns, int(b["bytes"]))
            elif b.get("aggregate_name") == "cv":
                cvs[key] = b["real_time"]  # a fraction (aggregate_unit "percentage")
        else:
            singles.setdefault(key, []).append((ns, int(b["bytes"])))
    results = {}
    for key, (ns, size) in medians.items():
        results.setdefault(key[0], {})[key[1]] = (ns, size, cvs.get(key))
    # Without repetitions (a smoke run), the single iteration run.
    for key, runs in singles.items():
        if key not in medians:
            ns, size = sorted(runs)[len(runs) // 2]
            results.setdefault(key[0], {})[key[1]] = (ns, size, None)
    return doc.get("context", {}), results


def order(name):
    kinds = ["corpus-", "wiki-", "gen-", "short-"]
    for i, k in enumerate(kinds):
        if name.startswith(k):
            if k == "short-":
                kind, n = name[len(k):].rsplit("-", 1)
                return (i, kind != "ascii", int(n), name)
            return (i, False, 0, name)
    return (len(kinds), False, 0, name)


def is_short(name):
    return name.startswith("short-")


def is_non_ascii_lipsum(name):
    return name.startswith("corpus-") and name.endswith("-Lipsum") and "Latin" not in name


def speed(row, contender):
    ns, size, _ = row[contender]
    return size / ns  # bytes per ns = GB/s; for ratios, any speed unit does


def ratio(row, num, den):
    return speed(row, num) / speed(row, den)


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def check_complete(name, results, contenders=CONTENDERS):
    missing = [f"{i}/{c}" for i in results for c, _ in contenders if c not in results[i]]
    if missing:
        sys.exit(f"{name}: missing results: {', '.join(missing[:10])}")


def table(results):
    lines = []
    head = ["input"] + [short for _, short in CONTENDERS] + [label for label, _, _ in RATIOS]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for name in sorted(results, key=order):
        row = results[name]
        cells = [name]
        for c, _ in CONTENDERS:
            if is_short(name):
                cells.append(f"{row[c][0]:.1f} ns")
            else:
                cells.append(f"{speed(row, c):.2f}")
        cells += [f"{ratio(row, n, d):.2f}x" for _, n, d in RATIOS]
        lines.append("| " + " | ".join(cells) + " |")
    for label, pick in [
        ("geomean, non-ASCII lipsum", is_non_ascii_lipsum),
        ("min, non-ASCII lipsum", is_non_ascii_lipsum),
        ("geomean, wikipedia", lambda n: n.startswith("wiki-")),
    ]:
        names = [n for n in results if pick(n)]
        if not names:
            continue
        agg = min if label.startswith("min") else geomean
        cells = [f"**{label} ({len(names)})**"]
        for c, _ in CONTENDERS:
            cells.append(f"{agg(speed(results[n], c) for n in names):.2f}")
        cells += [f"**{agg(ratio(results[n], num, den) for n in names):.2f}x**"
                  for _, num, den in RATIOS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def csv_rows(results):
    """One row per input and contender, in the table's order."""
    rows = [["input", "contender", "bytes", "ns_per_call", "gb_per_s", "cv_percent"]]
    for name in sorted(results, key=order):
        for c, _ in CONTENDERS:
            ns, size, cv = results[name][c]
            rows.append([name, c, size, f"{ns:.3f}", f"{size / ns:.3f}",
                         "" if cv is None else f"{100 * cv:.1f}"])
    return rows


def rows_in(results, kind, lo, hi):
    """The results of a --sizes run for `kind` of text ("ascii", "mixed") at each
    length from lo to hi that was measured."""
    return [results[f"size-{kind}-{n}"] for n in range(lo, hi + 1)
            if f"size-{kind}-{n}" in results]


def sizes_table(results):
    """The --sizes table: per range of lengths and kind of text, the median over the
    range's lengths of each contender's time per call, and of ours/simdutf's speed,
    with the number of lengths at which ours is the faster. Medians, as one length's
    time moves by a fifth from run to run on a shared VM."""
    head = ["bytes"]
    for kind in ["ASCII", "mixed"]:
        head += [f"{kind}: validate", "first_error", "simdutf", "ours/simdutf (faster at)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lo, hi in SIZE_RANGES:
        cells = [str(lo) if lo == hi else f"{lo}-{hi}"]
        for kind in ["ascii", "mixed"]:
            rows = rows_in(results, kind, lo, hi)
            if not rows:
                cells += ["-"] * 4
                continue
            for c, _ in SIZE_CONTENDERS[:3]:
                cells.append(f"{median(row[c][0] for row in rows):.1f}")
            ratios = [ratio(row, "ours_validate", "simdutf_validate") for row in rows]
            faster = sum(r > 1 for r in ratios)
            cells.append(f"{median(ratios):.2f}x ({faster}/{len(ratios)})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def inline_table(results):
    """The short-string table of a --sizes run: per range of lengths up to 64 bytes and
    kind of text, the median over the range's lengths of utf8_validate,
    utf8_validate_inline and the hand-rolled check, and at how many lengths the inline
    function is at least as fast as the hand-rolled check."""
    head = ["bytes"]
    for kind in ["ASCII", "mixed"]:
        head += [f"{kind}: validate", "inline", "hand-rolled", "inline <= hand-rolled at"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lo, hi in [(1, 8), (9, 16), (17, 32), (33, 64)]:
        cells = [f"{lo}-{hi}"]
        for kind in ["ascii", "mixed"]:
            rows = rows_in(results, kind, lo, hi)
            if not rows or any(c not in row for row in rows for c in ("ours_inline", "hand_rolled")):
                cells += ["-"] * 4
                continue
            for c in ("ours_validate", "ours_inline", "hand_rolled"):
                cells.append(f"{median(row[c][0] for row in rows):.1f}")
            at_most = sum(row["ours_inline"][0] <= row["hand_rolled"][0] for row in rows)
            cells.append(f"{at_most}/{len(rows)}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def sizes_csv_rows(results):
    rows = [["input", "contender", "bytes", "ns_per_call", "cv_percent"]]
    for kind in ["ascii", "mixed"]:
        for n in range(1, 513):
            row = results.get(f"size-{kind}-{n}")
            if not row:
                continue
            for c, _ in SIZE_CONTENDERS:
                ns, size, cv = row[c]
                rows.append([f"size-{kind}-{n}", c, size, f"{ns:.3f}",
                             "" if cv is None else f"{100 * cv:.1f}"])
    return rows


def noise(results, contenders=CONTENDERS):
    cvs = [(row[c][2], f"{name}/{c}") for name, row in results.items() for c, _ in contenders
           if row.get(c) and row[c][2] is not None]
    if not cvs:
        return ""
    cvs.sort()
    med = cvs[len(cvs) // 2][0]
    worst = cvs[-1]
    return (f"Spread over the repetitions (coefficient of variation of the time per call): "
            f"median {100 * med:.1f}%, largest {100 * worst[0]:.1f}% ({worst[1]}).")


def main():
    args = sys.argv[1:]
    smoke = "--smoke" in args
    sizes = "--sizes" in args
    args = [a for a in args if a not in ("--smoke", "--sizes")]
    contenders = SIZE_CONTENDERS if sizes else CONTENDERS
    if len(args) != 1:
        sys.exit(__doc__)
    root = Path(args[0])
    runs = [(key, title, root / f"{key}.json") for key, title in RUNS if (root / f"{key}.json").exists()]
    if not runs:
        sys.exit(f"no default.json or avx2.json in {root}; run benches/c-abi/run.sh first")
    commit_file = root / "commit.txt"
    commit = commit_file.read_text().strip() if commit_file.exists() else "unknown"
    machine_file = root / "machine.txt"
    machine = machine_file.read_text().split("\n") if machine_file.exists() else []
    machine = "; ".join(line.strip() for line in machine if line.strip())

    if smoke:
        for key, _, path in runs:
            _, results = load(path)
            check_complete(key, results, contenders)
            print(f"smoke ({key}): {len(results)} inputs x {len(contenders)} contenders ran "
                  f"(timings too short to quote)")
        return

    first = True
    for key, title, path in runs:
        context, results = load(path)
        check_complete(key, results, contenders)
        if first:
            kind = {"Data": "d", "Instruction": "i"}
            caches = ", ".join(f"L{c['level']}{kind.get(c['type'], '')} {c['size'] // 1024} KiB"
                               for c in context.get("caches", []))
            print(f"Commit {commit}; {context.get('date', '?')}; host {context.get('host_name', '?')}, "
                  f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz "
                  f"({caches}); {context.get('compiler', '?')}; utf8validate "
                  f"{context.get('utf8validate_version', '?')}; simdutf "
                  f"{context.get('simdutf_version', '?')}; GLib {context.get('glib_version', '?')}; "
                  f"glibc {context.get('glibc_version', '?')}.")
            if machine:
                print(f"Machine: {machine}.")
            load_avg = context.get("load_avg")
            if load_avg:
                print(f"Load average when the first run started: "
                      f"{', '.join(f'{x:.2f}' for x in load_avg)}.")
            print()
            if sizes:
                print("ns per call, the median of the repetitions; each cell the median "
                      "over the lengths of its range. Ratio: the median over those lengths "
                      "of ours/simdutf's speed (above 1: ours is faster), and at how many "
                      "of them ours is the faster.\n")
            else:
                print("GB/s (1 GB = 10^9 bytes), short inputs in ns per call; the median of "
                      "the repetitions. Ratios: the first contender's speed over the second's "
                      "(above 1: ours is faster).\n")
            first = False
        print(f"### {title}\n")
        print(f"utf8validate back end: {context.get('utf8validate_backend', '?')}; simdutf "
              f"kernel: {context.get('simdutf_implementation', '?')}.\n")
        print(sizes_table(results) if sizes else table(results))
        if sizes:
            print("\nShort strings: the header's utf8_validate_inline against a hand-rolled "
                  "8-bytes-at-a-time ASCII test that calls utf8_validate for the rest:\n")
            print(inline_table(results))
        spread = noise(results, contenders)
        if spread:
            print(f"\n{spread}")
        print()
    for key, _, path in runs:
        context, results = load(path)
        name, rows = (f"c-abi-sizes-{key}", sizes_csv_rows(results)) if sizes else \
            (f"c-abi-{key}", csv_rows(results))
        bench_summarize.write_csv(name, rows,
                                  date=context.get("date", "")[:10] or None)


if __name__ == "__main__":
    main()
