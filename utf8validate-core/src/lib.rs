//! # utf8validate-core
//!
//! Fast, exact UTF-8 validation for Rust: the `no_std` crate behind the C library
//! `libutf8validate` (`libutf8validate.so`, `libutf8validate.a`, `utf8validate.h`),
//! with the same answers. It needs neither the standard library nor an allocator,
//! and builds for targets without an operating system (where the scalar machine
//! serves).
//!
//! "Valid" means well-formed UTF-8 as RFC 3629 §4 defines it (the `UTF8-octets`
//! grammar), which is the same set as Unicode §3.9, Table 3-7 "Well-Formed UTF-8 Byte
//! Sequences", and the same set Rust's [`core::str::from_utf8`] accepts. It rejects
//! the obsolete 5- and 6-byte forms of RFC 2279 (lead bytes F8-FD) and the bytes
//! FE-FF, overlong (non-shortest) forms (C0, C1, E0 80-9F, F0 80-8F), UTF-16
//! surrogates (ED A0-BF), and values above U+10FFFF (F4 90-BF, F5-F7).
//!
//! The definition the library is built on is the state machine of Frank Yung-Fong
//! Tang's draft "The Algorithm to Validate an UTF-8 String" (v0.4), in
//! [`state_machine`]; every function here gives the same answer as that machine.
//!
//! ## In std's shape
//!
//! [`from_utf8`] and [`from_utf8_mut`] are drop-in replacements for
//! [`core::str::from_utf8`] and [`core::str::from_utf8_mut`]: the same `Ok` value and,
//! on ill-formed input, an error whose [`valid_up_to`](Utf8Error::valid_up_to) and
//! [`error_len`](Utf8Error::error_len) are std's for the same bytes. Switching is one
//! `use` line. The error also says why the sequence is ill-formed
//! ([`kind`](Utf8Error::kind), an [`ErrorKind`]) and how long its maximal subpart is
//! even when the input ends inside it ([`subpart_len`](Utf8Error::subpart_len)).
//!
//! ```
//! use utf8validate_core::{from_utf8, ErrorKind};
//!
//! assert_eq!(from_utf8("naïve".as_bytes()), Ok("naïve"));
//! let e = from_utf8(b"ab\xED\xA0\x80").unwrap_err();
//! let std = core::str::from_utf8(b"ab\xED\xA0\x80").unwrap_err();
//! assert_eq!((e.valid_up_to(), e.error_len()), (std.valid_up_to(), std.error_len()));
//! assert_eq!(e.kind(), ErrorKind::Surrogate);
//! ```
//!
//! ## Errors and `?`
//!
//! [`from_utf8`], [`check`] (when only the verdict matters) and [`Stream::finish`]
//! (for data in chunks) return a [`Utf8Error`]. It implements
//! [`core::fmt::Display`] and [`core::error::Error`], so `?` passes it up as a
//! `Box<dyn Error>`, as it does std's `Utf8Error`:
//!
//! ```
//! use utf8validate_core::check;
//!
//! fn field_count(line: &[u8]) -> Result<usize, Box<dyn core::error::Error>> {
//!     check(line)?;
//!     Ok(line.split(|&b| b == b',').count())
//! }
//!
//! assert_eq!(field_count("a,b,ç".as_bytes()).unwrap(), 3);
//! let e = field_count(b"a,\xED\xA0\x80").unwrap_err();
//! assert_eq!(
//!     e.to_string(),
//!     "ill-formed UTF-8 at byte offset 2: encoded UTF-16 surrogate (maximal subpart of 1 byte)"
//! );
//! ```
//!
//! ## Data flow
//!
//! bytes → `dispatch` (the back end chosen once per process: AVX-512, AVX2, SSSE3,
//! NEON or the scalar machine) → `ladder` (what runs for that many bytes: one
//! `match` on the length, each arm one worker of the back end) → on error, the
//! exact offset from the draft's machine from the last character boundary →
//! result ([`diagnostics`] for the detail). The C library's `extern "C"` functions
//! are a thin layer over these (the `utf8validate` package at the top of the
//! repository).
//!
//! Each module uses only those before it in this list, the order of that path: the
//! draft's machine ([`state_machine`]); the lengths the route changes at
//! (`sizes`); lead and continuation bytes (`sequence`, `ascii`); the engines,
//! which check bytes (`scalar`, `answer` for a whole input's two answers, `chunk`
//! for data in chunks, `simd`); `implementation` for what every back end provides;
//! `ladder`; `dispatch`, with the entry points ([`validate`], [`first_error`],
//! [`valid_up_to`], [`validate_chunk`]); the rest of the Rust API
//! ([`diagnostics`], [`stream`], [`percent`] for percent-encoded text, [`escape`]
//! and [`excerpt`] for log lines, and [`from_utf8`] here). The back ends know
//! nothing of the [`Stream`]: they hand a chunk's state on to an opaque pointer
//! (`chunk::HandOff`), and `stream` compiles its bookkeeping into them through its
//! `ChunkEnd` for that type.
//!
//! ## Guarantees (Rust and C alike)
//!
//! - No allocation and no I/O. The only global state besides read-only tables is the
//!   cached choice of back end (an atomic, written on the first call with the same
//!   value by every thread).
//! - No read outside the given slice (`[buf, buf + len)` in C).
//! - Thread-safe: every function is pure and may be called from any number of
//!   threads at once.
//! - No panics on any input.

