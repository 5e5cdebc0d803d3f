//! What a check answers: the offset of the first error (for `first_error`), or
//! the verdict alone (for `validate`), each with its own out-of-line scalar
//! fallbacks (the scalar back end's entry points, in `crate::scalar`).

use crate::scalar::{first_error_from_boundary, scalar_first_error, scalar_validate};

/// What [`super::short::check`] answers: the offset of the first error, `usize` (`len`
/// when valid), for the back ends' `first_error`, or the verdict alone, `bool`,
/// for their `validate`. Each answer has its own out-of-line fallbacks
/// (the scalar machine for inputs too short for a vector, and, for the offset,
/// the scalar machine from a character boundary after an error), `extern "C"`
/// functions with the
/// arguments and answer of the entry point itself, so that it ends in a jump to
/// them (a tail call) and needs neither a saved register around a call nor a
/// conversion of its answer after one.
pub(crate) trait Answer {
    /// Well-formed, for an input of `len` bytes.
    fn valid(len: usize) -> Self;
    /// Ill-formed, with every check before offset `passed` of `bytes` passed.
    fn invalid(bytes: &[u8], passed: usize) -> Self;
    /// The scalar machine's answer for `bytes`.
    fn scalar(bytes: &[u8]) -> Self;
}

impl Answer for usize {
    #[inline(always)]
    fn valid(len: usize) -> Self {
        len
    }
    #[inline(always)]
    fn invalid(bytes: &[u8], passed: usize) -> Self {
        offset_from_boundary(bytes, passed)
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_first_error(bytes.as_ptr(), bytes.len()) }
    }
}

impl Answer for bool {
    #[inline(always)]
    fn valid(_: usize) -> Self {
        true
    }
    #[inline(always)]
    fn invalid(_: &[u8], _: usize) -> Self {
        false
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_validate(bytes.as_ptr(), bytes.len()) }
    }
}

/// The offset of the first error of `bytes` (`bytes.len()` when there is none),
/// whose `bytes[..passed]` is a well-formed prefix: the `usize` answer of a vector
/// check that failed after `passed`, by a jump to
/// [`first_error_offset_from_boundary`].
#[inline(always)]
pub(crate) fn offset_from_boundary(bytes: &[u8], passed: usize) -> usize {
    // SAFETY: `bytes` is readable and its pointer is non-NULL; `passed` is
    // forwarded unchanged.
    unsafe { first_error_offset_from_boundary(bytes.as_ptr(), bytes.len(), passed) }
}

/// [`first_error_from_boundary`] with the C calling convention and `len` for
/// "valid", for the `usize` [`Answer`].
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[cold]
#[inline(never)]
unsafe extern "C" fn first_error_offset_from_boundary(
    ptr: *const u8,
    len: usize,
    passed: usize,
) -> usize {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    first_error_from_boundary(unsafe { core::slice::from_raw_parts(ptr, len) }, passed)
        .unwrap_or(len)
}
