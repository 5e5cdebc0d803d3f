//! The C ABI: every `extern "C"` function of `libutf8validate`, declared for C in
//! `include/utf8validate.h` (generated from this file by `build.rs` with cbindgen;
//! the doc comments below become the header's comments, so they are written for C).
//!
//! Rules every function here follows:
//! - a `NULL` buffer with length 0 is the empty buffer; a `NULL` buffer with a
//!   non-zero length is never dereferenced and is answered as documented per function;
//! - nothing is read outside `[buf, buf + len)`, nothing is allocated or written
//!   (except by the functions behind the header's debug macros, in `assert.rs`: on
//!   ill-formed input they build a report line, write it to stderr and, for the
//!   assertions, abort);
//! - no function can panic (the crate denies clippy's panicking-construct lints), so
//!   nothing can unwind into C; and were a panic ever to reach one of these
//!   `extern "C"` (not `"C-unwind"`) functions, Rust (1.81 and later; this crate needs
//!   1.88) aborts the process instead of unwinding into the caller.

use core::ffi::c_char;

mod validate;
pub use validate::*;
mod state_machine;
pub use state_machine::*;
mod diagnostics;
pub use diagnostics::*;
mod version;
pub use version::*;
mod assert;
pub use assert::*;
mod stream;
pub use stream::*;
mod escape;
pub use escape::*;

/// The bytes `[buf, buf + len)`, or `None` for a `NULL` `buf` with `len > 0`.
///
/// # Safety
/// When `buf` is not `NULL`, it must point to `len` readable bytes that stay
/// unchanged for `'a`.
#[inline]
pub(crate) unsafe fn input<'a>(buf: *const c_char, len: usize) -> Option<&'a [u8]> {
    if buf.is_null() {
        return if len == 0 { Some(&[]) } else { None };
    }
    // SAFETY: `buf` is non-NULL and the caller guarantees `len` readable bytes there
    // for the duration of the call; `u8` and `c_char` have the same size and alignment.
    Some(unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len) })
}

/// Stores the outcome of a check in `*err` (unless `err` is NULL) and returns the
/// verdict: `Ok` at `end` (the length checked) becomes `{end, 0, NONE}`, an error is
/// stored as it is, and `None` (a NULL input that could not be read) becomes
/// `{0, 0, INVALID_BYTE}`, the documented answer for NULL with a non-zero length.
///
/// # Safety
/// Unless it is NULL, `err` must point to a writable `utf8_error`.
pub(crate) unsafe fn report(
    outcome: Option<Result<(), crate::Utf8Error>>,
    end: usize,
    err: *mut crate::Utf8Error,
) -> bool {
    use crate::{ErrorKind, Utf8Error};
    let (ok, detail) = match outcome {
        Some(Ok(())) => (
            true,
            Utf8Error {
                offset: end,
                length: 0,
                kind: ErrorKind::None,
            },
        ),
        Some(Err(e)) => (false, e),
        None => (
            false,
            Utf8Error {
                offset: 0,
                length: 0,
                kind: ErrorKind::InvalidByte,
            },
        ),
    };
    if !err.is_null() {
        // SAFETY: `err` is non-NULL and the caller guarantees it points to a writable
        // `utf8_error`; `write` does not read the (possibly uninitialised) old value.
        unsafe { err.write(detail) };
    }
    ok
}
