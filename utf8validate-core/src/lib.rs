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
//! ## Errors and `?`
//!
//! [`check`] (and [`Stream::finish`] for data in chunks) returns a [`Utf8Error`]: the
//! byte offset of the first ill-formed sequence, the length of its maximal subpart
//! (Unicode §3.9) and its [`ErrorKind`]. It implements [`core::fmt::Display`] and
//! [`core::error::Error`], so `?` passes it up as a `Box<dyn Error>`, as it does
//! std's `Utf8Error`:
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
//! `ladder`; `dispatch`; the Rust API ([`diagnostics`], [`stream`], [`percent`]
//! for percent-encoded text, [`escape`] and [`excerpt`] for log lines, and the
//! functions here). The back ends know nothing of the [`Stream`]: they hand a
//! chunk's state on to an opaque pointer (`chunk::HandOff`), and `stream` compiles
//! its bookkeeping into them through its `ChunkEnd` for that type.
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
pub use escape::{escape_into, replace_into, Rendered};
pub use percent::{check_percent, PercentError};
pub use state_machine::{byte_class, next_state, ByteClass, State};
pub use stream::Stream;

/// True iff `bytes` is well-formed UTF-8 (RFC 3629 §4; Unicode §3.9, Table 3-7).
///
/// The empty slice is valid. Equivalent to `core::str::from_utf8(bytes).is_ok()`.
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// assert!(utf8validate_core::validate("naïve €".as_bytes()));
/// assert!(!utf8validate_core::validate(b"\xC0\xAF")); // overlong '/'
/// ```
// `#[inline]`: a caller in another crate answers short ASCII itself, with no call,
// and other input of up to 8 bytes with the scalar machine; the rest is a call to
// `dispatch::validate_rest`, which is not inlinable, so that `dispatch::CURRENT`
// stays local: see there.
#[inline]
pub fn validate(bytes: &[u8]) -> bool {
    dispatch::validate_in_caller(bytes)
}

/// True iff `bytes` is well-formed UTF-8 (RFC 3629 §4; Unicode §3.9): the answer
/// of [`validate`], in the shape for an entry point that is compiled once rather
/// than inlined into its callers (the C library's `utf8_validate`, whose machine
/// code is measured as it stands). Thread-safe, allocation-free, reads only
/// `bytes`. Not a stable API: Rust callers use [`validate`].
#[doc(hidden)]
#[inline]
pub fn validate_entry_point(bytes: &[u8]) -> bool {
    dispatch::validate(bytes)
}

/// The byte offset of the first byte of the first ill-formed sequence in `bytes`, or
/// `None` when `bytes` is well-formed UTF-8 (RFC 3629 §4; Unicode §3.9).
///
/// The offset is counted in bytes from the start of `bytes`. It equals Rust's
/// [`core::str::Utf8Error::valid_up_to`] and Python's `UnicodeDecodeError.start`:
/// `bytes[..offset]` is the longest valid prefix that ends on a character boundary.
/// A sequence cut short by the end of `bytes` (for example a lone `E2 82`) reports the
/// offset of its lead byte. Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// assert_eq!(utf8validate_core::first_error(b"abc"), None);
/// assert_eq!(utf8validate_core::first_error(b"ab\xED\xA0\x80"), Some(2)); // surrogate
/// assert_eq!(utf8validate_core::first_error(b"ab\xE2\x82"), Some(2));     // truncated
/// ```
// `#[inline]`, as `validate` is (short ASCII in the caller, the rest in
// `dispatch::first_error_rest`, which keeps `dispatch::CURRENT` local).
#[inline]
pub fn first_error(bytes: &[u8]) -> Option<usize> {
    dispatch::first_error(bytes)
}

/// The length of the longest prefix of `bytes` that is well-formed UTF-8 (RFC 3629
/// §4; Unicode §3.9): the offset of the first byte of the first ill-formed sequence,
/// or `bytes.len()` when `bytes` is well-formed.
///
/// The same number as [`first_error`] without the `Option`, and as Rust's
/// [`core::str::Utf8Error::valid_up_to`]; the C function `utf8_first_error` returns it.
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// assert_eq!(utf8validate_core::valid_up_to(b"abc"), 3);
/// assert_eq!(utf8validate_core::valid_up_to(b"ab\xC0\xAF"), 2); // overlong '/'
/// ```
// Not `#[inline]`, so that `dispatch::CURRENT` stays local: see there.
pub fn valid_up_to(bytes: &[u8]) -> usize {
    dispatch::first_error_offset(bytes)
}

/// Runs the draft's state machine over `bytes`, starting from `state`, and returns
/// the state it ends in: the streaming form of [`validate`].
///
/// Feeding the chunks of a buffer in order, starting from [`State::Start`], ends in
/// `State::Start` iff the whole buffer is well-formed UTF-8 (RFC 3629 §4; Unicode
/// §3.9, Table 3-7), however it was split. A final state
/// other than `Start` and `Error` means the data ended inside a sequence;
/// [`State::Error`] is absorbing (once there, every later call returns it).
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// use utf8validate_core::{validate_chunk, State};
/// let s = validate_chunk(State::Start, b"caf\xC3");  // 'é' split in two
/// assert_eq!(s, State::A);
/// assert_eq!(validate_chunk(s, b"\xA9!"), State::Start);
/// ```
// Not `#[inline]`, so that `dispatch::CURRENT` stays local: see there.
pub fn validate_chunk(state: State, bytes: &[u8]) -> State {
    dispatch::validate_chunk(state, bytes)
}

/// The library's version, `MAJOR.MINOR.PATCH`, as in `Cargo.toml`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
