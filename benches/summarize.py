#!/usr/bin/env python3
"""Turns criterion's results for `cargo bench -p utf8validate-bench` into tables.

Usage: python3 benches/summarize.py [--chunks] [--csv NAME] [CRITERION_DIR...]
(default CRITERION_DIR: $CARGO_TARGET_DIR/criterion, else target/criterion; with
several directories, rounds of the same benchmark, each contender's fastest round).

For every input: GB/s (1 GB = 1e9 bytes) of each contender, from criterion's median
time per call, and the ratio of utf8_validate to each peer (>1 means ours is faster).
Short inputs are shown in ns per call. Then checks against the performance targets,
and the `render` benchmark (escape_into and replace_into against
String::from_utf8_lossy) in MB/s, and the `chunks` benchmark (data in chunks) in GB/s,
when they have run.

The numbers are also written as CSV to benches/results/<machine>/<date>-<name>.csv
(see machine()): the peers benchmark as `peers-<back end>` (one row per input and
contender: bytes, median ns per call, GB/s), or with --chunks only the chunks table,
as `chunks-<back end>`. The back end is $UTF8VALIDATE_BACKEND or `default`;
--csv NAME names the file instead.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import re
import sys
from pathlib import Path

OURS = "utf8validate_validate"
OURS_FE = "utf8validate_first_error"
PEERS = ["std", "simdutf8_basic", "simdutf8_compat", "simdutf", "memchr_ceiling"]
AVX2 = "utf8validate_avx2_validate"
COLUMNS = [OURS, OURS_FE, AVX2] + PEERS
SHORT = {
    OURS: "validate",
    OURS_FE: "first_error",
    AVX2: "ours avx2",
    "std": "std",
    "simdutf8_basic": "s8 basic",
    "simdutf8_compat": "s8 compat",
    "simdutf": "simdutf",
    "memchr_ceiling": "memchr",
}


def load(root):
    """{group: {function: (median ns, bytes)}}, the results of each group's last run.

    Criterion keeps a function's result until that function runs again, and a run
    with the AVX2 back end forced does not run `utf8validate_avx2_validate` (it is
    then the same as `utf8validate_validate`). So a result written before the
    group's `utf8validate_validate`, which every run measures first in every group
    of the peers benchmark, is from an earlier run and is left out: it would show
    an old measurement beside the new ones.
    """
    results, written = {}, {}
    for est in sorted(root.glob("*/*/new/estimates.json")):
        bench = json.loads((est.parent / "benchmark.json").read_text())
        group = bench["group_id"]
        function = bench["function_id"]
        median = json.loads(est.read_text())["median"]["point_estimate"]
        size = (bench.get("throughput") or {}).get("Bytes", 0)
        results.setdefault(group, {})[function] = (median, size)
        written.setdefault(group, {})[function] = est.stat().st_mtime
    for group, times in written.items():
        first = times.get(OURS)
        if first is None:
            continue
        for function, when in times.items():
            if when < first:
                del results[group][function]
    return results


def gbps(ns, size):
    return size / ns  # bytes per ns == GB/s


def order(group):
    kinds = ["corpus-", "wiki-", "gen-", "short-"]
    for i, k in enumerate(kinds):
        if group.startswith(k):
            if k == "short-":
                kind, n = group[len(k):].rsplit("-", 1)
                return (i, kind, int(n))
            return (i, group, 0)
    return (len(kinds), group, 0)


def machine():
    """A short name for this machine's CPU, for benches/results/<machine>/: the model
    name, then on x86 the family and model numbers (e.g. `amd-epyc-f25m17`), which
    tell apart the CPUs that a VM gives one model name; on Arm, the implementer and
    part numbers."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep:
                    info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = (info.get("model name") or platform.machine() or "unknown").lower()
    name = re.sub(r"\((r|tm)\)|@.*|\bcpu\b|\bprocessor\b|\b\d+-core\b", " ", name)
    parts = re.sub(r"[^a-z0-9.]+", " ", name).split()
    if "cpu family" in info and "model" in info:
        parts.append(f"f{info['cpu family']}m{info['model']}")
    elif "CPU implementer" in info and "CPU part" in info:
        parts.append(f"i{info['CPU implementer'].removeprefix('0x')}"
                     f"p{info['CPU part'].removeprefix('0x')}")
    return "-".join(parts)


