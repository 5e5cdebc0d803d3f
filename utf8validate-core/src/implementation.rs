//! What a back end is: the entry points each one provides, with the C calling
//! convention so that the C functions reach them by a jump, and the row that lists
//! them in `crate::dispatch`'s table ([`Implementation`]). The scalar machine's row
//! ([`SCALAR`]) is here; each SIMD back end's is made in its own module.

use core::ffi::c_void;

use crate::chunk;
use crate::scalar;
use crate::state_machine::State;

/// A back end's first error: the offset of the first byte of the first ill-formed
/// sequence in the `len` bytes at `ptr`, or `len` when they are well-formed, with
/// the C calling convention so that the C entry point can jump to it (see
/// `crate::dispatch`).
///
/// Calling one is `unsafe`, as for [`ValidateFn`].
pub(crate) type FirstErrorFn = unsafe extern "C" fn(ptr: *const u8, len: usize) -> usize;

/// A back end's verdict alone: true iff the `len` bytes at `ptr` are well-formed,
/// with the C calling convention so that the C entry point can jump to it (see
/// `crate::dispatch`).
///
/// Calling one is `unsafe`: the CPU must support the back end's instruction set,
/// and `ptr` must be non-NULL with `len` readable bytes (a dangling, well-aligned
/// pointer when `len` is 0, as `<[u8]>::as_ptr` gives). It never unwinds.
pub(crate) type ValidateFn = unsafe extern "C" fn(ptr: *const u8, len: usize) -> bool;

/// A back end's answer for a chunk of data: the draft machine's state
/// after `state` followed by the `len` bytes at `ptr`, with the C calling convention
/// so that the C entry point can jump to it (see `crate::dispatch`). Calling one is
/// `unsafe`, as for [`ValidateFn`]. It is called only for the chunks that
/// the ladder (`crate::ladder`) leaves to a back end: `state` is not ERROR and
/// `len` is at least `crate::sizes::CHUNK_FROM`.
pub(crate) type ValidateChunkFn =
    unsafe extern "C" fn(state: State, ptr: *const u8, len: usize) -> State;

/// A back end's check of a chunk, as for a [`ValidateChunkFn`], with the state
/// then handed on with `to` (`crate::chunk::HandOff`), whose answer it returns: how
/// the stream's `feed` checks a chunk and keeps its bookkeeping, which the back
/// ends know nothing of. Calling one is `unsafe`, as for [`ValidateChunkFn`], whose
/// contract on `state` and `len` it has, and `to` must be what `HandOff`'s end
/// takes.
pub(crate) type HandOffFn =
    unsafe extern "C" fn(state: State, ptr: *const u8, len: usize, to: *mut c_void) -> bool;

/// A back end's entries for one rung of the ladder (`crate::ladder`): one per
/// answer, each reached from the C entry point by a jump.
pub(crate) struct Entries {
    /// Its verdict.
    pub(crate) validate: ValidateFn,
    /// Its first error.
    pub(crate) first_error: FirstErrorFn,
    /// Its answer for a chunk of data.
    pub(crate) validate_chunk: ValidateChunkFn,
    /// Its hand-off of a chunk of data.
    pub(crate) hand_off: HandOffFn,
}

/// One back end: a row of `crate::dispatch`'s table, with its entries for the
/// three rungs of the ladder that a back end answers (`crate::ladder`). Each SIMD
/// back end's row is made by `crate::ladder::back_end!`; the scalar machine's is
/// [`SCALAR`].
pub(crate) struct Implementation {
    /// Its name for tests and reports, as `UTF8VALIDATE_BACKEND` spells it.
    pub(crate) name: &'static str,
    /// Whether this CPU (and operating system) can run it.
    pub(crate) available: fn() -> bool,
    /// Inputs and chunks of at most `crate::sizes::BLOCK` bytes.
    pub(crate) block: Entries,
    /// Inputs and chunks of at most `crate::sizes::MEDIUM` bytes.
    pub(crate) medium: Entries,
    /// Longer inputs and chunks.
    pub(crate) long: Entries,
}

/// The draft's state machine, at every length.
const SCALAR_ENTRIES: Entries = Entries {
    validate: scalar::scalar_validate,
    first_error: scalar::scalar_first_error,
    validate_chunk: chunk::scalar_validate_chunk,
    hand_off: chunk::scalar_hand_off,
};

/// The draft's state machine, which runs everywhere: the last resort.
pub(crate) const SCALAR: Implementation = Implementation {
    name: "scalar",
    available: always,
    block: SCALAR_ENTRIES,
    medium: SCALAR_ENTRIES,
    long: SCALAR_ENTRIES,
};

/// The scalar machine runs on every CPU (and `crate::dispatch`'s stand-in before
/// the choice is never asked).
pub(crate) fn always() -> bool {
    true
}
