//! # utf8validate
//!
//! Fast, exact UTF-8 validation, shipped as a C library (`libutf8validate.so`,
//! `libutf8validate.a`, `include/utf8validate.h`) and usable from Rust as this crate.
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
//! ## Data flow
//!
//! bytes → `dispatch` (the back end chosen once per process: AVX-512, AVX2, SSSE3,
//! NEON or the scalar machine) → on error, the exact offset from the draft's machine
//! from the last character boundary → result ([`diagnostics`] for the detail) → the C
//! ABI in [`ffi`].
//!
//! ## Guarantees (Rust and C alike)
//!
//! - No allocation and no I/O on the validation paths. The only global state besides
//!   read-only tables is the cached choice of back end (an atomic, written on the
//!   first call with the same value by every thread). The debug-assertion functions
//!   of [`ffi`] allocate and write to stderr only when they report a failure.
//! - No read outside the given slice (`[buf, buf + len)` in C).
//! - Thread-safe: every function is pure and may be called from any number of
//!   threads at once.
//! - No panics on any input; the C entry points never unwind into C.

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

pub mod diagnostics;
mod dispatch;
pub mod escape;
pub mod ffi;
mod scalar;
mod simd;
pub mod state_machine;
pub mod stream;

/// Every back end this CPU supports, for tests and benchmarks (not a stable API).
#[doc(hidden)]
pub use dispatch::backends;

pub use diagnostics::{check, ErrorKind, Utf8Error};
pub use escape::{escape_into, replace_into, Rendered};
pub use state_machine::{byte_class, next_state, ByteClass, State};
pub use stream::Stream;

/// True iff `bytes` is well-formed UTF-8 (RFC 3629 §4; Unicode §3.9, Table 3-7).
///
/// The empty slice is valid. Equivalent to `core::str::from_utf8(bytes).is_ok()`.
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// assert!(utf8validate::validate("naïve €".as_bytes()));
/// assert!(!utf8validate::validate(b"\xC0\xAF")); // overlong '/'
/// ```
// Not `#[inline]`, so that `dispatch::CURRENT` stays local: see there.
pub fn validate(bytes: &[u8]) -> bool {
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
/// assert_eq!(utf8validate::first_error(b"abc"), None);
/// assert_eq!(utf8validate::first_error(b"ab\xED\xA0\x80"), Some(2)); // surrogate
/// assert_eq!(utf8validate::first_error(b"ab\xE2\x82"), Some(2));     // truncated
/// ```
// Not `#[inline]`, so that `dispatch::CURRENT` stays local: see there.
pub fn first_error(bytes: &[u8]) -> Option<usize> {
    dispatch::first_error(bytes)
}

/// Runs the draft's state machine over `bytes`, starting from `state`, and returns
/// the state it ends in: the streaming form of [`validate`].
///
/// Feeding the pieces of a buffer in order, starting from [`State::Start`], ends in
/// `State::Start` iff the whole buffer is valid, however it was split. A final state
/// other than `Start` and `Error` means the data ended inside a sequence;
/// [`State::Error`] is absorbing (once there, every later call returns it).
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// use utf8validate::{validate_chunk, State};
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
