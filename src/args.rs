//! What every C entry point does with its arguments: a buffer that may be NULL
//! ([`input`]) and an error that may be NULL ([`store_outcome`]).

use core::ffi::c_char;

use crate::error::CUtf8Error;
use utf8validate_core::Utf8Error;

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
/// stored in its C shape, and `None` (a NULL input that could not be read) becomes
/// `{0, 0, INVALID_BYTE}`, the documented answer for NULL with a non-zero length.
///
/// # Safety
/// Unless it is NULL, `err` must point to a writable `utf8_error`.
pub(crate) unsafe fn store_outcome(
    outcome: Option<Result<(), Utf8Error>>,
    end: usize,
    err: *mut CUtf8Error,
) -> bool {
    let (ok, detail) = match outcome {
        Some(Ok(())) => (true, CUtf8Error::none(end)),
        Some(Err(e)) => (false, CUtf8Error::from(e)),
        None => (false, CUtf8Error::UNREADABLE),
    };
    if !err.is_null() {
        // SAFETY: `err` is non-NULL and the caller guarantees it points to a writable
        // `utf8_error`; `write` does not read the (possibly uninitialised) old value.
        unsafe { err.write(detail) };
    }
    ok
}

/// The maximal subpart `(offset, length)` of the `utf8_error` at `err`, or `None`
/// for NULL. Only these two fields are read: a C caller may have put any value in
/// `kind`, which is not a valid `CErrorKind` then, so `*err` is never read whole.
///
/// # Safety
/// Unless it is NULL, `err` must point to a readable `utf8_error`.
pub(crate) unsafe fn error_subpart(err: *const CUtf8Error) -> Option<(usize, usize)> {
    if err.is_null() {
        return None;
    }
    // SAFETY: `err` is non-NULL and points to a readable `utf8_error` (caller
    // contract); `addr_of!` reads the two fields without a reference to the struct.
    Some(unsafe {
        (
            core::ptr::addr_of!((*err).offset).read(),
            core::ptr::addr_of!((*err).length).read(),
        )
    })
}

/// The `kind` field of the `utf8_error` at `err` as the `int` it holds (any value a
/// C caller stored), or `None` for NULL.
///
/// # Safety
/// Unless it is NULL, `err` must point to a readable `utf8_error`.
pub(crate) unsafe fn error_kind_raw(err: *const CUtf8Error) -> Option<u32> {
    if err.is_null() {
        return None;
    }
    // SAFETY: as in `error_subpart`; the field is read as the 32-bit integer a C
    // enum is stored as, not as a `CErrorKind`, whose invalid values would be UB.
    Some(unsafe { core::ptr::addr_of!((*err).kind).cast::<u32>().read() })
}
