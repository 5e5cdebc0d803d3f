//! Short strings (1-64 bytes) as a program meets them: many different strings of
//! each length, one after the other, so that no branch predictor learns one input.
//!
//! For each length 1..=64 and each kind, a pool of [`POOL`] strings, and one pool
//! of [`RANDOM_POOL`] strings of random length 1-64 per kind:
//!
//! - `ascii`: windows of the Latin lipsum (all ASCII) at random places;
//! - `mixed`: windows of the 18 Wikipedia texts (a random one each time, at a
//!   random character boundary) cut at the last character that fits and padded
//!   with ASCII spaces to the length; short ones are often all ASCII, as real
//!   text is;
//! - `ill-formed`: a mixed string with one byte replaced, at a random place, by a
//!   random byte from 0x80-0xFF that makes it ill-formed.
//!
//! The strings of a pool lie one after the other in one buffer, so they start at
//! every alignment, as fields cut out of a request do.
//!
//! Contenders, each timed by a loop over the whole pool (`POOLS_PASSES` times per
//! sample, after one pass untimed): `utf8validate_core::validate` and
//! `smoothutf8::verify` from Rust, both inlined in the caller as in a Rust user's
//! release build; the header's `utf8_validate_inline` and `utf8_validate` from C
//! (`short_inline.c`, compiled at run time with the cc crate's compiler at -O2 and
//! linked with the release static library, as a C program links it). `baseline` and
//! `c_baseline` are the loops with no check (`len != 0`): the floor every figure
//! includes. Each loop passes the string's pointer and length through an empty `asm`
//! statement before each call, and the answer after it, in registers: the compiler
//! knows neither, and nothing goes through the stack (through stack slots, as
//! `black_box` passes them, the C loops took 0.6 or 1.0 ns per call depending on
//! where the stack happened to start modulo 32 bytes in a run).
//!
//! Each loop is in the binary four times, its code starting 0, 16, 32 and 48 bytes
//! into a 64-byte line (as in `short.rs`): at 1-3 ns a call, where a compiler puts a
//! loop moves it by a cycle, and one placement would time one binary's layout.
//!
//! Samples: every contender at every place on every pool takes a turn in each round
//! (a different one first from round to round), so a noisy moment of the machine is
//! spread over all. A figure is the median ns per call over the rounds, averaged
//! over the four places; a band of lengths reports the median over its lengths and,
//! for each ratio, its median and its highest value over the lengths.
//!
//! Run, as a Rust user's release build compiles the Rust side (no LTO across crates,
//! 16 codegen units, none of this repository's rustflags; the C library is built
//! with the release profile, as C users get it):
//!
//! ```sh
//! CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=16 \
//!   cargo bench -p utf8validate-bench --bench short_pools \
//!   --config 'target.x86_64-unknown-linux-gnu.rustflags=["-Cdebuginfo=0"]'
//! ```
//!
//! env `POOLS_ROUNDS` (default 201), `POOLS_PASSES` (default 4), `POOLS_CSV=FILE`
//! writes one line per kind and length (and one per kind for the random lengths).
//! To weigh another form of the inline function: `POOLS_C_EXTRA=file.c` is compiled
//! in too, and `POOLS_EXTRA=a,b` times its loops `pool_a_loop_0` .. `_3` (in the
//! shape of `short_inline.c`'s) beside the others.

use std::time::Instant;

// Shared with the other benchmarks; this one uses the corpus and the generator.
#[allow(dead_code)]
mod inputs;
use inputs::{corpus_dir, Rng};

use utf8validate_c_tests::c_api;

/// Strings per pool of one length.
const POOL: usize = 256;
/// Strings in the pool of random lengths.
const RANDOM_POOL: usize = 512;
/// The longest length (and the longest random length).
const LONGEST: usize = 64;

/// A string of a pool, in the layout of C's `struct short_str` (short_inline.c).
#[repr(C)]
#[derive(Clone, Copy)]
struct Str {
    ptr: *const u8,
    len: usize,
}