def write_csv(name, rows, date=None):
    """benches/results/<machine>/<date>-<name>.csv with `rows` (header first); `date`
    (YYYY-MM-DD) is the run's, today's by default."""
    out = Path(__file__).parent / "results" / machine()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{date or datetime.date.today().isoformat()}-{name}.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    print(f"(written: {path})", file=sys.stderr)


def peers_rows(results, groups):
    """The peers benchmark as CSV rows: one per input and contender (in the table's
    order), with criterion's median time per call."""
    rows = [["input", "contender", "bytes", "ns_per_call", "gb_per_s"]]
    rank = {c: i for i, c in enumerate(COLUMNS)}
    for g in groups:
        for function, (ns, size) in sorted(results[g].items(),
                                           key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])):
            rows.append([g, function, size, f"{ns:.3f}", f"{gbps(ns, size):.3f}"])
    return rows


def arguments():
    parser = argparse.ArgumentParser(
        description="Tables (and a CSV file) from criterion's results for "
                    "`cargo bench -p utf8validate-bench`.")
    parser.add_argument("--chunks", action="store_true",
                        help="only the chunks benchmark's table and CSV")
    parser.add_argument("--csv", metavar="NAME",
                        help="the CSV file's name (default: peers-<back end> or "
                             "chunks-<back end>, from $UTF8VALIDATE_BACKEND)")
    parser.add_argument("criterion_dir", nargs="*", type=Path,
                        default=[Path(os.environ.get("CARGO_TARGET_DIR", "target")) / "criterion"],
                        help="criterion's output (default: $CARGO_TARGET_DIR/criterion, "
                             "else target/criterion); with several, rounds of the same "
                             "benchmark, each contender's fastest median among them")
    return parser.parse_args()


def fastest(rounds):
    """The results of several rounds of one benchmark merged: for every group and
    contender, the round with the lowest median time. On a shared VM whose speed
    changes every few seconds, the best of a few rounds leaves out the slow spells,
    for every contender alike."""
    merged = {}
    for results in rounds:
        for group, functions in results.items():
            for function, (median, size) in functions.items():
                best = merged.setdefault(group, {}).get(function)
                if best is None or median < best[0]:
                    merged[group][function] = (median, size)
    return merged


