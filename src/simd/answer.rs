//! What a check answers: the offset before which every check passed (for
//! `first_error`), or the verdict alone (for `validate`), each with its own
//! out-of-line scalar fallbacks.

use super::boundary::boundary_at_or_before;

/// The scalar machine's check of `bytes`, out of line: for the few inputs too short
/// for a vector, and as the scalar back end's check (its exact first error is a
/// valid `g`). Inlined, it and [`first_error_from_boundary`] made every short input
/// save registers around them: moving both out of line took callgrind's count from
/// 96 to 87 instructions per call on 64 bytes of mixed text with AVX2.
/// (The `bool` answer's fallbacks are reached by jumps: see [`Answer`].)
#[inline(never)]
pub(crate) fn scalar_check(bytes: &[u8]) -> Option<usize> {
    crate::scalar::first_error(bytes)
}

/// The scalar back end's verdict, with the C calling convention (see
/// `crate::dispatch`'s `ValidateFn`), and the `bool` [`Answer`] for inputs too
/// short for a vector.
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[inline(never)]
pub(crate) unsafe extern "C" fn scalar_validate(ptr: *const u8, len: usize) -> bool {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    crate::scalar::first_error(unsafe { core::slice::from_raw_parts(ptr, len) }).is_none()
}

/// What [`super::check`] answers: `Option<usize>` (see the module docs) for the back
/// ends' `check`, or the verdict alone, `bool`, for their `validate`, each with
/// its own out-of-line scalar fallbacks. With `bool`, the fallbacks are
/// `extern "C"` functions with the arguments and answer of `validate` itself, so
/// that it ends in a jump to them (a tail call) and needs neither a saved
/// register around a call nor a conversion of `Option<usize>` to `bool` after
/// one (callgrind, AVX2, 64 mixed bytes: 77 instead of 83 instructions per call).
pub(crate) trait Answer {
    /// Well-formed.
    const VALID: Self;
    /// Ill-formed, with every check before offset `passed` passed.
    fn invalid(passed: usize) -> Self;
    /// The scalar machine's answer for `bytes`.
    fn scalar(bytes: &[u8]) -> Self;
    /// The answer for `bytes`, whose `bytes[..passed]` is a well-formed prefix.
    fn from_boundary(bytes: &[u8], passed: usize) -> Self;
}

impl Answer for Option<usize> {
    const VALID: Self = None;
    #[inline(always)]
    fn invalid(passed: usize) -> Self {
        Some(passed)
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        scalar_check(bytes)
    }
    #[inline(always)]
    fn from_boundary(bytes: &[u8], passed: usize) -> Self {
        first_error_from_boundary(bytes, passed)
    }
}

impl Answer for bool {
    const VALID: Self = true;
    #[inline(always)]
    fn invalid(_: usize) -> Self {
        false
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_validate(bytes.as_ptr(), bytes.len()) }
    }
    #[inline(always)]
    fn from_boundary(bytes: &[u8], passed: usize) -> Self {
        // SAFETY: as in `scalar`, and `passed` is forwarded unchanged.
        unsafe { validate_from_boundary(bytes.as_ptr(), bytes.len(), passed) }
    }
}

/// [`first_error_from_boundary`]'s verdict, with the C calling convention, for
/// the `bool` [`Answer`].
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[cold]
#[inline(never)]
unsafe extern "C" fn validate_from_boundary(ptr: *const u8, len: usize, passed: usize) -> bool {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    first_error_from_boundary(unsafe { core::slice::from_raw_parts(ptr, len) }, passed).is_none()
}

/// The exact first error of `bytes`, given that `bytes[..passed]` is a well-formed
/// prefix: the scalar machine from the last character boundary at or before
/// `passed`, where it is in START. The machine is the source of truth: if it finds
/// no error, there is none. Turns a back end's `g` into the answer of
/// `first_error` (`crate::dispatch`), and checks the last bytes of inputs one or
/// two bytes longer than a vector. Out of line and cold: only rare inputs (an
/// error, or an odd length) get here.
#[cold]
#[inline(never)]
pub(crate) fn first_error_from_boundary(bytes: &[u8], passed: usize) -> Option<usize> {
    let from = boundary_at_or_before(bytes, passed);
    crate::scalar::first_error(bytes.get(from..)?).map(|error| from + error)
}