impl Str {
    fn bytes(&self) -> &[u8] {
        // SAFETY: made from a live slice of a pool's buffer, which outlives every use.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// One pool: its strings' bytes, one after the other, and where each is.
struct Pool {
    _bytes: Vec<u8>,
    strs: Vec<Str>,
}

impl Pool {
    fn new(strings: &[Vec<u8>]) -> Pool {
        let bytes: Vec<u8> = strings.concat();
        let mut strs = Vec::with_capacity(strings.len());
        let mut at = 0;
        for s in strings {
            strs.push(Str {
                ptr: bytes[at..].as_ptr(),
                len: s.len(),
            });
            at += s.len();
        }
        Pool {
            _bytes: bytes,
            strs,
        }
    }
}

const KINDS: [&str; 3] = ["ascii", "mixed", "ill-formed"];

/// The texts the strings are cut from.
struct Texts {
    latin: Vec<u8>,
    wikipedia: Vec<Vec<u8>>,
}

fn texts() -> Texts {
    let dir = corpus_dir();
    let read = |p: std::path::PathBuf| {
        std::fs::read(&p).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (set UTF8VALIDATE_CORPUS to the corpus folder)",
                p.display()
            )
        })
    };
    let latin = read(dir.join("Latin-Lipsum.utf8.txt"));
    assert!(latin.is_ascii());
    let mut names: Vec<_> = std::fs::read_dir(dir.join("wikipedia_mars"))
        .expect("the corpus has wikipedia_mars/")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    names.sort();
    let wikipedia: Vec<_> = names.into_iter().map(read).collect();
    assert_eq!(wikipedia.len(), 18);
    Texts { latin, wikipedia }
}

fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next() % n as u64) as usize
}

