//! What a check answers: the offset of the first error (for `first_error`), or
//! the verdict alone (for `validate`), each with its own out-of-line scalar
//! fallbacks.

use super::boundary::boundary_at_or_before;
use crate::state_machine::State;

/// The scalar back end's first error, with the C calling convention (see
/// `crate::dispatch`'s `FirstErrorFn`): the offset of the first ill-formed
/// sequence, or `len` when there is none. Also the `usize` [`Answer`] for inputs
/// too short for a vector. Out of line: inlined, the scalar machine made every
/// short input save registers around it (callgrind, AVX2, 64 mixed bytes: 96
/// against 87 instructions per call when it and [`first_error_from_boundary`]
/// moved out).
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[inline(never)]
pub(crate) unsafe extern "C" fn scalar_first_error(ptr: *const u8, len: usize) -> usize {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    crate::scalar::first_error(unsafe { core::slice::from_raw_parts(ptr, len) }).unwrap_or(len)
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

/// The scalar back end's verdict on a piece of a chunked input (see
/// `crate::dispatch`'s `ValidatePieceFn`): true iff `state` followed by the `len`
/// bytes at `ptr` returns the machine to START with nothing ill-formed. Also the
/// fallback of [`super::check_piece`] for pieces too short for a vector.
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[inline(never)]
pub(crate) unsafe extern "C" fn scalar_validate_piece(
    state: State,
    ptr: *const u8,
    len: usize,
) -> bool {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    crate::scalar::scan(state, unsafe { core::slice::from_raw_parts(ptr, len) }) == Ok(State::Start)
}

/// What [`super::check`] answers: the offset of the first error, `usize` (`len`
/// when valid), for the back ends' `first_error`, or the verdict alone, `bool`,
/// for their `validate`. Each answer has its own out-of-line fallbacks
/// (the scalar machine for inputs too short for a vector, and the scalar machine
/// from a character boundary after an error), `extern "C"` functions with the
/// arguments and answer of the entry point itself, so that it ends in a jump to
/// them (a tail call) and needs neither a saved register around a call nor a
/// conversion of its answer after one (callgrind, AVX2, 64 mixed bytes: 77
/// instead of 83 instructions per call for `validate`).
pub(crate) trait Answer {
    /// Well-formed, for an input of `len` bytes.
    fn valid(len: usize) -> Self;
    /// Ill-formed, with every check before offset `passed` of `bytes` passed.
    fn invalid(bytes: &[u8], passed: usize) -> Self;
    /// The scalar machine's answer for `bytes`.
    fn scalar(bytes: &[u8]) -> Self;
    /// The answer for `bytes`, whose `bytes[..passed]` is a well-formed prefix.
    fn from_boundary(bytes: &[u8], passed: usize) -> Self;
}

impl Answer for usize {
    #[inline(always)]
    fn valid(len: usize) -> Self {
        len
    }
    #[inline(always)]
    fn invalid(bytes: &[u8], passed: usize) -> Self {
        Self::from_boundary(bytes, passed)
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_first_error(bytes.as_ptr(), bytes.len()) }
    }
    #[inline(always)]
    fn from_boundary(bytes: &[u8], passed: usize) -> Self {
        // SAFETY: as in `scalar`, and `passed` is forwarded unchanged.
        unsafe { first_error_offset_from_boundary(bytes.as_ptr(), bytes.len(), passed) }
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
    #[inline(always)]
    fn from_boundary(bytes: &[u8], passed: usize) -> Self {
        // SAFETY: as in `scalar`, and `passed` is forwarded unchanged.
        unsafe { validate_from_boundary(bytes.as_ptr(), bytes.len(), passed) }
    }
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
/// no error, there is none. Turns the `g` of a failed vector check into the exact
/// offset (the `usize` [`Answer`], a back end's `first_error_tiered`), and checks
/// the last bytes of inputs one or two bytes longer than a vector. Out of line and
/// cold: only rare inputs (an error, or an odd length) get here.
#[cold]
#[inline(never)]
pub(crate) fn first_error_from_boundary(bytes: &[u8], passed: usize) -> Option<usize> {
    let from = boundary_at_or_before(bytes, passed);
    crate::scalar::first_error(bytes.get(from..)?).map(|error| from + error)
}
