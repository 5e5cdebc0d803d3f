//! Data in chunks through the C ABI, on every back end: `utf8_validate_chunk` and
//! `utf8_stream_init` / `utf8_stream_feed` / `utf8_stream_finish`, called through the
//! built `libutf8validate.so` (loaded with `dlopen`, `support::c_api`) exactly as a
//! C program calls them, each chunk copied into a buffer of its own (at a varying
//! address, between bytes that would change the answer if they were read).
//!
//! The back ends change route by chunk length (1-2 bytes inline, up to 64 in one
//! block, with narrower vectors below 32 and 16, up to 256 as a few blocks, longer
//! ones in the tiered loop, with 64-byte aligned blocks from 1024), by content
//! (ASCII shortcuts; tiers for text of at most 2-byte and at most 3-byte
//! sequences) and by address, and the state carried into a chunk enters each
//! route. So:
//!
//! - [`every_split_of_every_length_to_300`] (ignored, exhaustive: run it in
//!   release): text of every length 0..=300, valid, and with a sequence inserted at
//!   every position: each kind of ill-formed sequence, sequences cut short (a
//!   missing continuation before text, a truncation at the end) from every state,
//!   and valid characters of every lead-byte class, which leave each state A-G at
//!   a cut inside them. The text is mixed (ASCII and characters of 1-4 bytes),
//!   mostly ASCII, without ASCII, or only ASCII (the inserted sequence is then the
//!   only non-ASCII). Each input is cut in two at every point when the sequence
//!   lies in its first or last 4 bytes, otherwise at every point within 4 bytes of
//!   the sequence (the sequence in the first or last 1-4 bytes of a chunk, or
//!   straddling the cut); inputs up to 24 bytes also at every pair of points;
//!   some into fixed-size chunks (1-65 bytes); each is fed whole as one chunk, and
//!   given whole to `utf8_validate_chunk` from every state (START..G, ERROR, and
//!   two values that name none). [`every_split_at_route_edges`] (quick, run by
//!   plain `cargo test`) is the same for lengths around the route edges, with the
//!   positions near the ends of the input or giving chunks near a route edge.
//! - [`block_edges_of_long_chunks_every_block`] (ignored) and
//!   [`block_edges_of_long_chunks`] (quick): a head chunk that leaves each state
//!   (empty, the first 1-3 bytes of a character of each lead-byte class, or a stray
//!   byte), then a long chunk (1024-2048 bytes) at chosen addresses (mod 64), with
//!   an ill-formed or cut-short sequence within 4 bytes of each of its block
//!   edges, counted from its start and at the 64-byte aligned addresses, of its
//!   overlapping last block and of its ends.
//! - [`random_chunks_of_large_inputs_many_seeds`] (ignored) and
//!   [`random_chunks_of_large_inputs`] (quick): inputs of 100-500 KB (runs of ASCII,
//!   of 2-byte, 3-byte and 4-byte text; a third only ASCII) cut into chunks of
//!   random sizes 0..=2000 (and sizes at the route edges; a third of the cuts moved
//!   inside a character), each at a random address (64-byte aligned one time in
//!   four), with ill-formed sequences at random places, at chunk edges, at block
//!   edges inside long chunks, at the end, or none; seeded and reproducible (the
//!   seed is in every failure message).
//!
//! - [`fixed_width_chunks_with_errors_at_their_ends`]: inputs of three chunks and
//!   37 bytes, cut into chunks of a fixed width on each side of the route edges
//!   (63-65, 255-257, 320, 1023-1025 bytes), as a reader of fixed-size buffers
//!   does, with an ill-formed or cut-short sequence at the first byte of each
//!   chunk, at its last byte, and ending at its last byte.
//!
//! Each failure message names the back end, the input (in hex, or its seed), the
//! cuts, the chunk, the carried state, and what was expected and got: a
//! reproduction.
//!
//! Expected answers come from an independent model, never from the library:
//! `std::str::from_utf8` (through the shared oracle) for where the first error is
//! and whether it is certain yet, and the header's definitions of the states
//! (A: one continuation byte expected, B: two, C: after E0, ...) for a prefix that
//! ends inside a character ([`open_state`]). After every chunk, the chunk state must
//! be that state (START on a character boundary, ERROR once an error is certain),
//! `utf8_stream_feed` must return false exactly once the error is certain, and
//! `utf8_stream_finish` must give std's offset, the maximal-subpart length (the
//! bytes to the end for a truncation) and the draft's kind for the bytes so far.
//! A coverage table checks that every carried state (and, given directly, every
//! state value) met chunks of every length class the test is meant to reach.
//!
//! Every test runs this test binary again once per back end this CPU supports
//! (`utf8validate_core::backends::available()`), with `UTF8VALIDATE_BACKEND` set.
//! The child proves which back end the loaded `.so` dispatches to: it reads the
//! library's own dispatch pointer (`utf8validate_core::dispatch::CURRENT`, a local
//! symbol that `readelf --syms` lists in both the debug and release builds) and the
//! name in the `Implementation` it points at: `"undetected"` before the first call,
//! the forced back end after it. Where `readelf` is missing (a skip, which fails under
//! `CI=true`) the variable is trusted: `utf8validate-core/tests/force_backend.rs`
//! proves it selects the back end, in the same dispatch code.
//!
//! Release run (the exhaustive tests): `cargo test --profile test-release -p
//! utf8validate-c-tests --test chunks -- --include-ignored`.
#![cfg(target_os = "linux")]

use utf8validate_c_tests as support;
#[path = "../../utf8validate-core/tests/oracle/mod.rs"]
mod oracle;

use std::ffi::c_char;
use std::ops::Range;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use oracle::inputs::Rng;
use oracle::{c_kind, expected_check, std_error, Detail, ILL_FORMED, SAMPLES, TRUNCATED};
use support::c_api::{functions, kind, CError, Functions};
use support::FORCE_BACKEND;
use utf8validate_core::{ErrorKind, Stream};

// The `utf8_state` values of the header.
const START: u32 = 0;
const A: u32 = 1;
const B: u32 = 2;
const C: u32 = 3;
const D: u32 = 4;
const E: u32 = 5;
const F: u32 = 6;
const G: u32 = 7;
const ERROR: u32 = 8;
const STATE_NAMES: [&str; 9] = ["START", "A", "B", "C", "D", "E", "F", "G", "ERROR"];

fn state_name(state: u32) -> String {
    match STATE_NAMES.get(state as usize) {
        Some(name) => name.to_string(),
        None => format!("{state} (no state)"),
    }
}

// ---------------------------------------------------------------------------------
// The model: std and the header's definitions of the states.
// ---------------------------------------------------------------------------------

/// The state the header defines for input that ends inside a character whose first
/// bytes are `tail` (a proper prefix of an RFC 3629 `UTF8-char`), START for none:
/// A: one continuation byte (80-BF) still expected; B: two; C: after E0; D: after
/// ED; E: after F1-F3 (three expected); F: after F0; G: after F4.
fn open_state(tail: &[u8]) -> u32 {
    match *tail {
        [] => START,
        [0xC2..=0xDF] => A,
        [0xE0] => C,
        [0xED] => D,
        [0xE1..=0xEC | 0xEE..=0xEF] => B,
        [0xE0..=0xEF, _] => A,
        [0xF0] => F,
        [0xF1..=0xF3] => E,
        [0xF4] => G,
        [0xF0..=0xF4, _] => B,
        [0xF0..=0xF4, _, _] => A,
        _ => panic!("model: {tail:02X?} is not the start of a character"),
    }
}

/// The state after `bytes` from START, by std: START when they are well-formed,
/// ERROR when std gives an error length (the error is certain: no more bytes can
/// fix it), else the state of the character they end inside.
fn state_after(bytes: &[u8]) -> u32 {
    match std_error(bytes) {
        None => START,
        Some((_, Some(_))) => ERROR,
        Some((at, None)) => open_state(&bytes[at..]),
    }
}