/// One string of `kind` and `len` bytes.
fn string(texts: &Texts, rng: &mut Rng, kind: usize, len: usize) -> Vec<u8> {
    if kind == 0 {
        let at = below(rng, texts.latin.len() - len);
        return texts.latin[at..at + len].to_vec();
    }
    let text = &texts.wikipedia[below(rng, texts.wikipedia.len())];
    let mut at = below(rng, text.len() - 4 * len);
    while text[at] & 0xC0 == 0x80 {
        at += 1;
    }
    // The longest prefix of at most `len` bytes that ends on a character boundary.
    let mut end = at + len;
    while text[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    let mut s = text[at..end].to_vec();
    s.resize(len, b' ');
    assert!(core::str::from_utf8(&s).is_ok());
    if kind == 2 {
        let place = below(rng, len);
        loop {
            s[place] = 0x80 | rng.next() as u8;
            if core::str::from_utf8(&s).is_err() {
                break;
            }
        }
    }
    s
}

/// The functions timed, in table order.
const NAMES: [&str; 6] = [
    "validate",
    "smoothutf8",
    "utf8_validate_inline",
    "utf8_validate",
    "baseline",
    "c_baseline",
];
const FUNCTIONS: usize = NAMES.len();

/// A pool loop of `short_inline.c`: `passes` times over `count` strings.
type CPoolLoop = unsafe extern "C" fn(*const Str, usize, u32);
/// `short_inline.c`'s one call of `utf8_validate_inline`, for checking its answers.
type CAnswer = unsafe extern "C" fn(*const u8, usize) -> bool;

struct CLoops {
    _library: libloading::Library,
    inline: [CPoolLoop; PLACES],
    validate: [CPoolLoop; PLACES],
    baseline: [CPoolLoop; PLACES],
    answer: CAnswer,
    extra: Vec<(String, [CPoolLoop; PLACES])>,
}

/// Compiles `short_inline.c` into a shared object with the static library linked in
/// (`-Bsymbolic-functions`: its calls of `utf8_validate` bound inside it, direct, as
/// in a program), and loads it.
fn c_loops() -> CLoops {
    let repo = utf8validate_c_tests::repository();
    let out = utf8validate_c_tests::scratch("short-bench").join("short_pools.so");
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
        .arg(format!("-DPHASE_STEP={PLACE_STEP}"))
        .arg(repo.join("benches/src/short_inline.c"))
        .args(std::env::var_os("POOLS_C_EXTRA"))
        .arg(utf8validate_c_tests::artifact("libutf8validate.a"))
        .status()
        .expect("the C compiler runs");
    assert!(status.success(), "compiling short_inline.c failed");
    // SAFETY: our own object, with no initialisation code; the symbols have the
    // signatures of `CPoolLoop` and `CAnswer` (short_inline.c).
    unsafe {
        let library = libloading::Library::new(&out).expect("short_pools.so loads");
        let get = |name: &str| -> [CPoolLoop; PLACES] {
            std::array::from_fn(|place| {
                let name = format!("{name}_{place}");
                *library.get::<CPoolLoop>(name.as_bytes()).expect(&name)
            })
        };
        let inline = get("pool_inline_loop");
        let validate = get("pool_validate_loop");
        let baseline = get("pool_baseline_loop");
        let answer = *library
            .get::<CAnswer>(b"short_inline_answer")
            .expect("symbol");
        let extra = std::env::var("POOLS_EXTRA")
            .unwrap_or_default()
            .split(',')
            .filter(|n| !n.is_empty())
            .map(|n| (n.to_string(), get(&format!("pool_{n}_loop"))))
            .collect();
        CLoops {
            extra,
            _library: library,
            inline,
            validate,
            baseline,
            answer,
        }
    }
}

/// Places in the code at which each loop is timed: its code starts [`PLACE_STEP`]
/// bytes further into a 64-byte line from one place to the next (as in short.rs).
const PLACES: usize = 4;
/// Bytes from one place to the next.
const PLACE_STEP: usize = 16;

fn time_c(f: CPoolLoop, pool: &[Str], passes: u32) -> f64 {
    // SAFETY: every `Str` of the pool points at `len` readable bytes.
    unsafe { f(pool.as_ptr(), pool.len(), 1) };
    let start = Instant::now();
    // SAFETY: as above.
    unsafe { f(pool.as_ptr(), pool.len(), passes) };
    start.elapsed().as_nanos() as f64
}

/// The Rust loops of one place, in a module (and so a codegen unit) of their own,
/// where each contender has one call site, as in a program that calls it once.
macro_rules! place {
    ($place:ident, $at:expr) => {
        mod $place {
            use super::*;

            /// Nanoseconds for `passes` runs of `f` over `pool`, after one run
            /// untimed, by a loop whose code starts after an alignment directive
            /// to a 64-byte line and `$at * PLACE_STEP` one-byte nops.
            #[inline(never)]
            fn time<F: Fn(&[u8]) -> bool>(f: F, pool: &[Str], passes: u32) -> f64 {
                let mut start = Instant::now();
                // SAFETY: only nops (0x90) are emitted and run.
                unsafe {
                    std::arch::asm!(
                        ".p2align 6, 0x90",
                        ".rept {pad}",
                        "nop",
                        ".endr",
                        pad = const $at * PLACE_STEP,
                        options(nomem, nostack, preserves_flags),
                    );
                }
                for pass in 0..=passes {
                    if pass == 1 {
                        start = Instant::now();
                    }
                    for s in pool {
                        let (mut addr, mut len) = (s.ptr.expose_provenance(), s.len);
                        // SAFETY: an empty asm: the compiler forgets what addr and len
                        // hold, with no memory traffic; they still describe the
                        // string's live bytes, whose provenance is exposed.
                        let ok = unsafe {
                            std::arch::asm!(
                                "/* {0} {1} */",
                                inout(reg) addr,
                                inout(reg) len,
                                options(nomem, nostack, preserves_flags)
                            );
                            let ptr = std::ptr::with_exposed_provenance::<u8>(addr);
                            f(std::slice::from_raw_parts(ptr, len))
                        };
                        // SAFETY: an empty asm that takes the answer in a register.
                        unsafe {
                            std::arch::asm!(
                                "/* {0} */",
                                in(reg_byte) u8::from(ok),
                                options(nomem, nostack, preserves_flags)
                            )
                        };
                    }
                }
                start.elapsed().as_nanos() as f64
            }

            /// One sample of function `which` on `pool` by this place's loop: ns
            /// per call.
            pub(super) fn sample(which: usize, pool: &[Str], passes: u32, c: &CLoops) -> f64 {
                let ns = match which {
                    0 => time(|b| utf8validate_core::validate(b), pool, passes),
                    1 => time(|b| smoothutf8::verify(b), pool, passes),
                    2 => time_c(c.inline[$at], pool, passes),
                    3 => time_c(c.validate[$at], pool, passes),
                    4 => time(|b| !b.is_empty(), pool, passes),
                    5 => time_c(c.baseline[$at], pool, passes),
                    n => time_c(c.extra[n - FUNCTIONS].1[$at], pool, passes),
                };
                ns / (f64::from(passes) * pool.len() as f64)
            }
        }
    };
}

place!(place_0, 0);
place!(place_1, 1);
place!(place_2, 2);
place!(place_3, 3);

/// One sample of function `which` on `pool` by its loop at `place`: ns per call.
fn sample(place: usize, which: usize, pool: &[Str], passes: u32, c: &CLoops) -> f64 {
    let sample = [
        place_0::sample,
        place_1::sample,
        place_2::sample,
        place_3::sample,
    ][place];
    sample(which, pool, passes, c)
}

fn env_or(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let rounds = env_or("POOLS_ROUNDS", 201) as usize;
    let passes = env_or("POOLS_PASSES", 4);
    let texts = texts();
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);

    // pools[kind][i]: lengths 1..=64 at i = len - 1, the random lengths at i = 64.
    let pools: Vec<Vec<Pool>> = (0..KINDS.len())
        .map(|kind| {
            let mut per = Vec::new();
            for len in 1..=LONGEST {
                let strings: Vec<_> = (0..POOL)
                    .map(|_| string(&texts, &mut rng, kind, len))
                    .collect();
                per.push(Pool::new(&strings));
            }
            let strings: Vec<_> = (0..RANDOM_POOL)
                .map(|_| {
                    let len = 1 + below(&mut rng, LONGEST);
                    string(&texts, &mut rng, kind, len)
                })
                .collect();
            per.push(Pool::new(&strings));
            per
        })
        .collect();
    let c = c_loops();

    // Every contender gives from_utf8's answer on every string: a broken build of
    // a contender is reported, not timed.
    for (kind, per) in pools.iter().enumerate() {
        for s in per.iter().flat_map(|p| &p.strs) {
            let b = s.bytes();
            let want = core::str::from_utf8(b).is_ok();
            assert_eq!(want, kind != 2);
            // SAFETY: `b` is a live slice.
            let from_c = unsafe {
                [
                    (c_api::functions().utf8_validate)(b.as_ptr().cast(), b.len()),
                    (c.answer)(b.as_ptr(), b.len()),
                ]
            };
            assert_eq!(
                [
                    utf8validate_core::validate(b),
                    smoothutf8::verify(b),
                    from_c[0],
                    from_c[1]
                ],
                [want; 4],
                "{} {:02x?}: validate, smoothutf8, utf8_validate, utf8_validate_inline",
                KINDS[kind],
                b
            );
        }
    }

    let functions = FUNCTIONS + c.extra.len();
    // samples[kind][pool][place][function]: ns per call, one per round.
    let mut samples = vec![vec![vec![vec![Vec::new(); functions]; PLACES]; LONGEST + 1]; 3];
    for round in 0..rounds {
        for (per, per_kind) in pools.iter().zip(&mut samples) {
            for (i, (pool, per_pool)) in per.iter().zip(per_kind.iter_mut()).enumerate() {
                for (place, per_place) in per_pool.iter_mut().enumerate() {
                    for k in 0..functions {
                        let which = (round + i + place + k) % functions;
                        let ns = sample(place, which, &pool.strs, passes, &c);
                        per_place[which].push(ns);
                    }
                }
            }
        }
    }
    // med[kind][pool][function]: the mean over the places of the median ns per call.
    let med: Vec<Vec<Vec<f64>>> = samples
        .into_iter()
        .map(|per| {
            per.into_iter()
                .map(|mut places| {
                    (0..functions)
                        .map(|f| {
                            places
                                .iter_mut()
                                .map(|fs| median(std::mem::take(&mut fs[f])))
                                .sum::<f64>()
                                / PLACES as f64
                        })
                        .collect()
                })
                .collect()
        })
        .collect();

    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!(
        "# CPU: {cpu}; back end: {}; pools of {POOL} strings per length ({RANDOM_POOL} of random length 1-{LONGEST}); {rounds} rounds x {passes} passes; median ns/call",
        utf8validate_core::backends::selected()
    );

    if let Some(path) = std::env::var_os("POOLS_CSV") {
        let mut names: Vec<&str> = NAMES.to_vec();
        names.extend(c.extra.iter().map(|(n, _)| n.as_str()));
        let mut out = format!("kind,len,{}\n", names.join(","));
        for (kind, per) in med.iter().enumerate() {
            for (i, f) in per.iter().enumerate() {
                let len = if i < LONGEST {
                    (i + 1).to_string()
                } else {
                    "random".into()
                };
                let cells: Vec<_> = f.iter().map(|ns| format!("{ns:.3}")).collect();
                out += &format!("{},{len},{}\n", KINDS[kind], cells.join(","));
            }
        }
        std::fs::write(&path, out).expect("write the CSV");
    }

    // Per band of lengths: each contender's median over the band's lengths, and the
    // ratios' median and worst (highest) length.
    let bands: [(&str, usize, usize); 8] = [
        ("1", 1, 1),
        ("2-3", 2, 3),
        ("4-7", 4, 7),
        ("8", 8, 8),
        ("9-16", 9, 16),
        ("17-32", 17, 32),
        ("33-64", 33, 64),
        ("random", 65, 65),
    ];
    for (kind, per) in med.iter().enumerate() {
        println!(
            "\n{}: | bytes | validate | smoothutf8 | inline | utf8_validate | floor Rust, C | validate/smooth (worst) | inline/smooth (worst) | inline/utf8_validate (worst) |",
            KINDS[kind]
        );
        println!("|---|---|---|---|---|---|---|---|---|");
        for (name, lo, hi) in bands {
            let rows = &per[lo - 1..hi];
            let m = |f: usize| median(rows.iter().map(|r| r[f]).collect());
            let ratio = |a: usize, b: usize| {
                let r: Vec<f64> = rows.iter().map(|r| r[a] / r[b]).collect();
                let worst = r.iter().copied().fold(0.0, f64::max);
                format!("{:.2} ({:.2})", median(r), worst)
            };
            println!(
                "| {name} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2}, {:.2} | {} | {} | {} |",
                m(0),
                m(1),
                m(2),
                m(3),
                m(4),
                m(5),
                ratio(0, 1),
                ratio(2, 1),
                ratio(2, 3)
            );
            for (e, (ename, _)) in c.extra.iter().enumerate() {
                let f = FUNCTIONS + e;
                println!(
                    "| {name} {ename} | | | {:.2} | | | | {} | {} |",
                    m(f),
                    ratio(f, 1),
                    ratio(f, 3)
                );
            }
        }
    }

    // The targets, length by length.
    println!();
    for (kind, per) in med.iter().enumerate() {
        let over = |a: usize, b: usize, limit: f64| -> Vec<String> {
            per.iter()
                .enumerate()
                .filter(|(_, r)| r[a] > r[b] * limit)
                .map(|(i, r)| {
                    let len = if i < LONGEST {
                        (i + 1).to_string()
                    } else {
                        "random".into()
                    };
                    format!("{len} ({:.2}x)", r[a] / r[b])
                })
                .collect()
        };
        println!(
            "{}: validate slower than smoothutf8 at: {:?}",
            KINDS[kind],
            over(0, 1, 1.0)
        );
        println!(
            "{}: inline slower than smoothutf8 at: {:?}",
            KINDS[kind],
            over(2, 1, 1.0)
        );
        println!(
            "{}: inline over 1.05x utf8_validate at: {:?}",
            KINDS[kind],
            over(2, 3, 1.05)
        );
        for (e, (ename, _)) in c.extra.iter().enumerate() {
            let f = FUNCTIONS + e;
            println!(
                "{}: {ename} slower than smoothutf8 at: {:?}",
                KINDS[kind],
                over(f, 1, 1.0)
            );
            println!(
                "{}: {ename} over 1.05x utf8_validate at: {:?}",
                KINDS[kind],
                over(f, 3, 1.05)
            );
        }
    }
}