#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
// No panicking constructs in the library (its unit tests may use them): nothing may
// unwind towards C, and an abort is no answer for a server. Indexing is denied too;
// the few table lookups whose index is in range by its type (a byte into 256
// entries) say so where they are allowed. `.ci/panic-free.sh` checks the compiled
// library: it calls no panic routine at all.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

// Unit tests use std (assertions, formatting); the library itself never does.
#[cfg(test)]
extern crate std;
#[cfg(test)]
mod test_inputs;

// The modules, from the bottom up, one group per step of the list above: the
// draft's machine; lead and continuation bytes; the engines (the scalar back end,
// data in chunks, what every back end provides, and the vector back ends, on
// targets that have one: see build.rs); the dispatch between them; the Rust API
// built on it (with the functions in this file). `hint` is a helper of any.
mod hint;
mod sizes;

pub mod state_machine;

mod ascii;
mod sequence;

mod scalar;

mod answer;
mod chunk;

#[cfg(simd_back_end)]
mod simd;

mod implementation;
mod ladder;

mod dispatch;

pub mod diagnostics;

pub mod stream;

pub mod percent;

pub mod escape;

pub mod excerpt;

// The examples of the crate's README run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// Every back end this CPU supports, for tests and benchmarks (not a stable API).
#[doc(hidden)]
pub use dispatch::backends;

pub use diagnostics::{check, ErrorKind, Utf8Error};
#[doc(hidden)]
pub use dispatch::validate_entry_point;
pub use dispatch::{first_error, valid_up_to, validate, validate_chunk};
pub use escape::{escape_into, replace_into, Rendered};
pub use percent::{check_percent, PercentError};
pub use state_machine::{byte_class, next_state, ByteClass, State};
pub use stream::Stream;

/// Converts a slice of bytes to a string slice if it is well-formed UTF-8 (RFC 3629
/// §4; Unicode §3.9, Table 3-7), as [`core::str::from_utf8`] does, with the same
/// answers: the same `Ok` value, or an error whose
/// [`valid_up_to`](Utf8Error::valid_up_to) and [`error_len`](Utf8Error::error_len)
/// are std's, and which also gives the [`kind`](Utf8Error::kind) of the first
/// ill-formed sequence. Checked by the fastest back end this CPU supports.
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// use utf8validate_core::{from_utf8, ErrorKind};
/// assert_eq!(from_utf8(b"caf\xC3\xA9"), Ok("café"));
/// let e = from_utf8(b"caf\xC3").unwrap_err();          // 'é' cut short
/// assert_eq!((e.valid_up_to(), e.error_len()), (3, None));
/// assert_eq!(e.kind(), ErrorKind::Truncated);
/// ```
pub fn from_utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    check(bytes)?;
    // SAFETY: `check` returned `Ok`, so `bytes` is well-formed UTF-8 (RFC 3629 §4),
    // the set of byte strings a `str` may hold: the same set std's `from_utf8`
    // accepts (tests/exhaustive.rs compares the two on every short input).
    Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// [`from_utf8`] for a mutable slice, as [`core::str::from_utf8_mut`]: the same
/// check, and the same slice as a `&mut str` when it is well-formed UTF-8.
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// let mut word = *b"ascii";
/// let text = utf8validate_core::from_utf8_mut(&mut word).unwrap();
/// text.make_ascii_uppercase();
/// assert_eq!(text, "ASCII");
/// assert!(utf8validate_core::from_utf8_mut(&mut [b'a', 0xFF]).is_err());
/// ```
pub fn from_utf8_mut(bytes: &mut [u8]) -> Result<&mut str, Utf8Error> {
    check(bytes)?;
    // SAFETY: as in `from_utf8`: `check` found `bytes` well-formed UTF-8, and a
    // `&mut str` may only be written through in ways that keep it so.
    Ok(unsafe { core::str::from_utf8_unchecked_mut(bytes) })
}

/// The library's version, `MAJOR.MINOR.PATCH`, as in `Cargo.toml`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
