//! The C ABI: every `extern "C"` function of `libutf8validate`, declared for C in
//! `include/utf8validate.h` (generated from this file by `build.rs` with cbindgen;
//! the doc comments below become the header's comments, so they are written for C).
//!
//! Rules every function here follows:
//! - a `NULL` buffer with length 0 is the empty buffer; a `NULL` buffer with a
//!   non-zero length is never dereferenced and is answered as documented per function;
//! - nothing is read outside `[buf, buf + len)`, nothing is allocated or written;
//! - no function can panic, so nothing can unwind into C (and the release profile
//!   aborts on panic as a second line of defence).

use core::ffi::c_char;

use crate::state_machine::{self, State};

/// A `utf8_state` as C passes it: any 32-bit value, of which only 0-8 name a state.
///
/// Taking the raw value (instead of [`State`]) keeps an out-of-range value from C
/// defined behaviour; it is then treated as `UTF8_STATE_ERROR`. It has the size and
/// calling convention of the C enum, and the header names it `utf8_state`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
pub struct StateArg(pub u32);

impl StateArg {
    fn get(self) -> State {
        State::from_raw(self.0)
    }
}

/// The bytes `[buf, buf + len)`, or `None` for a `NULL` `buf` with `len > 0`.
///
/// # Safety
/// When `buf` is not `NULL`, it must point to `len` readable bytes that stay
/// unchanged for `'a`.
#[inline]
unsafe fn input<'a>(buf: *const c_char, len: usize) -> Option<&'a [u8]> {
    if buf.is_null() {
        return if len == 0 { Some(&[]) } else { None };
    }
    // SAFETY: `buf` is non-NULL and the caller guarantees `len` readable bytes there
    // for the duration of the call; `u8` and `c_char` have the same size and alignment.
    Some(unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len) })
}

/// Checks whether `buf[0..len)` is well-formed UTF-8 (RFC 3629 section 4; Unicode
/// section 3.9, Table 3-7).
///
/// - `buf`: the bytes to check; `len`: their number, in bytes.
/// - Returns true iff every byte belongs to a well-formed sequence: no stray
///   continuation byte, no truncated sequence, no overlong form (C0, C1, E0 80-9F,
///   F0 80-8F), no surrogate (ED A0-BF), nothing above U+10FFFF (F4 90-BF, F5-FF).
/// - The empty buffer (`len == 0`, any `buf` including NULL) is valid.
/// - `buf == NULL` with `len > 0` returns false; `buf` is not dereferenced.
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`; never aborts.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn utf8_validate(buf: *const c_char, len: usize) -> bool {
    // SAFETY: forwarded caller contract.
    match unsafe { input(buf, len) } {
        Some(bytes) => crate::validate(bytes),
        None => false,
    }
}

/// Finds the first ill-formed sequence in `buf[0..len)` (RFC 3629 section 4;
/// Unicode section 3.9).
///
/// - `buf`: the bytes to check; `len`: their number, in bytes.
/// - Returns the byte offset (from `buf`) of the first byte of the first ill-formed
///   sequence, or `len` when the whole buffer is valid. `buf[0..result)` is always
///   valid UTF-8 ending on a character boundary.
/// - A sequence cut short by the end of the buffer (e.g. a final `E2 82`) reports
///   the offset of its lead byte.
/// - The result equals Rust's `Utf8Error::valid_up_to()` and Python's
///   `UnicodeDecodeError.start` for the same bytes.
/// - `buf == NULL` with `len > 0` returns 0 (invalid at the first byte); `buf` is
///   not dereferenced. `len == 0` returns 0.
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`; never aborts.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn utf8_first_error(buf: *const c_char, len: usize) -> usize {
    // SAFETY: forwarded caller contract.
    match unsafe { input(buf, len) } {
        Some(bytes) => crate::first_error(bytes).unwrap_or(len),
        None => 0,
    }
}

/// The class (0-11) of one byte in the draft's state machine (Tang, "The Algorithm
/// to Validate an UTF-8 String", v0.4):
/// 0: 00-7F, 1: 80-8F, 2: 90-9F, 3: A0-BF, 4: C0-C1 and F5-FF, 5: C2-DF, 6: E0,
/// 7: E1-EC and EE-EF, 8: ED, 9: F0, 10: F1-F3, 11: F4.
///
/// Total (every byte has a class); thread-safe; allocates nothing.
#[no_mangle]
pub extern "C" fn utf8_byte_class(byte: u8) -> u8 {
    state_machine::byte_class(byte)
}

/// One step of the draft's state machine: the state after reading `byte` in
/// `state`.
///
/// - `UTF8_STATE_ERROR` is absorbing: it is returned for every byte.
/// - A `state` outside `UTF8_STATE_START..UTF8_STATE_ERROR` is treated as
///   `UTF8_STATE_ERROR`.
/// - Thread-safe; allocates nothing.
#[no_mangle]
pub extern "C" fn utf8_next_state(state: StateArg, byte: u8) -> State {
    state_machine::next_state(state.get(), byte)
}

/// Runs the draft's state machine over `buf[0..len)` from `state` and returns the
/// state it ends in: validation of data that arrives in pieces.
///
/// - Start with `UTF8_STATE_START` and pass each result to the next call. Whatever
///   the split, the final result is `UTF8_STATE_START` iff the concatenation is
///   well-formed UTF-8 (RFC 3629 section 4).
/// - `UTF8_STATE_ERROR`: an ill-formed sequence was seen; absorbing.
/// - Any other result: the data so far ends inside a sequence (more continuation
///   bytes are needed); if the input ends there, it is truncated, hence invalid.
/// - A `state` outside `UTF8_STATE_START..UTF8_STATE_ERROR` is treated as
///   `UTF8_STATE_ERROR`.
/// - `len == 0` returns `state` unchanged (any `buf`, including NULL).
///   `buf == NULL` with `len > 0` returns `UTF8_STATE_ERROR`; `buf` is not
///   dereferenced.
/// - Thread-safe (the state lives with the caller); allocates nothing; reads only
///   `buf[0..len)`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn utf8_validate_chunk(
    state: StateArg,
    buf: *const c_char,
    len: usize,
) -> State {
    // SAFETY: forwarded caller contract.
    match unsafe { input(buf, len) } {
        Some(bytes) => crate::validate_chunk(state.get(), bytes),
        None => State::Error,
    }
}

/// The library's version as a NUL-terminated string, `"MAJOR.MINOR.PATCH"`: the
/// version of the library actually linked, to compare with the
/// `UTF8VALIDATE_VERSION_*` macros of the header compiled against.
///
/// The string is static: never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn utf8validate_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0")
        .as_ptr()
        .cast::<c_char>()
}
