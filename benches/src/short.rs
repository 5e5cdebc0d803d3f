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
//! Each loop is there four times, its code starting 0, 16, 32 and 48 bytes further
//! into a 64-byte line (`phase!`, and `PLACE` in the C file): at this scale, where
//! the caller's compiler happens to put the few instructions of a short path moves
//! a length by a cycle (a path that crosses one more 64-byte line of code takes
//! one more), so one placement would time the layout of one binary, not the code.
//! Each function's figure at a length is the mean of its minima at the four
//! places; the report also compares the slowest place.
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
//! for one line per length and place (and one for their mean) before the table
//! of BENCHMARKS.md.
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
/// A function at most this many times smoothutf8's time counts as at least as fast.
const TIE: f64 = 1.01;

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

/// Places in the code at which each loop is timed (`phase!`): its code starts
/// [`PHASE_STEP`] bytes further into a 64-byte line from one phase to the next.
const PHASES: usize = 4;
/// Bytes from one phase to the next; `PHASES * PHASE_STEP` is a line. Not finer:
/// LLVM and gcc start loops on 16-byte boundaries.
const PHASE_STEP: usize = 16;

/// A loop of `short_inline.c`: `batch` calls on `buf[..len]`.
type CLoop = unsafe extern "C" fn(*const u8, usize, u32);

/// `short_inline.c`'s one call of `utf8_validate_inline`, for checking its answers.
type CAnswer = unsafe extern "C" fn(*const u8, usize) -> bool;

