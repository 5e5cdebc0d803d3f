//! Error detail for C: `utf8_check` and the names and messages of the error kinds.

use core::ffi::c_char;

use crate::args::{input, store_outcome};
use crate::error::{CErrorKind, CUtf8Error};
use utf8validate_core::check;

/// A `utf8_error_kind` as C passes it: any 32-bit value, of which only 0-7 name a
/// kind (same reasoning as `StateArg`). The header names it `utf8_error_kind`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
pub struct ErrorKindArg(pub u32);

/// Checks whether `buf[0..len)` is well-formed UTF-8 (RFC 3629 section 4) and, when
/// it is not, says where the first ill-formed sequence starts, how long its maximal
/// subpart is (Unicode section 3.9) and why it is ill-formed.
///
/// - `buf`: the bytes to check; `len`: their number, in bytes.
/// - `err`: where to store the detail; may be NULL when only the verdict is wanted.
/// - Returns true iff the buffer is valid; then `*err` (if given) is set to
///   `{ .offset = len, .length = 0, .kind = UTF8_ERROR_NONE }`.
/// - Returns false otherwise, with `err->offset` equal to `utf8_first_error`,
///   `err->length` the maximal subpart (1-3 bytes; the bytes to the end for
///   `UTF8_ERROR_TRUNCATED`; equal to Rust's `Utf8Error::error_len()` and to
///   Python's `UnicodeDecodeError.end - start`) and `err->kind` why (see
///   `utf8_error_kind`).
/// - `buf == NULL` with `len > 0` returns false with
///   `{ .offset = 0, .length = 0, .kind = UTF8_ERROR_INVALID_BYTE }` (length 0 marks
///   that no byte was read); `buf` is not dereferenced.
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`; writes only `*err`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes, and unless
/// it is NULL, `err` must point to a writable `utf8_error`.
#[no_mangle]
pub unsafe extern "C" fn utf8_check(buf: *const c_char, len: usize, err: *mut CUtf8Error) -> bool {
    // SAFETY: forwarded caller contract (`buf` readable for `len` bytes, `err`
    // writable when non-NULL).
    unsafe {
        let outcome = input(buf, len).map(check);
        store_outcome(outcome, len, err)
    }
}

/// The stable snake_case name of an error kind, e.g. `"surrogate"` for
/// `UTF8_ERROR_SURROGATE`: for logs and machine-readable output. Names never change
/// once released. The kinds are the ways a byte sequence can fail the well-formed
/// forms of RFC 3629 section 4 (Unicode §3.9, Table 3-7).
///
/// - Returns a static NUL-terminated string (never free it); `"unknown"` for a value
///   that is not a `utf8_error_kind` (never NULL).
/// - Thread-safe; allocates nothing.
#[no_mangle]
pub extern "C" fn utf8_error_kind_name(kind: ErrorKindArg) -> *const c_char {
    let text: &[u8] = match CErrorKind::from_raw(kind.0) {
        Some(k) => k.name(),
        None => b"unknown\0",
    };
    text.as_ptr().cast::<c_char>()
}

/// One English sentence describing an error kind, e.g. for `UTF8_ERROR_OVERLONG`
/// "An overlong (non-shortest) form encodes a code point with more bytes than
/// needed.".
///
/// - Returns a static NUL-terminated string (never free it); for a value that is
///   not a `utf8_error_kind`, a sentence saying so (never NULL).
/// - The sentences name the rules of RFC 3629 section 4 (Unicode §3.9, Table 3-7)
///   that the sequence breaks. They may be reworded between releases; match on the
///   kind or its name, not on the sentence.
/// - Thread-safe; allocates nothing.
#[no_mangle]
pub extern "C" fn utf8_error_kind_message(kind: ErrorKindArg) -> *const c_char {
    let text: &[u8] = match CErrorKind::from_raw(kind.0) {
        Some(k) => k.message(),
        None => b"The value is not a utf8_error_kind.\0",
    };
    text.as_ptr().cast::<c_char>()
}