/// What a chunk must leave, for every prefix of one input, answered in O(1) each
/// (inputs of hundreds of KB are cut hundreds of times).
struct Expect<'a> {
    bytes: &'a [u8],
    /// std's `valid_up_to` for the whole input (its length when valid).
    valid_up_to: usize,
    /// What `utf8_stream_finish` gives after the whole input.
    whole: Result<(), Detail>,
}

impl<'a> Expect<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        let valid_up_to = std_error(bytes).map_or(bytes.len(), |(at, _)| at);
        let whole = expected_check(bytes);
        let expect = Expect {
            bytes,
            valid_up_to,
            whole,
        };
        // The model agrees with itself on the whole input.
        assert_eq!(
            expect.state_at(bytes.len()) == START,
            whole.is_ok(),
            "model: {bytes:02X?}"
        );
        expect
    }

    /// A character boundary at or before `n` inside the valid part: the prefix
    /// `bytes[..n]` is `bytes[..b]` (well-formed, on a boundary) then `bytes[b..n]`,
    /// so std's answer for the prefix is its answer for `bytes[b..n]`, moved by `b`.
    fn boundary(&self, n: usize) -> usize {
        if n >= self.valid_up_to {
            return self.valid_up_to;
        }
        let mut b = n;
        while b > 0 && self.bytes[b] & 0xC0 == 0x80 {
            b -= 1;
        }
        b
    }

    /// The chunk state after `bytes[..n]`. Inside the part std found valid,
    /// `bytes[b..n]` is the start of the character at `b` (std says the whole
    /// character is there); past it, std on `bytes[valid_up_to..n]` (which it
    /// answers at its first character: the error is there) says whether the error
    /// is certain yet.
    fn state_at(&self, n: usize) -> u32 {
        let b = self.boundary(n);
        if n <= self.valid_up_to {
            open_state(&self.bytes[b..n])
        } else {
            state_after(&self.bytes[b..n])
        }
    }

    /// What `utf8_stream_finish` gives after `bytes[..n]`: inside the valid part,
    /// valid on a boundary, else a truncation from the boundary before `n` (as
    /// `oracle::expected_check` says for such a prefix); past it, the oracle on
    /// `bytes[valid_up_to..n]`, moved.
    fn check_at(&self, n: usize) -> Result<(), Detail> {
        if n == self.bytes.len() {
            return self.whole;
        }
        let b = self.boundary(n);
        if n <= self.valid_up_to {
            if b == n {
                return Ok(());
            }
            return Err(Detail::new(b, n - b, ErrorKind::Truncated));
        }
        expected_check(&self.bytes[b..n]).map_err(|e| Detail {
            offset: e.offset + b,
            ..e
        })
    }
}

/// A byte sequence that leaves the machine in `state` from START: the state's lead
/// byte (as the header defines the states), nothing for START.
fn reach(state: u32) -> &'static [u8] {
    match state {
        START => b"",
        A => b"\xC2",
        B => b"\xE1",
        C => b"\xE0",
        D => b"\xED",
        E => b"\xF1",
        F => b"\xF0",
        G => b"\xF4",
        _ => unreachable!(),
    }
}

// ---------------------------------------------------------------------------------
// Inputs.
// ---------------------------------------------------------------------------------

/// Characters of every length and every lead-byte class of RFC 3629, with the
/// code points at the edges of each class.
const CHARS: &[&str] = &[
    "a",
    " ",
    "Z",
    "\n",
    "\0",
    "\u{7F}", // 1 byte
    "\u{80}",
    "é",
    "Ω",
    "Я",
    "ש",
    "\u{7FF}", // C2-DF
    "\u{800}",
    "\u{FFF}",
    "ह",
    "ऋ", // E0 A0-BF
    "\u{1000}",
    "€",
    "日",
    "本",
    "한",
    "\u{CFFF}",
    "\u{E000}",
    "\u{FFFD}",
    "\u{FFFF}", // E1-EC, EE-EF
    "\u{D000}",
    "\u{D7A3}",
    "\u{D7FF}", // ED 80-9F
    "\u{10000}",
    "😀",
    "🚀",
    "𝄞",
    "𐍈",
    "\u{3FFFF}", // F0 90-BF
    "\u{40000}",
    "\u{E0001}",
    "\u{FFFFF}", // F1-F3
    "\u{100000}",
    "\u{10FFFF}", // F4 80-8F
];

/// Characters of at most 2 bytes, at most 3 bytes: text for the cheaper tiers of
/// the tiered loop.
fn chars_up_to(n: usize) -> Vec<&'static str> {
    CHARS.iter().copied().filter(|c| c.len() <= n).collect()
}

/// Valid characters of every lead-byte class and edge, to insert so that a cut
/// falls inside them: each of the states A-G at the cut.
const STRADDLE: &[&[u8]] = &[
    b"\xC2\x80",
    b"\xDF\xBF",
    b"\xE0\xA0\x80",
    b"\xE0\xBF\xBF",
    b"\xE1\x80\x80",
    b"\xEC\xBF\xBF",
    b"\xED\x80\x80",
    b"\xED\x9F\xBF",
    b"\xEE\x80\x80",
    b"\xEF\xBF\xBF",
    b"\xF0\x90\x80\x80",
    b"\xF0\xBF\xBF\xBF",
    b"\xF1\x80\x80\x80",
    b"\xF3\xBF\xBF\xBF",
    b"\xF4\x80\x80\x80",
    b"\xF4\x8F\xBF\xBF",
];

/// Characters begun and not finished, from every state (before text, a missing
/// continuation; at the end, a truncation), beyond `oracle::TRUNCATED`.
const OPEN: &[&[u8]] = &[
    b"\xDF",
    b"\xE0",
    b"\xE0\xA0",
    b"\xED",
    b"\xED\x9F",
    b"\xEF\xBF",
    b"\xF0",
    b"\xF0\x90\x80",
    b"\xF1",
    b"\xF1\x80",
    b"\xF3\xBF\xBF",
    b"\xF4",
    b"\xF4\x8F",
];

/// Ill-formed sequences beyond `oracle::ILL_FORMED`: a continuation byte out of the
/// range its state allows, at the second, third and fourth byte; a lead byte where
/// a continuation byte should be; F6.
const MORE_ILL_FORMED: &[&[u8]] = &[
    b"\xE0\x9F",
    b"\xED\xA0",
    b"\xF0\x8F",
    b"\xF4\x90",
    b"\xF4\xBF",
    b"\xE1\x80\xC2",
    b"\xF1\x80\x80\xF1",
    b"\xF4\x8F\xBF\x41",
    b"\xC2\xC2",
    b"\xF6",
];

/// Every sequence the exhaustive test inserts.
fn every_sequence() -> Vec<&'static [u8]> {
    let mut all: Vec<&'static [u8]> = Vec::new();
    all.extend_from_slice(ILL_FORMED);
    all.extend_from_slice(MORE_ILL_FORMED);
    all.extend_from_slice(TRUNCATED);
    all.extend_from_slice(OPEN);
    all.extend_from_slice(STRADDLE);
    all
}

/// One of each kind, for the quick test: a stray continuation; an invalid lead (C0,
/// F5, FF); an overlong, a surrogate and a value above U+10FFFF at their second
/// byte; missing continuations of 2-, 3- and 4-byte sequences; characters begun
/// in states C, D, G and E (truncated at the end, cut short before text); valid
/// characters that leave states A-G at a cut inside them.
const QUICK_SEQUENCES: &[&[u8]] = &[
    b"\x80",
    b"\xC0\xAF",
    b"\xF5",
    b"\xFF",
    b"\xE0\x9F\xBF",
    b"\xF0\x8F\xBF\xBF",
    b"\xED\xA0\x80",
    b"\xF4\x90\x80\x80",
    b"\xC3A",
    b"\xE2\x82A",
    b"\xF0\x9F\x98A",
    b"\xE0",
    b"\xED\x9F",
    b"\xF4\x8F\xBF",
    b"\xF1\x80",
    b"\xDF\xBF",
    b"\xE0\xA0\x80",
    b"\xED\x9F\xBF",
    b"\xE1\x80\x80",
    b"\xF0\x90\x80\x80",
    b"\xF3\xBF\xBF\xBF",
    b"\xF4\x8F\xBF\xBF",
];

