//! Short strings (1-64 bytes) from Rust: `utf8validate_core::validate` against
//! `smoothutf8::verify` (inlined in the caller, as a Rust user gets it) and
//! `core::str::from_utf8`, for every length 1..=64 of ASCII and of mixed text
//! (1-, 2- and 3-byte characters, well-formed, ending on a character boundary).
//!
//! Not criterion: at ~1 ns a call the question is a fraction of a nanosecond, on a
//! machine that others share. So a plain harness: each sample times `BATCH` calls
//! with `Instant` (its own cost, ~25 ns, is under 0.5% of a batch); the functions
//! take turns, sample by sample (alternating rounds, so that a noisy moment hits
//! them all alike); and the answer is the minimum over `ROUNDS` samples, the one
//! least disturbed. Each function is timed in a loop of its own, monomorphised, with
//! the function inlined where it can be (`smoothutf8::verify`, `from_utf8`) and
//! `black_box` on the input and the answer. `baseline` is that loop with no check
//! (`!black_box(input).is_empty()`): the floor that every figure includes.
//!
//! Each input sits at the start of its own 64-byte-aligned block, so no 64-byte
//! load from it crosses a page (the AVX-512 back end's masked load stays in its page).
//!
//! Run: `cargo bench -p utf8validate-bench --bench short`; env `SHORT_ROUNDS`
//! (default 300), `SHORT_BATCH` (calls per sample, default 4000), `SHORT_CSV=1`
//! for one line per length and function instead of the summary tables.
//! `CARGO_PROFILE_BENCH_LTO=off CARGO_PROFILE_BENCH_CODEGEN_UNITS=16` builds it as a
//! Rust user's release profile would (the workspace's has fat LTO, which can inline
//! across crates).

use std::hint::black_box;
use std::time::Instant;

/// An input at the start of its own 64-byte-aligned block.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Block([u8; 64]);

/// The functions timed, in table order.
const NAMES: [&str; 4] = ["core", "smoothutf8", "from_utf8", "baseline"];

/// `len` bytes of ASCII words.
fn ascii(len: usize) -> Vec<u8> {
    let text =
        b"The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs.";
    text[..len].to_vec()
}

/// `len` bytes of text mixing 1-, 2- and 3-byte characters, starting with a
/// non-ASCII one where it fits; when the next character does not fit, the one of
/// exactly the bytes left (`a` or `é`) ends it. Length 1 is necessarily ASCII.
fn mixed(len: usize) -> Vec<u8> {
    let cycle = ["é", "a", "€", "ß", " ", "中", "x", "ñ", "文", "y"];
    let mut out = String::new();
    for c in cycle.iter().cycle() {
        let left = len - out.len();
        if left == 0 {
            break;
        }
        if c.len() <= left {
            out.push_str(c);
        } else {
            out.push_str(if left == 1 { "a" } else { "é" });
        }
    }
    assert_eq!(out.len(), len);
    out.into_bytes()
}

/// Nanoseconds for `batch` calls of `f` on `input`.
#[inline(never)]
fn time<F: Fn(&[u8]) -> bool>(f: F, input: &[u8], batch: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..batch {
        black_box(f(black_box(input)));
    }
    start.elapsed().as_nanos() as f64
}

/// One sample of function `which` (index into [`NAMES`]): ns per call.
fn sample(which: usize, input: &[u8], batch: u32) -> f64 {
    let ns = match which {
        0 => time(utf8validate_core::validate, input, batch),
        1 => time(smoothutf8::verify, input, batch),
        2 => time(|b| core::str::from_utf8(b).is_ok(), input, batch),
        _ => time(|b| !b.is_empty(), input, batch),
    };
    ns / f64::from(batch)
}

fn env_or(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else to parse.
    let rounds = env_or("SHORT_ROUNDS", 300);
    let batch = env_or("SHORT_BATCH", 4000);
    let csv = std::env::var_os("SHORT_CSV").is_some();

    let kinds = ["ascii", "mixed"];
    let mut blocks: Vec<Block> = Vec::new();
    for kind in 0..2 {
        for len in 1..=64 {
            let bytes = if kind == 0 { ascii(len) } else { mixed(len) };
            assert!(core::str::from_utf8(&bytes).is_ok());
            let mut block = Block([0; 64]);
            block.0[..len].copy_from_slice(&bytes);
            blocks.push(block);
        }
    }
    let input = |kind: usize, len: usize| &blocks[kind * 64 + len - 1].0[..len];
    for kind in 0..2 {
        for len in 1..=64 {
            let b = input(kind, len);
            assert!(utf8validate_core::validate(b) && smoothutf8::verify(b));
        }
    }

    // best[kind][len - 1][function]
    let mut best = vec![vec![[f64::INFINITY; 4]; 64]; 2];
    for _ in 0..rounds / 10 {
        for which in 0..4 {
            black_box(sample(which, input(0, 64), batch));
        }
    }
    for round in 0..rounds as usize {
        for (kind, per_len) in best.iter_mut().enumerate() {
            for (index, slots) in per_len.iter_mut().enumerate() {
                let len = index + 1;
                // A different function first in each round.
                for k in 0..4 {
                    let which = (round + len + k) % 4;
                    let ns = sample(which, input(kind, len), batch);
                    slots[which] = slots[which].min(ns);
                }
            }
        }
    }

    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!(
        "# CPU: {cpu}; back end: {}; {rounds} rounds x {batch} calls, minimum ns/call",
        utf8validate_core::backends::selected()
    );

    if csv {
        println!("kind,len,{}", NAMES.join(","));
        for (kind, name) in kinds.iter().enumerate() {
            for len in 1..=64 {
                let b = best[kind][len - 1];
                println!(
                    "{name},{len},{:.3},{:.3},{:.3},{:.3}",
                    b[0], b[1], b[2], b[3]
                );
            }
        }
    }

    println!(
        "\n| kind | bytes | core | smoothutf8 | from_utf8 | baseline | core/smooth (mean, max) | core/from_utf8 |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (kind, name) in kinds.iter().enumerate() {
        for (lo, hi) in [(1, 8), (9, 16), (17, 32), (33, 64)] {
            let rows = &best[kind][lo - 1..hi];
            let mean = |f: usize| rows.iter().map(|r| r[f]).sum::<f64>() / rows.len() as f64;
            let ratio_max = rows.iter().map(|r| r[0] / r[1]).fold(0.0, f64::max);
            let range = |f: usize| {
                let min = rows.iter().map(|r| r[f]).fold(f64::INFINITY, f64::min);
                let max = rows.iter().map(|r| r[f]).fold(0.0, f64::max);
                format!("{min:.2}-{max:.2}")
            };
            println!(
                "| {name} | {lo}-{hi} | {} | {} | {} | {} | {:.2}, {:.2} | {:.2} |",
                range(0),
                range(1),
                range(2),
                range(3),
                mean(0) / mean(1),
                ratio_max,
                mean(0) / mean(2)
            );
        }
    }

    println!("\nLengths where core is slower than smoothutf8 (by more than 2%):");
    let mut any = false;
    for (kind, name) in kinds.iter().enumerate() {
        let slow: Vec<String> = (1..=64)
            .filter(|&len| {
                let b = best[kind][len - 1];
                b[0] > b[1] * 1.02
            })
            .map(|len| {
                let b = best[kind][len - 1];
                format!("{len} ({:.2} vs {:.2})", b[0], b[1])
            })
            .collect();
        if !slow.is_empty() {
            any = true;
            println!("{name}: {}", slow.join(", "));
        }
    }
    if !any {
        println!("none");
    }
}
