//! One chunk of data: the state the draft's machine ends in after it,
//! from the state the chunk before left. The answers that need no vector check
//! come first, inline in the C entry point (`crate::ladder::chunk`); every back end
//! compiles the rest ([`checked_chunk_state`]) around its own check of a chunk,
//! twice: once returning the state (`utf8_validate_chunk`, [`ReturnState`]), once
//! handing it on ([`HandOff`]) to a caller above the back ends, the stream, whose
//! bookkeeping is compiled in after the check, so that each reaches the check in
//! one jump and has nothing left to do after it ([`ChunkEnd`]). The scalar back
//! end's entries for a chunk ([`scalar_validate_chunk`], [`scalar_hand_off`]) are
//! here too: the machine's check of a chunk, then the same two ends.

use core::ffi::c_void;

use crate::hint::cold_path;
use crate::scalar::scalar_check_open;
use crate::sequence::open_state;
use crate::state_machine::State;

/// The machine's state after a chunk of at least `crate::sizes::CHUNK_FROM` bytes
/// that the ladder left to a back end: ERROR when the back end's check of it
/// failed (`passed` false), else `last`, the state read off its last bytes
/// ([`open_state`]), which the caller reads before the
/// check: no table lookup of the machine stands between the state a chunk answers
/// and the next chunk's check, so that consecutive chunks are checked in parallel.
///
/// Inlined into each back end's entry points.
#[inline(always)]
pub(crate) fn checked_chunk_state(last: State, passed: bool) -> State {
    if !passed {
        // A branch, not a select: the next chunk's check starts from the state
        // this answers, and must not wait for this chunk's check.
        cold_path();
        return State::Error;
    }
    last
}

/// What a back end's entry for a chunk does with the state the chunk ends in:
/// `validate_chunk` returns it ([`ReturnState`]); the entry for a stream hands it on
/// ([`HandOff`]). The check is compiled into each, so that neither calls anything
/// after it.
pub(crate) trait ChunkEnd {
    /// What the entry returns.
    type Output;

    /// The answer for `bytes` when the ladder knew the state after them, `next`,
    /// without a back end's check (ERROR, a chunk of 1-2 bytes, short ASCII).
    fn quick(self, bytes: &[u8], next: State) -> Self::Output;

    /// The answer for `bytes`, after which the machine is in `next` (ERROR when
    /// they hold an ill-formed sequence).
    fn end(self, bytes: &[u8], next: State) -> Self::Output;

    /// The scalar back end's answer for the same entry, for a chunk that a SIMD
    /// back end leaves to the scalar machine (shorter than any vector it can load):
    /// reached by a jump.
    ///
    /// # Safety
    /// `state` is not ERROR and `bytes` has at least `crate::sizes::CHUNK_FROM` bytes.
    #[cfg_attr(
        not(simd_back_end),
        expect(
            dead_code,
            reason = "only a SIMD back end leaves chunks to the scalar machine"
        )
    )]
    unsafe fn scalar(self, state: State, bytes: &[u8]) -> Self::Output;
}

/// The [`ChunkEnd`] of `validate_chunk`: the state itself.
pub(crate) struct ReturnState;

impl ChunkEnd for ReturnState {
    type Output = State;

    #[inline(always)]
    fn quick(self, _: &[u8], next: State) -> State {
        next
    }

    #[inline(always)]
    fn end(self, _: &[u8], next: State) -> State {
        next
    }

    #[inline(always)]
    unsafe fn scalar(self, state: State, bytes: &[u8]) -> State {
        // SAFETY: the slice's own pointer and length; the caller guarantees the
        // state.
        unsafe { scalar_validate_chunk(state, bytes.as_ptr(), bytes.len()) }
    }
}

/// The [`ChunkEnd`] of a back end's entry that hands the state on to a caller above
/// the back ends, the stream: `to` is the caller's data, and the caller implements
/// `ChunkEnd` for this type where it knows what `to` is (`crate::stream`). The back
/// ends know only the pointer; the caller's answer is compiled into each back end's
/// entry, after the check, as [`ReturnState`]'s is.
pub(crate) struct HandOff {
    /// The caller's data.
    to: *mut c_void,
}

impl HandOff {
    /// The end that hands a chunk's state on with `to`.
    ///
    /// # Safety
    /// `to` must be what the caller's `ChunkEnd` for `HandOff` takes: for the
    /// stream, the `*mut Stream` its `feed` handed the back end, in no other use
    /// until the end is done.
    #[inline(always)]
    pub(crate) unsafe fn new(to: *mut c_void) -> Self {
        HandOff { to }
    }

    /// The caller's data.
    #[inline(always)]
    pub(crate) fn to(&self) -> *mut c_void {
        self.to
    }
}

/// The scalar back end's answer for a chunk of data (see
/// `crate::dispatch`'s `ValidateChunkFn`): the machine's state after `state`
/// followed by the `len` bytes at `ptr` ([`scalar_chunk`]).
///
/// Out of line: the SIMD back ends reach it by a jump, for chunks shorter than
/// their narrowest vector.
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes, and `state` is not ERROR.
#[inline(never)]
pub(crate) unsafe extern "C" fn scalar_validate_chunk(
    state: State,
    ptr: *const u8,
    len: usize,
) -> State {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    scalar_chunk(state, bytes, ReturnState)
}

/// The scalar back end's entry for a chunk whose state it hands on (see
/// `crate::dispatch`'s `HandOffFn`): [`scalar_chunk`] with [`HandOff`]'s end. Out of
/// line: the SIMD back ends' hand-offs reach it by a jump, as they reach
/// [`scalar_validate_chunk`].
///
/// # Safety
/// As for [`scalar_validate_chunk`], and `to` must be what `HandOff`'s end takes.
#[inline(never)]
pub(crate) unsafe extern "C" fn scalar_hand_off(
    state: State,
    ptr: *const u8,
    len: usize,
    to: *mut c_void,
) -> bool {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`,
    // and what `to` is.
    unsafe {
        let bytes = core::slice::from_raw_parts(ptr, len);
        scalar_chunk(state, bytes, HandOff::new(to))
    }
}

/// The scalar back end's answer for a chunk after `state` (not ERROR), handed to
/// `end`: [`scalar_check_open`]'s verdict, as [`checked_chunk_state`] answers it.
#[inline(always)]
fn scalar_chunk<E: ChunkEnd>(state: State, bytes: &[u8], end: E) -> E::Output {
    end.end(
        bytes,
        checked_chunk_state(open_state(bytes), scalar_check_open(state, bytes)),
    )
}
