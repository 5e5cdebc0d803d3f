//! Short strings (1-64 bytes), every length 1..=64 of ASCII and of mixed text (1-,
//! 2- and 3-byte characters, well-formed, ending on a character boundary), in one
//! harness:
//!
//! - from Rust: `utf8validate_core::validate`, against `smoothutf8::verify` (both
//!   inlined in the caller, as a Rust user gets them) and `core::str::from_utf8`;
//! - from C: the header's `utf8_validate_inline`, in a loop of C
//!   (`short_inline.c`, compiled at run time with the cc crate's compiler at `-O2`
//!   and linked with the static library);
//! - the C library's `utf8_validate`, called through the pointer the dynamic loader
//!   resolved in `libutf8validate.so`, as a C program calls it through its PLT.
//!
//! Not criterion: at ~1 ns a call the question is a fraction of a nanosecond, on a
//! machine that others share. So a plain harness: each sample times `BATCH` calls
//! with `Instant` (its own cost, ~25 ns, is under 0.5% of a batch); the functions
//! take turns, sample by sample (alternating rounds, so that a noisy moment hits
//! them all alike); and the answer is the minimum over `ROUNDS` samples, the one
//! least disturbed. Each function is timed in a loop of its own, monomorphised, with
//! the function inlined where it can be and `black_box` on the input and the
//! answer; the C loop passes them through memory the same way. `baseline` and
//! `c_baseline` are those loops with no check (`len != 0`): the floor that every
//! figure includes.
//!
//! Each input sits at the start of its own 64-byte-aligned block, so no 64-byte
//! load from it crosses a page (the AVX-512 back end's masked load stays in its page).
//! The inputs are there in [`COPIES`] copies, 1,088 bytes apart modulo 4 KiB, taken in
//! turn from round to round: a loop whose stack slots share an input's address bits
//! 0-11 (4K aliasing: its loads of the input wait for its stores) is slow on one copy,
//! not in every sample, so where the allocator and the stack happen to be does not
//! decide a length's minimum.
//!
//! Run: `cargo bench -p utf8validate-bench --bench short`; env `SHORT_ROUNDS`
//! (default 300), `SHORT_BATCH` (calls per sample, default 4000), `SHORT_CSV=1`
//! for one line per length and function before the table of BENCHMARKS.md.
//! `CARGO_PROFILE_BENCH_LTO=off CARGO_PROFILE_BENCH_CODEGEN_UNITS=16` builds it as a
//! Rust user's release profile would (the workspace's has fat LTO, which can inline
//! across crates).

use std::hint::black_box;
use std::time::Instant;

use utf8validate_c_tests::c_api;

/// An input at the start of its own 64-byte-aligned block.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Block([u8; 64]);

/// Copies of the inputs, used in turn from round to round.
const COPIES: usize = 4;
/// Blocks from one copy of the inputs to the next: 145 blocks (9,280 bytes, 1,088
/// modulo 4 KiB) for the 128 inputs and a gap.
const STRIDE: usize = 145;

/// The functions timed, in table order.
const NAMES: [&str; 7] = [
    "core",
    "smoothutf8",
    "from_utf8",
    "utf8_validate",
    "baseline",
    "utf8_validate_inline",
    "c_baseline",
];
/// How many functions are timed.
const FUNCTIONS: usize = NAMES.len();

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

/// A loop of `short_inline.c`: `batch` calls on `buf[..len]`.
type CLoop = unsafe extern "C" fn(*const u8, usize, u32);

/// `short_inline.c`'s one call of `utf8_validate_inline`, for checking its answers.
type CAnswer = unsafe extern "C" fn(*const u8, usize) -> bool;

/// `short_inline.c`, compiled and loaded: its two loops and its one call.
struct CLoops {
    _library: libloading::Library,
    inline: CLoop,
    baseline: CLoop,
    answer: CAnswer,
}

/// Compiles `short_inline.c` into a shared object with the static library linked in
/// (`-Bsymbolic-functions`: its calls of `utf8_validate` bound inside it, direct, as
/// in a program), and loads it.
fn c_loops() -> CLoops {
    let repo = utf8validate_c_tests::repository();
    let out = utf8validate_c_tests::scratch("short-bench").join("short_inline.so");
    let compiler = utf8validate_c_tests::c_build()
        .opt_level(2)
        .debug(false)
        .include(repo.join("include"))
        .try_get_compiler()
        .expect("the cc crate finds a C compiler");
    let status = compiler
        .to_command()
        .args(["-shared", "-fPIC", "-Wl,-Bsymbolic-functions", "-o"])
        .arg(&out)
        .arg(repo.join("benches/src/short_inline.c"))
        .arg(utf8validate_c_tests::artifact("libutf8validate.a"))
        .status()
        .expect("the C compiler runs");
    assert!(status.success(), "compiling short_inline.c failed");
    // SAFETY: our own object, with no initialisation code; the symbols have the
    // signatures of `CLoop` and `CAnswer` (short_inline.c).
    unsafe {
        let library = libloading::Library::new(&out).expect("short_inline.so loads");
        let inline = *library.get::<CLoop>(b"short_inline_loop").expect("symbol");
        let baseline = *library
            .get::<CLoop>(b"short_baseline_loop")
            .expect("symbol");
        let answer = *library
            .get::<CAnswer>(b"short_inline_answer")
            .expect("symbol");
        CLoops {
            _library: library,
            inline,
            baseline,
            answer,
        }
    }
}

/// Nanoseconds for `batch` calls in the C loop `f` on `input`.
fn time_c(f: CLoop, input: &[u8], batch: u32) -> f64 {
    let start = Instant::now();
    // SAFETY: `input` is a live slice: `len` readable bytes at its pointer.
    unsafe { f(input.as_ptr(), input.len(), batch) };
    start.elapsed().as_nanos() as f64
}