/// Valid characters of exactly 0, 1, 2 and 3 bytes, to make text of an exact length.
const FILL: [&[&str]; 4] = [
    &[""],
    &["a", "\0", "~", "\u{7F}"],
    &["\u{80}", "é", "\u{7FF}"],
    &["\u{800}", "€", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "한"],
];

/// The last character boundary at or before `n` in valid text `s` (`n <= s.len()`).
fn floor_boundary(s: &[u8], n: usize) -> usize {
    let mut b = n;
    while b < s.len() && b > 0 && s[b] & 0xC0 == 0x80 {
        b -= 1;
    }
    b
}

/// Appends exactly `n` bytes of valid text to `out`: a prefix of `src` (valid text
/// of more than `n` bytes) cut at a boundary, then a character of the missing 0-3
/// bytes, chosen by `salt`.
fn push_exact(out: &mut Vec<u8>, src: &[u8], n: usize, salt: usize) {
    assert!(src.len() >= n, "the base text is too short");
    let b = floor_boundary(src, n);
    out.extend_from_slice(&src[..b]);
    let fill = FILL[n - b];
    out.extend_from_slice(fill[salt % fill.len()].as_bytes());
}

/// The kinds of base text: mixed (ASCII and characters of every length); mostly
/// ASCII (a character of 2-4 bytes now and then, so chunks are often all ASCII);
/// no ASCII at all; only ASCII (protocol text: the inserted sequence is then the
/// only non-ASCII, which every route's ASCII shortcut must notice).
const STYLES: usize = 4;
const STYLE_NAMES: [&str; STYLES] = ["mixed", "mostly ASCII", "no ASCII", "ASCII"];

/// The base texts, 8 KB each, made once.
struct Texts {
    bases: [Vec<u8>; STYLES],
}

impl Texts {
    fn new() -> Texts {
        let mut rng = Rng(0x5E_ED0F_BA5E);
        let mixed = {
            let mut t = Vec::new();
            while t.len() < 8192 {
                if rng.below(4) == 0 {
                    let sample = SAMPLES[rng.below(SAMPLES.len())];
                    let words: Vec<&str> = sample.split(' ').collect();
                    t.extend_from_slice(words[rng.below(words.len())].as_bytes());
                } else {
                    t.extend_from_slice(CHARS[rng.below(CHARS.len())].as_bytes());
                }
            }
            t
        };
        let ascii = {
            let mut t = Vec::new();
            while t.len() < 8192 {
                for _ in 0..rng.below(60) {
                    t.push(b"abcdefghijklmnopqrstuvwxyz ,.\n"[rng.below(30)]);
                }
                let c = CHARS[rng.below(CHARS.len())];
                t.extend_from_slice(c.as_bytes());
            }
            t
        };
        let no_ascii = {
            let wide: Vec<&str> = CHARS.iter().copied().filter(|c| c.len() > 1).collect();
            let mut t = Vec::new();
            while t.len() < 8192 {
                t.extend_from_slice(wide[rng.below(wide.len())].as_bytes());
            }
            t
        };
        let only_ascii: Vec<u8> = (0..8192)
            .map(|_| b"abcdefghijklmnopqrstuvwxyz0123456789 ,.\n"[rng.below(40)])
            .collect();
        for t in [&mixed, &ascii, &no_ascii] {
            assert!(std::str::from_utf8(t).is_ok());
        }
        Texts {
            bases: [mixed, ascii, no_ascii, only_ascii],
        }
    }

    /// Exactly `n` bytes of valid text of `style`, from a place in the base text
    /// that `salt` chooses.
    fn push(&self, out: &mut Vec<u8>, style: usize, n: usize, salt: usize) {
        let base = &self.bases[style];
        let mut from = salt.wrapping_mul(2654435761) % 4096;
        while base[from] & 0xC0 == 0x80 {
            from += 1;
        }
        if STYLE_NAMES[style] == "ASCII" {
            out.extend_from_slice(&base[from..from + n]);
        } else {
            push_exact(out, &base[from..], n, salt);
        }
    }

    /// Valid text before `seq` and after it, `len` bytes in all, with `seq` at `at`.
    fn with(&self, len: usize, at: usize, seq: &[u8], style: usize, salt: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        self.push(&mut out, style, at, salt);
        out.extend_from_slice(seq);
        self.push(
            &mut out,
            style,
            len - at - seq.len(),
            salt.wrapping_add(977),
        );
        debug_assert_eq!(out.len(), len);
        out
    }
}

// ---------------------------------------------------------------------------------
// Running the C functions.
// ---------------------------------------------------------------------------------

/// Classes of chunk length, by the routes of the back ends: empty, 1 and 2 bytes
/// (inline), 3-15, 16-31, 32-63 and 64 bytes (one block, narrower vectors below
/// 16 and 32), 65-128 and 129-256 (a few blocks), 257-1023 (the tiered loop) and
/// 1024 or more (64-byte aligned blocks).
const BUCKETS: [(usize, usize); 12] = [
    (0, 0),
    (1, 1),
    (2, 2),
    (3, 15),
    (16, 31),
    (32, 63),
    (64, 64),
    (65, 128),
    (129, 256),
    (257, 300),
    (301, 1023),
    (1024, usize::MAX),
];

fn bucket(len: usize) -> usize {
    BUCKETS
        .iter()
        .position(|&(lo, hi)| (lo..=hi).contains(&len))
        .unwrap()
}

/// Bytes around a chunk, never read by a correct library: a lead byte before it
/// (as if a sequence were open) and continuation bytes after it (which would
/// finish one).
const BEFORE: u8 = 0xE1;
const AFTER: u8 = 0x80;
const PAD: usize = 64;

/// One back end's run: the C functions, a buffer for each chunk, counts, the
/// coverage table and the failures.
struct Run {
    f: &'static Functions,
    backend: String,
    scratch: Vec<u8>,
    salt: usize,
    inputs: u64,
    splits: u64,
    calls: u64,
    /// `seen[state][bucket]`: a chunk of that length class was fed in that state
    /// (to both functions).
    seen: [[bool; BUCKETS.len()]; 9],
    /// The same for `utf8_validate_chunk` given each state directly.
    seen_direct: [[bool; BUCKETS.len()]; 10],
    failures: Vec<String>,
    failed: u64,
    canon: Vec<u8>,
    /// The addresses (mod 64) for the next chunks [`place`](Run::place)s, in order;
    /// when it is empty, a moving one.
    aligns: std::collections::VecDeque<usize>,
}

impl Run {
    fn new(backend: &str) -> Run {
        Run {
            f: functions(),
            backend: backend.to_string(),
            scratch: vec![0; 4096],
            salt: 0,
            inputs: 0,
            splits: 0,
            calls: 0,
            seen: [[false; BUCKETS.len()]; 9],
            seen_direct: [[false; BUCKETS.len()]; 10],
            failures: Vec::new(),
            failed: 0,
            canon: Vec::new(),
            aligns: Default::default(),
        }
    }

    /// A copy of `chunk` in a buffer of its own, between [`BEFORE`] and [`AFTER`]
    /// bytes, at the address (mod 64) that `aligns` gives next, else at one that
    /// moves by 29 bytes from call to call.
    fn place(&mut self, chunk: &[u8]) -> *const c_char {
        self.salt = self.salt.wrapping_add(1);
        if self.scratch.len() < 2 * PAD + 64 + chunk.len() {
            self.scratch.resize(2 * PAD + 64 + chunk.len(), 0);
        }
        let align = self
            .aligns
            .pop_front()
            .unwrap_or(self.salt.wrapping_mul(29) % 64);
        let base = self.scratch.as_ptr() as usize + PAD;
        let at = PAD + (align + 64 - base % 64) % 64;
        let end = at + chunk.len();
        self.scratch[at - 8..at].fill(BEFORE);
        self.scratch[at..end].copy_from_slice(chunk);
        self.scratch[end..end + 8].fill(AFTER);
        debug_assert_eq!(self.scratch[at..].as_ptr() as usize % 64, align);
        self.scratch[at..].as_ptr().cast()
    }