def main():
    args = arguments()
    only_chunks = args.chunks
    # The CSV's name: --csv NAME, else the benchmark and the back end it ran with
    # (UTF8VALIDATE_BACKEND, when it is set for this command too).
    run = os.environ.get("UTF8VALIDATE_BACKEND") or "default"
    csv_name = args.csv or f"{'chunks' if only_chunks else 'peers'}-{run}"
    roots = args.criterion_dir
    results = fastest(load(root) for root in roots)
    if not results:
        sys.exit(f"no criterion results under {', '.join(map(str, roots))}; "
                 "run `cargo bench -p utf8validate-bench` first")
    if only_chunks:
        rows = chunks_table(results)
        if rows:
            write_csv(csv_name, rows)
        return

    groups = sorted((g for g in results if OURS in results[g]), key=order)
    header = "| input | " + " | ".join(SHORT[c] for c in COLUMNS) + " | " + " | ".join(
        f"ours/{SHORT[p]}" for p in PEERS) + " | fe/val | avx2/s8 basic |"
    print("GB/s (short inputs: ns per call); ratios are utf8_validate over the peer's "
          "speed (>1: ours faster); fe/val is utf8_first_error over utf8_validate; "
          "'ours avx2' is our AVX2 back end forced (the like-for-like comparison with "
          "simdutf8, whose fastest back end is AVX2), avx2/s8 basic its ratio.\n")
    print(header)
    print("|" + "---|" * (1 + len(COLUMNS) + len(PEERS) + 2))
    for g in groups:
        r = results[g]
        ours_ns, size = r[OURS]
        short = g.startswith("short-")
        cells = []
        for c in COLUMNS:
            if c not in r:
                cells.append("-")
            elif short:
                cells.append(f"{r[c][0]:.1f} ns")
            else:
                cells.append(f"{gbps(*r[c]):.2f}")
        ratios = [f"{r[p][0] / ours_ns:.2f}x" if p in r else "-" for p in PEERS]
        fe = f"{ours_ns / r[OURS_FE][0]:.2f}x" if OURS_FE in r else "-"
        avx2 = f"{r['simdutf8_basic'][0] / r[AVX2][0]:.2f}x" if AVX2 in r and "simdutf8_basic" in r else "-"
        print(f"| {g} | " + " | ".join(cells) + " | " + " | ".join(ratios) + f" | {fe} | {avx2} |")

    # The performance targets.
    def ratio(g, peer, ours=OURS):
        return results[g][peer][0] / results[g][ours][0]

    print("\nTargets:")
    lipsum = [g for g in groups if g.startswith("corpus-") and "Latin" not in g]
    if lipsum:
        rs = [ratio(g, "simdutf8_basic") for g in lipsum]
        geo = math.exp(sum(map(math.log, rs)) / len(rs))
        print(f"- non-ASCII lipsum vs simdutf8::basic: geomean {geo:.2f}x (target >= 1.2), "
              f"min {min(rs):.2f}x (target >= 1.0)")
        if all(AVX2 in results[g] for g in lipsum):
            rs = [results[g]["simdutf8_basic"][0] / results[g][AVX2][0] for g in lipsum]
            geo = math.exp(sum(map(math.log, rs)) / len(rs))
            print(f"  (our AVX2 back end alone: geomean {geo:.2f}x, min {min(rs):.2f}x)")
    nonascii_wiki = [g for g in groups if g.startswith("wiki-")]
    if nonascii_wiki:
        rs = [ratio(g, "simdutf8_basic") for g in nonascii_wiki]
        print(f"- wikipedia_mars vs simdutf8::basic: min {min(rs):.2f}x, "
              f"geomean {math.exp(sum(map(math.log, rs)) / len(rs)):.2f}x")
    for g in [g for g in groups if "Latin" in g or g == "gen-ascii-1MiB"]:
        print(f"- ASCII {g}: {ratio(g, 'simdutf8_basic'):.2f}x simdutf8::basic (target >= 1.0), "
              f"{ratio(g, 'memchr_ceiling'):.2f}x memchr ceiling (target >= 0.8)")
    valid = [g for g in groups if not g.startswith("short-") and "error" not in g]
    fe_val = [results[g][OURS][0] / results[g][OURS_FE][0] for g in valid]
    fe_compat = [ratio(g, "simdutf8_compat", OURS_FE) for g in valid]
    if valid:
        print(f"- first_error / validate on valid inputs: min {min(fe_val):.2f}x "
              f"(target >= 0.95); first_error / simdutf8::compat: min {min(fe_compat):.2f}x, "
              f"geomean {math.exp(sum(map(math.log, fe_compat)) / len(fe_compat)):.2f}x "
              "(target >= 1.2)")
    for g in [g for g in groups if g.startswith("short-") and order(g)[2] in (16, 64)]:
        r = results[g]
        worst = min(r[p][0] for p in PEERS if p != "memchr_ceiling" and p in r)
        print(f"- {g}: ours {r[OURS][0]:.1f} ns, first_error {r[OURS_FE][0]:.1f} ns, "
              f"fastest peer {worst:.1f} ns ({'met' if r[OURS][0] < worst else 'NOT met'})")

    render_table(results)
    chunks_table(results)
    if groups:
        write_csv(csv_name, peers_rows(results, groups))


