//! The two answers for a whole input ([`Answer`]): the verdict alone (`bool`, for
//! `utf8_validate`) or the offset of the first error (`usize`, `len` when valid,
//! for `utf8_first_error`). Every check of a whole input, the ladder's and each
//! back end's, is written once, generic over the answer; a chunk's answers are
//! `crate::chunk::ChunkEnd`'s.

use crate::scalar::{self, validate_few};
#[cfg(simd_back_end)]
use crate::scalar::{first_error_from_boundary, scalar_first_error, scalar_validate};

/// What a check of a whole input answers. Each answer has its own out-of-line
/// fallbacks (the scalar machine for inputs too short for a vector, and, for the
/// offset, the scalar machine from a character boundary after an error),
/// `extern "C"` functions with the arguments and answer of the entry point
/// itself, so that a back end's entry ends in a jump to them (a tail call) and
/// needs neither a saved register around a call nor a conversion of its answer
/// after one.
pub(crate) trait Answer: Sized {
    /// Whether the answer says where the first error is (and a failed check must
    /// find the block it failed in), or only that there is one.
    #[cfg(simd_back_end)]
    const OFFSET: bool;
    /// Well-formed, for an input of `len` bytes.
    fn valid(len: usize) -> Self;
    /// Ill-formed, with every check before offset `passed` of `bytes` passed.
    #[cfg(simd_back_end)]
    fn invalid(bytes: &[u8], passed: usize) -> Self;
    /// The scalar machine's answer for `bytes`, out of line.
    #[cfg(simd_back_end)]
    fn scalar(bytes: &[u8]) -> Self;
    /// The answer for fewer than `crate::sizes::FEW` bytes, inline: the verdict
    /// in one shift a byte ([`validate_few`]); only ill-formed input goes through
    /// the machine again to find where.
    fn few(bytes: &[u8]) -> Self;

    /// The answer for `bytes` after a check of the whole input that passed or
    /// not (`valid`), with nothing known of where it failed.
    #[cfg(simd_back_end)]
    #[inline(always)]
    fn of(valid: bool, bytes: &[u8]) -> Self {
        if valid {
            Self::valid(bytes.len())
        } else {
            Self::invalid(bytes, 0)
        }
    }
}

impl Answer for usize {
    #[cfg(simd_back_end)]
    const OFFSET: bool = true;
    #[inline(always)]
    fn valid(len: usize) -> Self {
        len
    }
    #[cfg(simd_back_end)]
    #[inline(always)]
    fn invalid(bytes: &[u8], passed: usize) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL; `passed` is
        // forwarded unchanged.
        unsafe { first_error_offset_from_boundary(bytes.as_ptr(), bytes.len(), passed) }
    }
    #[cfg(simd_back_end)]
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_first_error(bytes.as_ptr(), bytes.len()) }
    }
    #[inline(always)]
    fn few(bytes: &[u8]) -> Self {
        if validate_few(bytes) {
            return bytes.len();
        }
        // `None` (valid) cannot follow a false verdict; `len` would be the answer.
        scalar::first_error(bytes).unwrap_or(bytes.len())
    }
}

impl Answer for bool {
    #[cfg(simd_back_end)]
    const OFFSET: bool = false;
    #[inline(always)]
    fn valid(_: usize) -> Self {
        true
    }
    #[cfg(simd_back_end)]
    #[inline(always)]
    fn invalid(_: &[u8], _: usize) -> Self {
        false
    }
    #[cfg(simd_back_end)]
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_validate(bytes.as_ptr(), bytes.len()) }
    }
    #[inline(always)]
    fn few(bytes: &[u8]) -> Self {
        validate_few(bytes)
    }
}

/// The offset of the first error of the `len` bytes at `ptr` (`len` when there is
/// none), whose first `passed` bytes are a well-formed prefix: the `usize`
/// [`Answer`] of a vector check that failed after `passed`, by the scalar machine
/// from the last character boundary at or before `passed`
/// ([`first_error_from_boundary`]). The C calling convention: the back end's entry
/// reaches it by a jump.
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[cfg(simd_back_end)]
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