    fn fail(&mut self, message: String) {
        self.failed += 1;
        if self.failures.len() < 12 {
            self.failures.push(message);
        }
    }

    /// Cuts `exp.bytes` at `cuts` (ascending) and feeds the chunks to a chunk chain
    /// from START and to a fresh stream, checking both after every chunk.
    fn cuts(&mut self, exp: &Expect, cuts: &[usize], what: &dyn Fn() -> String) {
        let f = self.f;
        let bytes = exp.bytes;
        let len = bytes.len();
        let mut stream = std::mem::MaybeUninit::<Stream>::uninit();
        // SAFETY: init writes a whole `utf8_stream`.
        unsafe { (f.utf8_stream_init)(stream.as_mut_ptr()) };
        let mut state = START;
        let mut start = 0;
        for i in 0..=cuts.len() {
            let end = cuts.get(i).copied().unwrap_or(len);
            let chunk = &bytes[start..end];
            // The model's state before this chunk: the library's, checked after the
            // chunk before.
            self.seen[state as usize][bucket(chunk.len())] = true;
            let ptr = self.place(chunk);
            // SAFETY: `ptr` points to `chunk.len()` bytes in `self.scratch`; the
            // stream was initialised.
            let (got, fed, finished, err) = unsafe {
                let got = (f.utf8_validate_chunk)(state, ptr, chunk.len());
                let fed = (f.utf8_stream_feed)(stream.as_mut_ptr(), ptr, chunk.len());
                let mut err = CError::new(77777, 77, kind::INVALID_BYTE);
                let finished = (f.utf8_stream_finish)(stream.as_ptr(), &mut err);
                (got, fed, finished, err)
            };
            self.calls += 3;
            let want = exp.state_at(end);
            let want_check = exp.check_at(end);
            let want_err = match want_check {
                Ok(()) => CError::new(end, 0, kind::NONE),
                Err(e) => CError::new(e.offset, e.length, c_kind(e.kind)),
            };
            let mut wrong = Vec::new();
            if got != want {
                wrong.push(format!(
                    "utf8_validate_chunk({}, chunk) = {}, expected {}",
                    state_name(state),
                    state_name(got),
                    state_name(want)
                ));
            }
            if fed != (want != ERROR) {
                wrong.push(format!(
                    "utf8_stream_feed = {fed}, expected {} (an error is {}certain after {end} bytes)",
                    want != ERROR,
                    if want == ERROR { "" } else { "not " }
                ));
            }
            if finished != want_check.is_ok() || err != want_err {
                wrong.push(format!(
                    "utf8_stream_finish = {finished} with {err:?}, expected {} with {want_err:?}",
                    want_check.is_ok()
                ));
            }
            if !wrong.is_empty() {
                let message = format!(
                    "[{}] {}: after chunk {i} (bytes {start}..{end} of {len}, {} chunks, cuts {}): {}\n  chunk: {}\n  input: {}",
                    self.backend,
                    what(),
                    cuts.len() + 1,
                    show_cuts(cuts),
                    wrong.join("; "),
                    hex_window(bytes, start, end),
                    if len <= 400 { hex(bytes) } else { format!("{len} bytes") },
                );
                self.fail(message);
                return;
            }
            state = got;
            start = end;
        }
        self.splits += 1;
    }

    /// Cut at each point in `splits`.
    fn each_split(&mut self, exp: &Expect, splits: Range<usize>, what: &dyn Fn() -> String) {
        for s in splits {
            self.cuts(exp, &[s], &|| format!("{}, split at {s}", what()));
        }
    }

    /// Cut at every pair of points.
    fn every_pair(&mut self, exp: &Expect, what: &dyn Fn() -> String) {
        let len = exp.bytes.len();
        for i in 0..=len {
            for j in i..=len {
                self.cuts(exp, &[i, j], &|| format!("{}, split at {i},{j}", what()));
            }
        }
    }

    /// Cut into chunks of `width` bytes (the last one shorter).
    fn fixed_width(&mut self, exp: &Expect, width: usize, what: &dyn Fn() -> String) {
        let cuts: Vec<usize> = (1..)
            .map(|i| i * width)
            .take_while(|&c| c < exp.bytes.len())
            .collect();
        self.cuts(exp, &cuts, &|| format!("{}, {width}-byte chunks", what()));
    }

    /// `utf8_validate_chunk(state, chunk)` for every state (and two values that
    /// name none), against the model for the state's lead byte followed by the
    /// chunk.
    fn every_state(&mut self, chunk: &[u8], what: &dyn Fn() -> String) {
        self.states(chunk, (START..=ERROR).chain([9, u32::MAX]), what);
    }

    /// `utf8_validate_chunk(state, chunk)` for each of `states`.
    fn states(
        &mut self,
        chunk: &[u8],
        states: impl Iterator<Item = u32>,
        what: &dyn Fn() -> String,
    ) {
        for state in states {
            let want = if state >= ERROR {
                ERROR
            } else {
                self.canon.clear();
                self.canon.extend_from_slice(reach(state));
                self.canon.extend_from_slice(chunk);
                state_after(&self.canon)
            };
            let ptr = self.place(chunk);
            // SAFETY: `ptr` points to `chunk.len()` bytes in `self.scratch`.
            let got = unsafe { (self.f.utf8_validate_chunk)(state, ptr, chunk.len()) };
            self.calls += 1;
            self.seen_direct[(state as usize).min(9)][bucket(chunk.len())] = true;
            if got != want {
                let message = format!(
                    "[{}] {}: utf8_validate_chunk({}, chunk of {} bytes) = {}, expected {}\n  chunk: {}",
                    self.backend,
                    what(),
                    state_name(state),
                    chunk.len(),
                    state_name(got),
                    state_name(want),
                    if chunk.len() <= 400 { hex(chunk) } else { hex_window(chunk, 0, chunk.len()) },
                );
                self.fail(message);
            }
        }
    }

