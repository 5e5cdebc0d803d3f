//! `utf8_validate`, `utf8_first_error` and their NUL-terminated forms.

use core::ffi::c_char;

use crate::args::input;

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
        Some(bytes) => utf8validate_core::validate_entry_point(bytes),
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
        Some(bytes) => utf8validate_core::valid_up_to(bytes),
        None => 0,
    }
}

/// The bytes of the NUL-terminated string `s`, without the NUL; `None` for NULL.
///
/// # Safety
/// Unless it is NULL, `s` must point to a NUL-terminated string.
unsafe fn c_string<'a>(s: *const c_char) -> Option<&'a [u8]> {
    if s.is_null() {
        return None;
    }
    // SAFETY: `s` is non-NULL and the caller guarantees it is NUL-terminated; only the
    // bytes up to and including the NUL are read.
    Some(unsafe { core::ffi::CStr::from_ptr(s) }.to_bytes())
}

/// Checks whether the NUL-terminated string `s` is well-formed UTF-8 (RFC 3629
/// section 4; Unicode section 3.9, Table 3-7), for legacy code and debuggers that
/// hold C strings.
///
/// - `s`: a NUL-terminated string; the terminating NUL is not part of the input
///   (a string cannot contain U+0000, which is valid UTF-8, elsewhere).
/// - Returns true iff the bytes before the NUL are well-formed UTF-8 (see
///   `utf8_validate`); the empty string is valid.
/// - `s == NULL` returns false (there is no string); nothing is dereferenced.
/// - Thread-safe; allocates nothing; reads `s` up to and including its NUL.
///
/// # Safety
/// Unless it is NULL, `s` must point to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn utf8_validate_cstr(s: *const c_char) -> bool {
    // SAFETY: forwarded caller contract.
    match unsafe { c_string(s) } {
        Some(bytes) => utf8validate_core::validate_entry_point(bytes),
        None => false,
    }
}

/// Finds the first ill-formed sequence in the NUL-terminated string `s` (RFC 3629
/// section 4; Unicode section 3.9).
///
/// - `s`: a NUL-terminated string; the terminating NUL is not part of the input.
/// - Returns the byte offset of the first byte of the first ill-formed sequence, or
///   `strlen(s)` when the string is valid (see `utf8_first_error`). A sequence cut
///   short by the NUL reports the offset of its lead byte.
/// - `s == NULL` returns 0; nothing is dereferenced.
/// - Thread-safe; allocates nothing; reads `s` up to and including its NUL.
///
/// # Safety
/// Unless it is NULL, `s` must point to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn utf8_first_error_cstr(s: *const c_char) -> usize {
    // SAFETY: forwarded caller contract.
    match unsafe { c_string(s) } {
        Some(bytes) => utf8validate_core::valid_up_to(bytes),
        None => 0,
    }
}