/// `short_inline.c`, compiled and loaded: its two loops at each phase and its one
/// call.
struct CLoops {
    _library: libloading::Library,
    inline: [CLoop; PHASES],
    baseline: [CLoop; PHASES],
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
        .arg(format!("-DPHASE_STEP={PHASE_STEP}"))
        .arg(repo.join("benches/src/short_inline.c"))
        .arg(utf8validate_c_tests::artifact("libutf8validate.a"))
        .status()
        .expect("the C compiler runs");
    assert!(status.success(), "compiling short_inline.c failed");
    // SAFETY: our own object, with no initialisation code; the symbols have the
    // signatures of `CLoop` and `CAnswer` (short_inline.c).
    unsafe {
        let library = libloading::Library::new(&out).expect("short_inline.so loads");
        let get = |name: String| -> CLoop { *library.get::<CLoop>(name.as_bytes()).expect(&name) };
        let inline = std::array::from_fn(|phase| get(format!("short_inline_loop_{phase}")));
        let baseline = std::array::from_fn(|phase| get(format!("short_baseline_loop_{phase}")));
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

/// The loops of one phase, in a module of their own: `$phase::sample(which, ..)` times
/// function `which` (index into [`NAMES`]) by its loop placed `$at * PHASE_STEP`
/// bytes past the start of a 64-byte line. A module per phase, because the
/// profile's codegen units follow modules: each phase's loops sit in a unit of
/// their own, where each contender has the one call site it has in a Rust
/// program that calls it once, and LLVM inlines it there as it would in that
/// program (with the loops of every place in one unit, smoothutf8 has a call site
/// per place there, and LLVM may call it out of line: it did with eight places).
macro_rules! phase {
    ($phase:ident, $at:expr) => {
        mod $phase {
            use super::*;

            /// Nanoseconds for `batch` calls of `f` on `input`, by a loop whose code
            /// starts after an alignment directive to a 64-byte line and
            /// `$at * PHASE_STEP` one-byte nops, run once per sample.
            #[inline(never)]
            fn time<F: Fn(&[u8]) -> bool>(f: F, input: &[u8], batch: u32) -> f64 {
                let start = Instant::now();
                #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
                // SAFETY: only nops (0x90) are emitted and run; no register, flag,
                // memory or stack is touched.
                unsafe {
                    std::arch::asm!(
                        ".p2align 6, 0x90",
                        ".rept {pad}",
                        "nop",
                        ".endr",
                        pad = const $at * PHASE_STEP,
                        options(nomem, nostack, preserves_flags),
                    );
                }
                for _ in 0..batch {
                    black_box(f(black_box(input)));
                }
                start.elapsed().as_nanos() as f64
            }

            /// One sample of function `which` by this phase's loop: ns per call.
            pub(super) fn sample(which: usize, input: &[u8], batch: u32, c: &CLoops) -> f64 {
                let ns = match which {
                    0 => time(|b| utf8validate_core::validate(b), input, batch),
                    1 => time(|b| smoothutf8::verify(b), input, batch),
                    2 => time(|b| core::str::from_utf8(b).is_ok(), input, batch),
                    3 => {
                        let validate = c_api::functions().utf8_validate;
                        // SAFETY: `b` is a live slice: `len` readable bytes at its
                        // pointer.
                        time(
                            |b| unsafe { validate(b.as_ptr().cast(), b.len()) },
                            input,
                            batch,
                        )
                    }
                    4 => time(|b| !b.is_empty(), input, batch),
                    5 => time_c(c.inline[$at], input, batch),
                    _ => time_c(c.baseline[$at], input, batch),
                };
                ns / f64::from(batch)
            }
        }
    };
}

phase!(phase_0, 0);
phase!(phase_1, 1);
phase!(phase_2, 2);
phase!(phase_3, 3);

/// One sample of function `which` by its loop at `phase`: ns per call.
fn sample_at(phase: usize, which: usize, input: &[u8], batch: u32, c: &CLoops) -> f64 {
    let sample = [
        phase_0::sample,
        phase_1::sample,
        phase_2::sample,
        phase_3::sample,
    ][phase];
    sample(which, input, batch, c)
}

/// Per kind, length and function, `reduce` of its figures at the phases.
fn over_phases(
    best: &[Vec<[[f64; FUNCTIONS]; PHASES]>],
    reduce: impl Fn([f64; PHASES]) -> f64,
) -> Vec<Vec<[f64; FUNCTIONS]>> {
    best.iter()
        .map(|per_len| {
            per_len
                .iter()
                .map(|per_phase| std::array::from_fn(|f| reduce(per_phase.map(|slots| slots[f]))))
                .collect()
        })
        .collect()
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

    // best[kind][len - 1][phase][function]: the minimum over the rounds.
    let mut best = vec![vec![[[f64::INFINITY; FUNCTIONS]; PHASES]; 64]; 2];
    for _ in 0..rounds / 10 {
        for phase in 0..PHASES {
            for which in 0..FUNCTIONS {
                black_box(sample_at(phase, which, input(0, 0, 64), batch, &c));
            }
        }
    }
    for round in 0..rounds as usize {
        for (kind, per_len) in best.iter_mut().enumerate() {
            for (index, per_phase) in per_len.iter_mut().enumerate() {
                let len = index + 1;
                for (phase, slots) in per_phase.iter_mut().enumerate() {
                    // A different function first in each round.
                    for k in 0..FUNCTIONS {
                        let which = (round + len + phase + k) % FUNCTIONS;
                        let input = input(round % COPIES, kind, len);
                        let ns = sample_at(phase, which, input, batch, &c);
                        slots[which] = slots[which].min(ns);
                    }
                }
            }
        }
    }
    // mean[kind][len - 1][function]: the mean over the phases, what a caller whose
    // compiler puts the code at any one of them can expect.
    let mean = over_phases(&best, |v| v.iter().sum::<f64>() / PHASES as f64);

    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!(
        "# CPU: {cpu}; back end: {}; {rounds} rounds x {batch} calls, minimum ns/call at each of {PHASES} places in the code; the table: their mean",
        utf8validate_core::backends::selected()
    );

    if csv {
        println!("kind,len,phase,{}", NAMES.join(","));
        let cells = |slots: &[f64; FUNCTIONS]| {
            slots
                .iter()
                .map(|ns| format!("{ns:.3}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        for (kind, name) in kinds.iter().enumerate() {
            for len in 1..=64 {
                for (phase, slots) in best[kind][len - 1].iter().enumerate() {
                    println!("{name},{len},{phase},{}", cells(slots));
                }
                println!("{name},{len},mean,{}", cells(&mean[kind][len - 1]));
            }
        }
    }

    // The table of BENCHMARKS.md: medians over ranges of lengths, and at how many
    // lengths of each range `validate` (Rust) and `utf8_validate` (C) are at least as
    // fast as smoothutf8, a difference under TIE counting as a tie.
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
        for per_len in &mean {
            let rows = &per_len[lo - 1..hi];
            for f in [0, 1, 2, 5, 3] {
                cells.push(format!(
                    "{:.2}",
                    median(rows.iter().map(|r| r[f]).collect())
                ));
            }
        }
        let rows = || mean.iter().flat_map(|per_len| &per_len[lo - 1..hi]);
        let floor = |f: usize| median(rows().map(|r| r[f]).collect());
        cells.push(format!("{:.2}, {:.2}", floor(4), floor(6)));
        let at = |f: usize| rows().filter(|r| r[f] <= r[1] * TIE).count();
        cells.push(format!("{}, {} of {}", at(0), at(5), 2 * (hi + 1 - lo)));
        println!("| {lo}-{hi} | {} |", cells.join(" | "));
    }

    // worst[kind][len - 1][function]: the slowest phase, what a caller whose
    // compiler puts the code at the worst of them gets.
    let worst = over_phases(&best, |v| v.into_iter().fold(0.0, f64::max));
    for (f, who) in [(0, "validate"), (5, "utf8_validate_inline")] {
        print_slower(who, f, "the mean over the places", &mean, &kinds);
        print_slower(who, f, "the slowest place", &worst, &kinds);
    }
}

/// Prints the lengths at which function `f` (`who`) is slower than smoothutf8 by
/// 1% or more in `figures` (per kind, length and function), or "none".
fn print_slower(
    who: &str,
    f: usize,
    what: &str,
    figures: &[Vec<[f64; FUNCTIONS]>],
    kinds: &[&str],
) {
    println!("\nLengths where {who} is slower than smoothutf8 (by 1% or more), at {what}:");
    let mut any = false;
    for (per_len, name) in figures.iter().zip(kinds) {
        let slow: Vec<String> = (1..=64)
            .filter(|&len| per_len[len - 1][f] > per_len[len - 1][1] * TIE)
            .map(|len| {
                format!(
                    "{len} ({:.2} vs {:.2})",
                    per_len[len - 1][f],
                    per_len[len - 1][1]
                )
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