    /// Fails the test with the first failures, if any; then checks that every
    /// carried state met chunks of every length class in `buckets`.
    fn finish(&self, buckets: Range<usize>) {
        assert!(
            self.failures.is_empty(),
            "{} failures on {} (the first {}):\n{}",
            self.failed,
            self.backend,
            self.failures.len(),
            self.failures.join("\n")
        );
        let mut missing = Vec::new();
        for (state, row) in self.seen.iter().enumerate() {
            for b in buckets.clone() {
                if !row[b] {
                    missing.push(format!("{} into {:?}", STATE_NAMES[state], BUCKETS[b]));
                }
            }
        }
        for (state, row) in self.seen_direct.iter().enumerate() {
            for b in buckets.clone() {
                if !row[b] {
                    missing.push(format!("direct {state} into {:?}", BUCKETS[b]));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "coverage: no chunk of these lengths was fed in these states: {missing:?}"
        );
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `bytes[start..end]` in hex, with the 8 bytes before and after it in brackets;
/// long chunks shown by their first and last 48 bytes.
fn hex_window(bytes: &[u8], start: usize, end: usize) -> String {
    let before = &bytes[start.saturating_sub(8)..start];
    let after = &bytes[end..(end + 8).min(bytes.len())];
    let body = if end - start <= 120 {
        hex(&bytes[start..end])
    } else {
        format!(
            "{} ... ({} bytes) ... {}",
            hex(&bytes[start..start + 48]),
            end - start - 96,
            hex(&bytes[end - 48..end])
        )
    };
    format!("[{}] {} [{}]", hex(before), body, hex(after))
}

fn show_cuts(cuts: &[usize]) -> String {
    if cuts.len() <= 12 {
        format!("{cuts:?}")
    } else {
        format!("{:?} ... {:?}", &cuts[..6], &cuts[cuts.len() - 6..])
    }
}

// ---------------------------------------------------------------------------------
// Part 1: every split of short inputs.
// ---------------------------------------------------------------------------------

/// Which inputs and splits [`short_inputs`] tries.
struct Plan {
    lengths: Vec<usize>,
    sequences: Vec<&'static [u8]>,
    /// Inputs up to this long are also cut at every pair of points.
    pairs_up_to: usize,
    /// Every position of the inserted sequence, or (quick) only those within 4
    /// bytes of the input's ends or of a route edge ([`near_route_edge`]).
    every_position: bool,
    /// The sequence is in the first or last `edge` bytes of the input: every split.
    edge: usize,
}

/// Chunk lengths where a route changes.
const ROUTE_EDGES: &[usize] = &[3, 16, 32, 64, 128, 256];

/// Whether a sequence of `k` bytes at `at` in `len` bytes, with the splits within 4
/// bytes of it, gives a first or second chunk within 1 byte of a route edge.
fn near_route_edge(len: usize, k: usize, at: usize) -> bool {
    ROUTE_EDGES.iter().any(|&e| {
        let first = (at.saturating_sub(4), at + k + 4);
        let second = (len.saturating_sub(at + k + 4), len - at + 4);
        [first, second]
            .iter()
            .any(|&(lo, hi)| lo <= e + 1 && e <= hi + 1)
    })
}

/// Chunk widths for the fixed-width splits: the inline lengths, the narrow
/// vectors' edges, one block and around it.
const WIDTHS: &[usize] = &[1, 2, 3, 4, 5, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65];

fn short_inputs(run: &mut Run, plan: &Plan) {
    let texts = Texts::new();
    for &len in &plan.lengths {
        for (style, style_name) in STYLE_NAMES.iter().enumerate() {
            let mut input = Vec::new();
            texts.push(&mut input, style, len, len);
            let exp = Expect::new(&input);
            assert!(exp.whole.is_ok());
            let what = || format!("{len} bytes of valid {style_name} text");
            run.inputs += 1;
            run.every_state(&input, &what);
            run.each_split(&exp, 0..len + 1, &what);
            if len <= plan.pairs_up_to {
                run.every_pair(&exp, &what);
            }
            for &w in WIDTHS.iter().filter(|&&w| w < len) {
                run.fixed_width(&exp, w, &what);
            }
        }
        for (si, &seq) in plan.sequences.iter().enumerate() {
            let k = seq.len();
            if k > len {
                continue;
            }
            let style = (len + si) % STYLES;
            for at in 0..=len - k {
                let near_an_end = at < plan.edge || at + k + plan.edge > len;
                if !plan.every_position && !near_an_end && !near_route_edge(len, k, at) {
                    continue;
                }
                let input = texts.with(len, at, seq, style, at * 131 + si);
                let exp = Expect::new(&input);
                let what = || {
                    format!(
                        "{len} bytes of {} text with {} at {at}",
                        STYLE_NAMES[style],
                        hex(seq)
                    )
                };
                run.inputs += 1;
                run.every_state(&input, &what);
                // The whole input as one chunk (the splits at 0 and at the end
                // also give it, after or before an empty chunk).
                run.cuts(&exp, &[], &|| format!("{}, one chunk", what()));
                if near_an_end {
                    run.each_split(&exp, 0..len + 1, &what);
                } else {
                    run.each_split(&exp, at.saturating_sub(4)..(at + k + 5).min(len + 1), &what);
                }
                if len <= plan.pairs_up_to {
                    run.every_pair(&exp, &what);
                }
                if at == 0 || at == len - k || at == (len - k) / 2 {
                    for &w in WIDTHS.iter().filter(|&&w| w < len) {
                        run.fixed_width(&exp, w, &what);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// Part 2: random chunks of large inputs.
// ---------------------------------------------------------------------------------

/// Chunk sizes at the routes' edges, drawn now and then among the random ones.
const ROUTE_SIZES: &[usize] = &[
    0, 1, 2, 3, 4, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66, 67, 127, 128, 129, 191, 192, 193, 255,
    256, 257, 258, 259, 320, 1023, 1024, 1025, 1026, 1088, 1089,
];

/// The length of the sequence that `lead` starts (1 for anything else).
fn sequence_len(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    }
}

/// Valid text of exactly `len` bytes, in runs of one kind each: ASCII (often long:
/// the loops skip ASCII blocks), characters of at most 2 bytes, of at most 3, of
/// any length (the tiers of the tiered loop), words of the samples, one character
/// repeated; or, with `only_ascii`, ASCII alone.
fn big_text(rng: &mut Rng, len: usize, only_ascii: bool) -> Vec<u8> {
    let up_to_2 = chars_up_to(2);
    let up_to_3 = chars_up_to(3);
    let mut out = Vec::with_capacity(len + 64);
    while out.len() < len {
        match if only_ascii { 0 } else { rng.below(7) } {
            0 => {
                let most = if rng.below(3) == 0 { 4000 } else { 100 };
                let n = 1 + rng.below(most);
                for _ in 0..n {
                    out.push(b"abcdefghijklmnopqrstuvwxyz0123456789 ,.\n"[rng.below(40)]);
                }
            }
            kind @ 1..=3 => {
                let pool: &[&str] = match kind {
                    1 => &up_to_2,
                    2 => &up_to_3,
                    _ => CHARS,
                };
                for _ in 0..1 + rng.below(1500) {
                    out.extend_from_slice(pool[rng.below(pool.len())].as_bytes());
                }
            }
            4 => out.extend_from_slice(SAMPLES[rng.below(SAMPLES.len())].as_bytes()),
            5 => {
                let c = CHARS[rng.below(CHARS.len())];
                for _ in 0..rng.below(300) {
                    out.extend_from_slice(c.as_bytes());
                }
            }
            _ => {
                for _ in 0..1 + rng.below(40) {
                    out.extend_from_slice(CHARS[rng.below(CHARS.len())].as_bytes());
                }
            }
        }
    }
    let b = floor_boundary(&out, len);
    out.truncate(b);
    let fill = FILL[len - b];
    out.extend_from_slice(fill[rng.below(fill.len())].as_bytes());
    out
}

/// Cut points for chunks of random sizes 0..=2000 (and, one time in eight, a size at
/// a route edge; one in eight, 0-3 bytes); one cut in three is moved just inside a
/// character that starts within the next 8 bytes.
fn random_cuts(rng: &mut Rng, bytes: &[u8]) -> Vec<usize> {
    let len = bytes.len();
    let mut cuts = Vec::new();
    let mut at = 0;
    loop {
        at += match rng.below(8) {
            0 => ROUTE_SIZES[rng.below(ROUTE_SIZES.len())],
            1 => rng.below(4),
            _ => rng.below(2001),
        };
        if at > len {
            break;
        }
        if rng.below(3) == 0 {
            if let Some(lead) = (at..(at + 8).min(len)).find(|&i| bytes[i] >= 0xC2) {
                let inside = lead + 1 + rng.below(sequence_len(bytes[lead]).max(2) - 1);
                at = inside.min(len);
            }
        }
        cuts.push(at);
    }
    cuts
}

/// Puts a valid character of a random lead-byte class ([`STRADDLE`]) across one cut
/// in three, so that chunks start in each of the states A-G.
fn straddle_cuts(rng: &mut Rng, bytes: &mut [u8], cuts: &[usize]) {
    for &c in cuts {
        if rng.below(3) == 0 {
            let seq = STRADDLE[rng.below(STRADDLE.len())];
            let inside = 1 + rng.below(seq.len() - 1);
            if c >= inside && c - inside + seq.len() <= bytes.len() {
                put(bytes, c - inside, seq);
            }
        }
    }
}

/// Writes `seq` at `at`, replacing the characters it overlaps, padded with ASCII to
/// keep the length: the bytes before `at` and after the sequence stay whole
/// characters.
fn put(bytes: &mut [u8], at: usize, seq: &[u8]) {
    let len = bytes.len();
    let end = at + seq.len();
    let mut b0 = at;
    while b0 > 0 && b0 < len && bytes[b0] & 0xC0 == 0x80 {
        b0 -= 1;
    }
    let mut b1 = end;
    while b1 < len && bytes[b1] & 0xC0 == 0x80 {
        b1 += 1;
    }
    bytes[b0..at].fill(b'x');
    bytes[at..end].copy_from_slice(seq);
    bytes[end..b1].fill(b'y');
}

/// The address (mod 64) of each chunk: 64-byte aligned one time in four, else
/// random.
fn random_aligns(rng: &mut Rng, chunks: usize) -> Vec<usize> {
    (0..chunks)
        .map(|_| if rng.below(4) == 0 { 0 } else { rng.below(64) })
        .collect()
}

/// Near a block edge inside a long chunk: where a chunk's blocks start, counted
/// from the chunk's start or (from 1024 bytes, where the blocks after the first are
/// 64-byte aligned) at the aligned addresses, given each chunk's address (mod 64)
/// in `aligns`. `None` when no chunk is longer than 256 bytes.
fn at_block_edge(
    rng: &mut Rng,
    len: usize,
    cuts: &[usize],
    aligns: &[usize],
    k: usize,
) -> Option<usize> {
    let long: Vec<usize> = (0..=cuts.len())
        .filter(|&i| {
            let start = if i == 0 { 0 } else { cuts[i - 1] };
            cuts.get(i).copied().unwrap_or(len) - start > 256
        })
        .collect();
    let i = *long.get(rng.below(long.len().max(1)))?;
    let start = if i == 0 { 0 } else { cuts[i - 1] };
    let n = cuts.get(i).copied().unwrap_or(len) - start;
    let m = 1 + rng.below(n / 64);
    let edge = match rng.below(3) {
        0 => 64 * m,
        1 => (64 * m).saturating_sub(aligns[i]),
        _ => n.saturating_sub(64),
    };
    Some(start + (edge + rng.below(8)).saturating_sub(4 + rng.below(k)))
}

/// Places the errors of case `seed` (by `seed % 7`: none; one at a random place;
/// one at a chunk edge, in the last 1-4 bytes of a chunk, its first 1-4 or
/// straddling the cut; one at the end, often a truncation; several, at edges and
/// random places; one in the first or last bytes of the input; one at a block edge
/// inside a long chunk) and says where.
fn place_errors(
    rng: &mut Rng,
    bytes: &mut [u8],
    cuts: &[usize],
    aligns: &[usize],
    seed: u64,
) -> String {
    let len = bytes.len();
    let mut bad: Vec<&'static [u8]> = Vec::new();
    bad.extend_from_slice(ILL_FORMED);
    bad.extend_from_slice(MORE_ILL_FORMED);
    bad.extend_from_slice(OPEN);
    bad.extend_from_slice(TRUNCATED);
    let at_edge = |rng: &mut Rng, k: usize| -> usize {
        let c = cuts.get(rng.below(cuts.len())).copied().unwrap_or(len / 2);
        (c + rng.below(k + 8)).saturating_sub(k + 4)
    };
    let mut placed = Vec::new();
    let count = match seed % 7 {
        0 => 0,
        4 => 2 + rng.below(4),
        _ => 1,
    };
    for _ in 0..count {
        let seq = bad[rng.below(bad.len())];
        let k = seq.len();
        let at = match seed % 7 {
            1 => rng.below(len),
            6 => at_block_edge(rng, len, cuts, aligns, k).unwrap_or(len / 2),
            2 => at_edge(rng, k),
            3 => {
                let back = if rng.below(2) == 0 { 0 } else { rng.below(5) };
                len.saturating_sub(k + back)
            }
            4 if rng.below(2) == 0 => rng.below(len),
            4 => at_edge(rng, k),
            _ if rng.below(2) == 0 => rng.below(4),
            _ => len.saturating_sub(k + rng.below(5)),
        }
        .min(len - k);
        put(bytes, at, seq);
        placed.push(format!("{} at {at}", hex(seq)));
    }
    if placed.is_empty() {
        "valid".to_string()
    } else {
        placed.join(", ")
    }
}

fn large_inputs(run: &mut Run, seeds: Range<u64>, sizes: Range<usize>) {
    for seed in seeds {
        let mut rng = Rng(0xC0FF_EE00_0000_0000 ^ seed);
        let len = sizes.start + rng.below(sizes.len());
        // A third of the inputs are ASCII text: the errors are then the only
        // non-ASCII bytes (and no character straddles a cut).
        let only_ascii = seed / 7 % 3 == 2;
        let mut bytes = big_text(&mut rng, len, only_ascii);
        let cuts = random_cuts(&mut rng, &bytes);
        if !only_ascii {
            straddle_cuts(&mut rng, &mut bytes, &cuts);
        }
        let aligns = random_aligns(&mut rng, cuts.len() + 1);
        let errors = place_errors(&mut rng, &mut bytes, &cuts, &aligns, seed);
        let exp = Expect::new(&bytes);
        let text = if only_ascii { "ASCII" } else { "mixed" };
        let what = || format!("seed {seed}: {len} bytes of {text} text, {errors}");
        run.inputs += 1;
        run.aligns.extend(&aligns);
        run.cuts(&exp, &cuts, &|| {
            format!("{}, chunk addresses {}", what(), show_cuts(&aligns))
        });
        run.aligns.clear();
        run.cuts(&exp, &[], &|| format!("{}, one chunk", what()));
        // Every carried state into some of its chunks, and into chunks at edges
        // of the routes.
        for _ in 0..8 {
            let i = rng.below(cuts.len() + 1);
            let start = if i == 0 { 0 } else { cuts[i - 1] };
            let end = cuts.get(i).copied().unwrap_or(len);
            run.every_state(&bytes[start..end], &|| {
                format!("{}, chunk {i} ({start}..{end})", what())
            });
        }
        for _ in 0..4 {
            let n = ROUTE_SIZES[rng.below(ROUTE_SIZES.len())].min(len);
            let start = rng.below(len - n + 1);
            run.every_state(&bytes[start..start + n], &|| {
                format!("{}, bytes {start}..{}", what(), start + n)
            });
        }
    }
}

// ---------------------------------------------------------------------------------
// Part 3: block edges inside long chunks.
// ---------------------------------------------------------------------------------

/// Which long chunks [`long_chunks`] tries.
struct LongPlan {
    /// Lengths of the long chunk.
    lengths: &'static [usize],
    /// Its addresses (mod 64).
    aligns: &'static [usize],
    sequences: Vec<&'static [u8]>,
    /// Block edges at `64 * m` for these `m` (all when empty), besides the ends.
    blocks: &'static [usize],
}

/// Where a sequence of `k` bytes goes in a chunk of `len` bytes at address `align`
/// (mod 64): within 4 bytes of each block edge, counted from the chunk's start
/// and at the 64-byte aligned addresses (the blocks after the first, in chunks of
/// 1024 bytes or more), of the last block (which overlaps the one before), and of
/// both ends.
fn block_edge_positions(len: usize, align: usize, k: usize, blocks: &[usize]) -> Vec<usize> {
    let mut edges = vec![0, len - k, len.saturating_sub(64)];
    for m in 1..=len / 64 {
        if blocks.is_empty() || blocks.contains(&m) {
            edges.push(64 * m);
            edges.push(64 * m - align);
        }
    }
    let mut at: Vec<usize> = edges
        .iter()
        .flat_map(|&e| e.saturating_sub(4)..e + 4)
        .filter(|&o| o + k <= len)
        .collect();
    at.sort_unstable();
    at.dedup();
    at
}

/// A head chunk, then a long chunk at a chosen address with a sequence at each
/// block edge. The head is empty (START), or the first 1-3 bytes of a character of
/// each lead-byte class ([`STRADDLE`]), which the long chunk finishes (states A-G),
/// or a stray continuation byte (ERROR), in turn.
fn long_chunks(run: &mut Run, plan: &LongPlan) {
    let texts = Texts::new();
    for &len in plan.lengths {
        for &align in plan.aligns {
            for (si, &seq) in plan.sequences.iter().enumerate() {
                let k = seq.len();
                let style = (len + align + si) % STYLES;
                let positions = block_edge_positions(len, align, k, plan.blocks);
                for (i, o) in positions.into_iter().enumerate() {
                    let turn = (i + si) % (STRADDLE.len() + 2);
                    let (head, first): (usize, &[u8]) = match turn {
                        0 => (0, b""),
                        1 => (1, b"\x80"),
                        _ => {
                            let c = STRADDLE[turn - 2];
                            (1 + (i / 3) % (c.len() - 1), c)
                        }
                    };
                    // The character the head starts must end before the sequence
                    // (and `put` would pad over a continuation byte right after it).
                    let overlaps = first.len() > head + o
                        || (first.len() == head + o && seq[0] & 0xC0 == 0x80);
                    let (head, first) = if overlaps {
                        (0, &b""[..])
                    } else {
                        (head, first)
                    };
                    let salt = o * 131 + si * 7 + align;
                    let mut input = texts.with(head + len, head + o, seq, style, salt);
                    put(&mut input, 0, first);
                    let exp = Expect::new(&input);
                    let what = || {
                        format!(
                            "{} bytes of {} text with {} at {} and {} at 0, cut at {head}, \
                             the long chunk at address {align} (mod 64)",
                            head + len,
                            STYLE_NAMES[style],
                            hex(seq),
                            head + o,
                            hex(first),
                        )
                    };
                    run.inputs += 1;
                    run.aligns.extend([(align + 64 - head % 64) % 64, align]);
                    run.cuts(&exp, &[head], &what);
                    run.aligns.clear();
                    // The long chunk alone, from one state in turn (and a value
                    // that names none).
                    let state = match (i + si) % 10 {
                        9 => 9,
                        n => n as u32,
                    };
                    run.aligns.push_back(align);
                    run.states(&input[head..], [state].into_iter(), &what);
                    run.aligns.clear();
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// One child process per back end, and the proof of the back end it runs.
// ---------------------------------------------------------------------------------

/// Set by the parent in each child: the back end the child must find in use.
const CHILD_VAR: &str = "UTF8VALIDATE_CHUNKS_CHILD";
/// The line each child prints last, which the parent requires.
const MARKER: &str = "chunks child done:";

/// In the parent, runs the test `test` (this function's caller) in a child process
/// per back end; in a child, proves the back end and runs `work`.
fn on_every_back_end(test: &str, work: impl FnOnce(&mut Run) -> Range<usize>) {
    if let Ok(name) = std::env::var(CHILD_VAR) {
        return child(test, &name, work);
    }
    let exe = std::env::current_exe().expect("the test knows its own path");
    for name in support::back_ends() {
        let started = Instant::now();
        let out = Command::new(&exe)
            .args([
                test,
                "--exact",
                "--include-ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(FORCE_BACKEND, name)
            .env(CHILD_VAR, name)
            .output()
            .expect("the test binary runs as a child");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{test} with {FORCE_BACKEND}={name} failed ({}):\n{stdout}\n{stderr}",
            out.status
        );
        let line = stdout
            .lines()
            .find_map(|l| l.find(MARKER).map(|at| &l[at..]))
            .unwrap_or_else(|| panic!("{test} with {FORCE_BACKEND}={name} did not run:\n{stdout}"));
        println!(
            "{FORCE_BACKEND}={name}: {line} ({:.1?} with start-up)",
            started.elapsed()
        );
    }
}

fn child(test: &str, name: &str, work: impl FnOnce(&mut Run) -> Range<usize>) {
    let proof = prove_back_end(name);
    let started = Instant::now();
    let mut run = Run::new(name);
    let buckets = work(&mut run);
    run.finish(buckets);
    println!(
        "{MARKER} {test} on {name}: {} inputs, {} ways to cut them, {} C calls, in {:.2?}; {proof}",
        run.inputs,
        run.splits,
        run.calls,
        started.elapsed()
    );
}

/// Asserts that the loaded `.so` dispatches to the back end `name`, and says how
/// that was shown.
fn prove_back_end(name: &str) -> String {
    let f = functions();
    let Some(before) = dispatch_name(f) else {
        support::skip(
            "the proof of the back end the .so uses",
            "readelf (binutils)",
        );
        return format!("{FORCE_BACKEND}={name} trusted (see force_backend.rs)");
    };
    assert_eq!(
        before, "undetected",
        "the .so's dispatch pointer before its first call"
    );
    // A chunk that no inline answer covers: it goes through the dispatch.
    let chunk = "é€😀 and more text".as_bytes();
    // SAFETY: a live slice.
    let state = unsafe { (f.utf8_validate_chunk)(START, chunk.as_ptr().cast(), chunk.len()) };
    assert_eq!(state, START);
    let after = dispatch_name(f).expect("readelf ran once already");
    assert_eq!(
        after, name,
        "the back end the .so chose with {FORCE_BACKEND}={name}"
    );
    format!("the .so's dispatch pointer named `{before}`, then `{after}`")
}

/// The name of the back end the loaded library's dispatch pointer points at
/// (`"undetected"` before its first call), read from the library's memory: the
/// address of its local static `utf8validate_core::dispatch::CURRENT` from its
/// symbol table, moved by where the library was loaded (known from
/// `utf8_validate_chunk`), holds a pointer to an `Implementation`, whose first
/// fields hold a `&'static str` name. `None` when `readelf` does not run.
fn dispatch_name(f: &Functions) -> Option<String> {
    let so = support::artifact("libutf8validate.so");
    let out = Command::new("readelf")
        .args(["-W", "--segments", "--syms"])
        .arg(&so)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let number = |s: &str| {
        usize::from_str_radix(s.trim_start_matches("0x"), 16)
            .unwrap_or_else(|_| panic!("readelf printed {s:?} for a number"))
    };
    let (mut chunk, mut current, mut end) = (None, None, 0);
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first() == Some(&"LOAD") && fields.len() >= 6 {
            end = end.max(number(fields[2]) + number(fields[5]));
        }
        if fields.len() >= 8 && fields[0].ends_with(':') {
            let symbol = fields[7].split('@').next().unwrap();
            if symbol == "utf8_validate_chunk" && fields[3] == "FUNC" {
                chunk = Some(number(fields[1]));
            }
            if symbol.contains("utf8validate_core8dispatch7CURRENT") {
                current = Some(number(fields[1]));
            }
        }
    }
    let chunk = chunk.expect("the .so's symbol table has utf8_validate_chunk");
    let current = current.unwrap_or_else(|| {
        panic!(
            "{} has no symbol utf8validate_core::dispatch::CURRENT: the proof of the \
             back end needs it (update dispatch_name if it was renamed)",
            so.display()
        )
    });
    assert!(end > current, "no LOAD segment covers CURRENT");
    let bias = (f.utf8_validate_chunk as usize).wrapping_sub(chunk);
    let mapped = bias..bias + end;
    let read = |addr: usize| -> usize {
        assert!(
            mapped.contains(&addr) && mapped.contains(&(addr + 7)),
            "{addr:#x} is outside the .so"
        );
        // SAFETY: inside the library's mapped segments (checked), aligned (the
        // address of a static of pointers, or a word of one).
        unsafe { (*(addr as *const AtomicUsize)).load(Ordering::SeqCst) }
    };
    let implementation = read(bias + current);
    // An `Implementation` is 9 words: a `&str` (2) and 7 function pointers, which
    // are never below 64; the name's length is.
    let words: Vec<usize> = (0..9).map(|i| read(implementation + 8 * i)).collect();
    let mut names = vec!["undetected"];
    names.extend(utf8validate_core::backends::compiled());
    for pair in words.windows(2) {
        let (ptr, len) = (pair[0], pair[1]);
        if (1..64).contains(&len) && mapped.contains(&ptr) && mapped.contains(&(ptr + len - 1)) {
            // SAFETY: inside the library's mapped read-only data (checked).
            let name = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
            if let Some(known) = names.iter().find(|n| n.as_bytes() == name) {
                return Some(known.to_string());
            }
        }
    }
    panic!("the dispatch pointer {implementation:#x} points at no back end's name: {words:#x?}");
}

// ---------------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------------

/// Lengths around each route's edges (whose every split gives chunks at the edges
/// below them).
const QUICK_LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 6, 16, 17, 33, 64, 65, 67, 130, 200, 256, 258, 300,
];

#[test]
fn every_split_at_route_edges() {
    on_every_back_end("every_split_at_route_edges", |run| {
        short_inputs(
            run,
            &Plan {
                lengths: QUICK_LENGTHS.to_vec(),
                sequences: QUICK_SEQUENCES.to_vec(),
                pairs_up_to: 8,
                every_position: false,
                edge: 1,
            },
        );
        0..bucket(300) + 1
    });
}

#[test]
#[ignore = "exhaustive: run in release (--profile test-release -- --include-ignored)"]
fn every_split_of_every_length_to_300() {
    on_every_back_end("every_split_of_every_length_to_300", |run| {
        short_inputs(
            run,
            &Plan {
                lengths: (0..=300).collect(),
                sequences: every_sequence(),
                pairs_up_to: 24,
                every_position: true,
                edge: 4,
            },
        );
        0..bucket(300) + 1
    });
}

#[test]
fn random_chunks_of_large_inputs() {
    on_every_back_end("random_chunks_of_large_inputs", |run| {
        large_inputs(run, 0..36, 100_000..400_000);
        bucket(301)..BUCKETS.len()
    });
}

#[test]
#[ignore = "exhaustive: run in release (--profile test-release -- --include-ignored)"]
fn random_chunks_of_large_inputs_many_seeds() {
    on_every_back_end("random_chunks_of_large_inputs_many_seeds", |run| {
        large_inputs(run, 0..600, 100_000..500_000);
        bucket(301)..BUCKETS.len()
    });
}

/// Chunk widths a reader of fixed-size buffers uses (a server's reads, a file
/// read in blocks), on each side of the back ends' route edges: 64 bytes (one
/// block), 256 (a few blocks), and 1024 (aligned blocks); 320 is five blocks.
const FIXED_WIDTHS: &[usize] = &[63, 64, 65, 255, 256, 257, 320, 1023, 1024, 1025];

/// For the ends of a chunk: a stray continuation byte, a byte never used, a
/// surrogate and an overlong (whose lead byte can end a chunk, the rest in the
/// next one), and a sequence cut short by ASCII.
const END_SEQUENCES: &[&[u8]] = &[b"\x80", b"\xFF", b"\xED\xA0\x80", b"\xC0\xAF", b"\xE2\x82A"];

/// Inputs of three chunks of each width in [`FIXED_WIDTHS`] and 37 bytes more (a
/// length no width divides), cut into chunks of that width, with one sequence of
/// [`END_SEQUENCES`] starting at the first byte of a chunk, at its last byte, or
/// ending at its last byte, in every chunk; and each input without the sequence.
fn fixed_chunks(run: &mut Run) {
    let texts = Texts::new();
    for &width in FIXED_WIDTHS {
        let len = 3 * width + 37;
        // Mixed text, text without ASCII, and ASCII (the sequence then the only
        // non-ASCII).
        for style in [0, 2, 3] {
            let salt = width * 7 + style;
            let valid = texts.with(len, 0, b"", style, salt);
            run.inputs += 1;
            run.fixed_width(&Expect::new(&valid), width, &|| {
                format!("{len} bytes of {} text", STYLE_NAMES[style])
            });
            for start in (0..len).step_by(width) {
                let end = (start + width).min(len);
                for &seq in END_SEQUENCES {
                    let mut places = vec![start, end - 1, end.saturating_sub(seq.len())];
                    places.sort_unstable();
                    places.dedup();
                    for at in places {
                        if at + seq.len() > len {
                            continue;
                        }
                        let bytes = texts.with(len, at, seq, style, salt);
                        run.inputs += 1;
                        run.fixed_width(&Expect::new(&bytes), width, &|| {
                            format!(
                                "{len} bytes of {} text with {} at {at}",
                                STYLE_NAMES[style],
                                hex(seq)
                            )
                        });
                    }
                }
            }
        }
    }
}

#[test]
fn fixed_width_chunks_with_errors_at_their_ends() {
    on_every_back_end("fixed_width_chunks_with_errors_at_their_ends", |run| {
        fixed_chunks(run);
        // Each width's chunks meet whatever states the text leaves: the other
        // tests cover every state.
        0..0
    });
}

/// Ill-formed sequences of each kind, and sequences cut short, for the long
/// chunks.
fn long_sequences() -> Vec<&'static [u8]> {
    let mut all: Vec<&'static [u8]> = Vec::new();
    all.extend_from_slice(ILL_FORMED);
    all.extend_from_slice(MORE_ILL_FORMED);
    all.extend_from_slice(TRUNCATED);
    all.extend_from_slice(&[b"\xE0", b"\xED", b"\xF4\x8F"]);
    all
}

#[test]
fn block_edges_of_long_chunks() {
    on_every_back_end("block_edges_of_long_chunks", |run| {
        long_chunks(
            run,
            &LongPlan {
                lengths: &[1024, 1089],
                aligns: &[0, 1, 63],
                sequences: vec![
                    b"\x80",
                    b"\xBF",
                    b"\xC0\xAF",
                    b"\xFF",
                    b"\xE0\x9F\xBF",
                    b"\xED\xA0\x80",
                    b"\xF4\x90\x80\x80",
                    b"\xE2\x82A",
                    b"\xF0\x9F\x98",
                ],
                blocks: &[],
            },
        );
        bucket(1024)..BUCKETS.len()
    });
}

#[test]
#[ignore = "exhaustive: run in release (--profile test-release -- --include-ignored)"]
fn block_edges_of_long_chunks_every_block() {
    on_every_back_end("block_edges_of_long_chunks_every_block", |run| {
        long_chunks(
            run,
            &LongPlan {
                lengths: &[1024, 1025, 1089, 2000, 2048],
                aligns: &[0, 1, 3, 32, 61, 63],
                sequences: long_sequences(),
                blocks: &[],
            },
        );
        bucket(1024)..BUCKETS.len()
    });
}

/// The model against the header's examples and the RFC grammar (no library call).
#[test]
fn the_model_gives_the_documented_states() {
    let cases: &[(&[u8], u32)] = &[
        (b"", START),
        (b"a", START),
        ("é😀".as_bytes(), START),
        (b"\xC2", A),
        (b"\xE0", C),
        (b"\xE0\xA0", A),
        (b"\xED", D),
        (b"\xED\x9F", A),
        (b"\xE1", B),
        (b"\xEE\x80", A),
        (b"\xF0", F),
        (b"\xF0\x90", B),
        (b"\xF0\x90\x80", A),
        (b"\xF1", E),
        (b"\xF3\x80\x80", A),
        (b"\xF4", G),
        (b"\xF4\x8F", B),
        (b"\x80", ERROR),
        (b"\xC0", ERROR),
        (b"\xF5", ERROR),
        (b"\xE0\x9F", ERROR),
        (b"\xED\xA0", ERROR),
        (b"\xF0\x8F", ERROR),
        (b"\xF4\x90", ERROR),
        (b"\xC3A", ERROR),
        (b"ab\xE2\x82", A),
        (b"\x80ab\xE2", ERROR),
    ];
    for &(bytes, want) in cases {
        assert_eq!(state_after(bytes), want, "{bytes:02X?}");
        let exp = Expect::new(bytes);
        assert_eq!(exp.state_at(bytes.len()), want, "{bytes:02X?}");
    }
    // Every prefix of inputs with errors, by `Expect` (O(1) per prefix) and by std
    // on the prefix; START exactly where the RFC grammar accepts the prefix.
    let texts = Texts::new();
    for (i, &seq) in every_sequence().iter().enumerate() {
        for (len, at) in (seq.len()..12)
            .flat_map(|len| (0..=len - seq.len()).map(move |at| (len, at)))
            .chain([(40, 17)])
        {
            let input = texts.with(len, at, seq, (i + at) % STYLES, i + at);
            let exp = Expect::new(&input);
            for n in 0..=input.len() {
                let prefix = &input[..n];
                assert_eq!(exp.state_at(n), state_after(prefix), "{input:02X?} at {n}");
                assert_eq!(
                    exp.check_at(n),
                    expected_check(prefix),
                    "{input:02X?} at {n}"
                );
                assert_eq!(
                    exp.state_at(n) == START,
                    oracle::rfc_first_error(prefix).is_none(),
                    "{input:02X?} at {n}"
                );
            }
        }
    }
    assert_eq!(
        expected_check(b"ab\xE2\x82"),
        Err(Detail::new(2, 2, ErrorKind::Truncated))
    );
}