/// One sample of function `which` (index into [`NAMES`]): ns per call.
fn sample(which: usize, input: &[u8], batch: u32, c: &CLoops) -> f64 {
    let ns = match which {
        0 => time(utf8validate_core::validate, input, batch),
        1 => time(smoothutf8::verify, input, batch),
        2 => time(|b| core::str::from_utf8(b).is_ok(), input, batch),
        3 => {
            let validate = c_api::functions().utf8_validate;
            // SAFETY: `b` is a live slice: `len` readable bytes at its pointer.
            time(
                |b| unsafe { validate(b.as_ptr().cast(), b.len()) },
                input,
                batch,
            )
        }
        4 => time(|b| !b.is_empty(), input, batch),
        5 => time_c(c.inline, input, batch),
        _ => time_c(c.baseline, input, batch),
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
    let mut blocks = vec![Block([0; 64]); COPIES * STRIDE];
    for kind in 0..2 {
        for len in 1..=64 {
            let bytes = if kind == 0 { ascii(len) } else { mixed(len) };
            assert!(core::str::from_utf8(&bytes).is_ok());
            for copy in 0..COPIES {
                blocks[copy * STRIDE + kind * 64 + len - 1].0[..len].copy_from_slice(&bytes);
            }
        }
    }
    let input = |copy: usize, kind: usize, len: usize| {
        &blocks[copy * STRIDE + kind * 64 + len - 1].0[..len]
    };
    let c = c_loops();
    // Every contender gives from_utf8's answer on each input, and on it with an
    // ill-formed byte (0xFF) in its first and in its last place: a broken build of a
    // contender is reported, not timed.
    for (kind, name) in kinds.iter().enumerate() {
        for len in 1..=64 {
            let good = input(0, kind, len);
            for spoil in [None, Some(0), Some(len - 1)] {
                let mut b = good.to_vec();
                if let Some(at) = spoil {
                    b[at] = 0xFF;
                }
                let want = core::str::from_utf8(&b).is_ok();
                assert_eq!(want, spoil.is_none());
                let p = b.as_ptr();
                // SAFETY: `p` points to `b.len()` readable bytes of the live `b`.
                let from_c = unsafe {
                    [
                        (c_api::functions().utf8_validate)(p.cast(), b.len()),
                        (c.answer)(p, b.len()),
                    ]
                };
                let got = [utf8validate_core::validate(&b), smoothutf8::verify(&b)];
                assert_eq!(
                    [got[0], got[1], from_c[0], from_c[1]],
                    [want; 4],
                    "{} of {len} bytes, 0xFF at {spoil:?}: validate, smoothutf8, utf8_validate, utf8_validate_inline",
                    name
                );
            }
        }
    }

    // best[kind][len - 1][function]
    let mut best = vec![vec![[f64::INFINITY; FUNCTIONS]; 64]; 2];
    for _ in 0..rounds / 10 {
        for which in 0..FUNCTIONS {
            black_box(sample(which, input(0, 0, 64), batch, &c));
        }
    }
    for round in 0..rounds as usize {
        for (kind, per_len) in best.iter_mut().enumerate() {
            for (index, slots) in per_len.iter_mut().enumerate() {
                let len = index + 1;
                // A different function first in each round.
                for k in 0..FUNCTIONS {
                    let which = (round + len + k) % FUNCTIONS;
                    let ns = sample(which, input(round % COPIES, kind, len), batch, &c);
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
                let cells: Vec<String> = best[kind][len - 1]
                    .iter()
                    .map(|ns| format!("{ns:.3}"))
                    .collect();
                println!("{name},{len},{}", cells.join(","));
            }
        }
    }

    // The table of BENCHMARKS.md: medians over ranges of lengths, and at how many
    // lengths of each range `validate` (Rust) and `utf8_validate` (C) are at least as
    // fast as smoothutf8, a difference under TIE counting as a tie.
    const TIE: f64 = 1.01;
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    println!(
        "\n| bytes | ASCII: validate | smoothutf8 | from_utf8 | utf8_validate_inline | utf8_validate | mixed: validate | smoothutf8 | from_utf8 | utf8_validate_inline | utf8_validate | baseline: Rust, C | <= smoothutf8 at: validate, utf8_validate_inline |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (lo, hi) in [(1, 7), (8, 15), (16, 31), (32, 64)] {
        let mut cells = Vec::new();
        for per_len in &best {
            let rows = &per_len[lo - 1..hi];
            for f in [0, 1, 2, 5, 3] {
                cells.push(format!(
                    "{:.2}",
                    median(rows.iter().map(|r| r[f]).collect())
                ));
            }
        }
        let rows = || best.iter().flat_map(|per_len| &per_len[lo - 1..hi]);
        let floor = |f: usize| median(rows().map(|r| r[f]).collect());
        cells.push(format!("{:.2}, {:.2}", floor(4), floor(6)));
        let at = |f: usize| rows().filter(|r| r[f] <= r[1] * TIE).count();
        cells.push(format!("{}, {} of {}", at(0), at(5), 2 * (hi + 1 - lo)));
        println!("| {lo}-{hi} | {} |", cells.join(" | "));
    }

    for (f, who) in [(0, "validate"), (5, "utf8_validate_inline")] {
        println!("\nLengths where {who} is slower than smoothutf8 (by 1% or more):");
        let mut any = false;
        for (kind, name) in kinds.iter().enumerate() {
            let slow: Vec<String> = (1..=64)
                .filter(|&len| best[kind][len - 1][f] > best[kind][len - 1][1] * TIE)
                .map(|len| {
                    let b = best[kind][len - 1];
                    format!("{len} ({:.2} vs {:.2})", b[f], b[1])
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
}