def ratio_table(results, prefix, key, intro, first, columns, value, ratios):
    """The groups named `prefix`..., if any, sorted by `key`: one row each with
    `value(median ns, bytes)` of every function in `columns`, then each ratio
    `(label, ours, peer)` as the peer's time over ours (>1: ours is faster)."""
    groups = sorted((g for g in results if g.startswith(prefix)), key=key)
    if not groups:
        return
    print(intro)
    labels = [label for label, _, _ in ratios]
    print(f"| {first} | " + " | ".join(columns + labels) + " |")
    print("|" + "---|" * (1 + len(columns) + len(ratios)))
    for g in groups:
        r = results[g]
        cells = [value(*r[f]) if f in r else "-" for f in columns]
        cells += [f"{r[peer][0] / r[ours][0]:.2f}x" if ours in r and peer in r else "-"
                  for _, ours, peer in ratios]
        print(f"| {g} | " + " | ".join(cells) + " |")


CHUNK_COLUMNS = ["utf8validate_whole", "utf8validate_chunk", "utf8validate_stream",
          "simdutf8_streaming", "simdutf8_chunked"]


def chunks_table(results):
    """The `chunks` benchmark's groups (chunks-<input>-<chunk>), if any: GB/s of each
    contender, chunk over the faster of simdutf8's two streaming validators, stream
    over chunk, and chunk over utf8_validate on the whole input."""
    groups = sorted((g for g in results if g.startswith("chunks-")),
                    key=lambda g: (g.rsplit("-", 1)[0], int(g.rsplit("-", 1)[1])))
    if not groups:
        return []
    print("\nData in chunks, GB/s; ratios over the faster of simdutf8's two streaming "
          "validators (>1: ours is faster), stream over chunk, chunk over whole:\n")
    print("| input | bytes | whole | chunk | stream | s8 streaming | s8 chunked | "
          "chunk/s8 | stream/s8 | stream/chunk | chunk/whole |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for g in groups:
        r = results[g]
        name, size = g[len("chunks-"):].rsplit("-", 1)
        speed = {f: gbps(*r[f]) for f in CHUNK_COLUMNS if f in r}
        peers = [speed[f] for f in ("simdutf8_streaming", "simdutf8_chunked") if f in speed]
        best = max(peers) if peers else None
        def ratio(a, b):
            return f"{a / b:.2f}x" if a is not None and b else "-"
        chunk, stream, whole = (speed.get(f) for f in
                                ("utf8validate_chunk", "utf8validate_stream", "utf8validate_whole"))
        cells = [f"{speed[f]:.2f}" if f in speed else "-" for f in CHUNK_COLUMNS]
        print(f"| {name} | {size} | " + " | ".join(cells) + " | " +
              " | ".join([ratio(chunk, best), ratio(stream, best), ratio(stream, chunk),
                          ratio(chunk, whole)]) + " |")
        rows.append([name, size] + [f"{speed[f]:.3f}" if f in speed else "" for f in CHUNK_COLUMNS])
    return [["input", "chunk_bytes"] + CHUNK_COLUMNS] + rows


def render_table(results):
    """The `render` benchmark's groups (render-<input>), if any, in MB/s."""
    ratio_table(
        results, "render-", lambda g: g,
        "\nescape_into / replace_into against String::from_utf8_lossy, MB/s "
        "(ratios: >1 means ours is faster):\n",
        "input",
        ["escape_into", "replace_into", "std_from_utf8_lossy"],
        lambda ns, size: f"{gbps(ns, size) * 1000:.0f}",
        [("escape/lossy", "escape_into", "std_from_utf8_lossy"),
         ("replace/lossy", "replace_into", "std_from_utf8_lossy")])


if __name__ == "__main__":
    main()
