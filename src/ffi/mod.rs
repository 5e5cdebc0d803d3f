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
