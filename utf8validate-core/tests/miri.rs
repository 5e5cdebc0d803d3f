//! A sample of the crate's tests small enough for Miri, which runs them about a
//! thousand times slower than the CPU and reports any undefined behaviour: a read
//! outside the input, an unaligned or out-of-bounds vector load, a use of
//! uninitialised memory, a violated `unsafe` contract.
//!
//! `bash .ci/miri.sh` runs it, with the crate's unit tests, once per instruction
//! set Miri can run: without target features (the scalar state machine), and with
//! SSSE3 and AVX2 turned on at compile time, which is how Miri's CPU "supports"
//! them (it has no CPUID). Natively it is one more test through every back end.
//!
//! Each back end gets inputs of every length where the vector code changes route
//! (the word tests below 16 bytes, one block of 64, two to four blocks, the tiered
//! loop over groups of 16 blocks), valid and with an ill-formed sequence of each
//! kind at the start, in the middle and at the end, whole, as chunks and as a
//! stream split at three points; then the crate's other entry points (the exact
//! error, the log-safe renderings) on the same inputs. Every answer is std's or the
//! draft's (the shared `oracle`).

mod oracle;

use oracle::{detail, expected_check, std_error, Detail, ILL_FORMED, TRUNCATED};
use utf8validate_core::backends::{self, Backend};
use utf8validate_core::{check, escape_into, first_error, replace_into, validate, State, Stream};

/// Lengths around every threshold of the vector code, and one through a whole
/// group of blocks and into the next.
const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, LONGEST,
];

/// Under Miri, a sample sized for a few minutes: fewer lengths (one on each side
/// of each route), each sequence at one of the three places in turn, and each
/// input cut at one of the three points in turn.
const MIRI_LENGTHS: &[usize] = &[0, 1, 3, 15, 16, 17, 63, 64, 65, 129, 257, LONGEST];

/// The length through a whole group of 16 blocks and into the next.
const LONGEST: usize = 1093;

/// Under Miri on a target other than x86-64 (aarch64: `.ci/miri.sh`), the code that
/// does not depend on the target is left to the x86-64 run: the scalar machine, and
/// the renderings, which reach the back end only through the entry points tested
/// here too.
const PORTABLE_CODE_LEFT_TO_X86_64: bool = cfg!(all(miri, not(target_arch = "x86_64")));

/// Well-formed text of `len` bytes with characters of 1 to 4 bytes.
fn text(len: usize) -> Vec<u8> {
    let chars = ["a", "é", "€", "😀", "ж", "中", "𝄞", " "];
    let mut out = Vec::with_capacity(len);
    for c in chars.iter().cycle() {
        if out.len() + c.len() > len {
            break;
        }
        out.extend_from_slice(c.as_bytes());
    }
    out.resize(len, b'x');
    out
}

/// The inputs: for each length, the text, and the text with each ill-formed and
/// each truncated sequence put in at its start, its middle (the nearest character
/// boundary) and its end (under Miri, at one of the three, in turn).
fn inputs() -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    let lengths = if cfg!(miri) { MIRI_LENGTHS } else { LENGTHS };
    for (l, &len) in lengths.iter().enumerate() {
        let base = text(len);
        let middle = (0..=len / 2)
            .rev()
            .find(|&i| base.get(i).is_none_or(|b| b & 0xC0 != 0x80))
            .unwrap_or(0);
        all.push(base.clone());
        // Under Miri, the longest input (the tiered loop) with every third sequence:
        // the loop's loads depend on where it meets one, not on which; every sequence
        // meets the same vector code in the shorter inputs.
        let step = if cfg!(miri) && len == LONGEST { 3 } else { 1 };
        let seqs = ILL_FORMED
            .iter()
            .step_by(step)
            .chain(TRUNCATED.iter().step_by(step));
        for (k, seq) in seqs.enumerate() {
            let places = [0, middle, len];
            let places = if cfg!(miri) {
                &places[(k + l) % 3..][..1]
            } else {
                &places[..]
            };
            for &at in places {
                let mut bytes = base.clone();
                bytes.splice(at..at, seq.iter().copied());
                all.push(bytes);
            }
        }
    }
    all
}

/// The draft's state after `bytes` from START, from std's answer and the lead
/// byte and length of a sequence cut short (as in `backends.rs`).
fn expected_state(bytes: &[u8]) -> State {
    match std_error(bytes) {
        None => State::Start,
        Some((_, Some(_))) => State::Error,
        Some((at, None)) => match (bytes[at], bytes.len() - at) {
            (0xC2..=0xDF, 1) => State::A,
            (0xE0, 1) => State::C,
            (0xED, 1) => State::D,
            (0xE1..=0xEF, 1) => State::B,
            (0xE0..=0xEF, 2) => State::A,
            (0xF0, 1) => State::F,
            (0xF4, 1) => State::G,
            (0xF1..=0xF3, 1) => State::E,
            (0xF0..=0xF4, 2) => State::B,
            (0xF0..=0xF4, 3) => State::A,
            other => panic!("std reported an impossible truncated sequence {other:?}"),
        },
    }
}

/// What the oracle says of one input, worked out once for all the back ends.
struct Expected {
    first_error: Option<usize>,
    state: State,
    check: Result<(), Detail>,
    /// No ill-formed sequence (one cut short by the end may remain).
    feed: bool,
}

impl Expected {
    fn of(bytes: &[u8]) -> Self {
        let std = std_error(bytes);
        Expected {
            first_error: std.map(|(at, _)| at),
            state: expected_state(bytes),
            check: expected_check(bytes),
            feed: !matches!(std, Some((_, Some(_)))),
        }
    }
}

/// `backend` on `bytes`: whole, as two chunks and as a stream of two chunks, split
/// at three points (under Miri, at one of them, in turn).
fn assert_backend(backend: &Backend, bytes: &[u8], want: &Expected) {
    let name = backend.name();
    assert_eq!(
        backend.first_error(bytes),
        want.first_error,
        "{name}: {bytes:02X?}"
    );
    assert_eq!(
        backend.validate(bytes),
        want.first_error.is_none(),
        "{name}: {bytes:02X?}"
    );
    let cuts = [1, bytes.len() / 2, bytes.len().saturating_sub(2)];
    let cuts = if cfg!(miri) {
        &cuts[bytes.len() % 3..][..1]
    } else {
        &cuts[..]
    };
    for &cut in cuts {
        let (a, b) = bytes.split_at(cut.min(bytes.len()));
        let state = backend.validate_chunk(backend.validate_chunk(State::Start, a), b);
        assert_eq!(state, want.state, "{name}: chunks {a:02X?} {b:02X?}");
        let mut stream = Stream::new();
        let fed = backend.feed(&mut stream, a) & backend.feed(&mut stream, b);
        assert_eq!(
            detail(stream.finish()),
            want.check,
            "{name}: stream {a:02X?} {b:02X?}"
        );
        assert_eq!(fed, want.feed, "{name}: feed");
    }
}

#[test]
fn every_back_end_at_every_threshold() {
    let backends: Vec<Backend> = backends::available()
        .filter(|b| !PORTABLE_CODE_LEFT_TO_X86_64 || b.name() != "scalar")
        .collect();
    for bytes in &inputs() {
        let want = Expected::of(bytes);
        for backend in &backends {
            assert_backend(backend, bytes, &want);
        }
    }
}

/// The crate's own entry points (the back end it picks), with the exact error and
/// the renderings, which must be the oracle's units, byte for byte.
#[test]
fn the_entry_points_and_the_renderings() {
    let mut out = vec![0u8; 8192];
    for bytes in inputs() {
        let want = expected_check(&bytes);
        assert_eq!(detail(check(&bytes)), want, "{bytes:02X?}");
        assert_eq!(validate(&bytes), want.is_ok(), "{bytes:02X?}");
        assert_eq!(
            first_error(&bytes),
            want.err().map(|e| e.offset),
            "{bytes:02X?}"
        );
        if PORTABLE_CODE_LEFT_TO_X86_64 {
            continue;
        }
        let escaped = escape_into(&bytes, &mut out);
        let want = oracle::render::escape_text(&bytes);
        assert_eq!(out[..escaped.written], want, "escape {bytes:02X?}");
        let replaced = replace_into(&bytes, &mut out);
        let want = oracle::render::replace_text(&bytes);
        assert_eq!(out[..replaced.written], want, "replace {bytes:02X?}");
    }
}
