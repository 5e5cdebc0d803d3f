//! Chunks of data that arrives in chunks, each checked from the state the chunk
//! before left, with its end left open: [`check_chunk`].
//!
//! The carried state enters the check as one byte before the chunk: the state's lead
//! byte ([`State::lead_byte`]) in the last lane of the vector before it, so that the
//! continuation bytes that finish the carried sequence are checked with the rest of
//! the chunk, without the scalar machine (whose table lookups would chain every
//! chunk to the one before). The end is left open: a chunk that ends inside a
//! sequence passes, and the caller reads the state it ends in off its last bytes
//! (`crate::sequence::open_state`), next to the check rather than after it. So a
//! chunk costs one check of its bytes and nothing else, whatever its length.

use super::long::{check_tiered, leading_ascii};
use super::medium::{check_medium, MEDIUM};
use super::short::{check_vectors_after, short_errors_after};
use super::vector::{Vector, BLOCK};
use crate::chunk::{checked_chunk_state, ChunkEnd, CHUNK_FROM};
use crate::hint::cold_path;
use crate::sequence::open_state;
use crate::state_machine::State;

/// The answer for `state` (not ERROR) followed by `bytes`, a chunk of
/// `crate::chunk::CHUNK_FROM` to [`BLOCK`] bytes: [`check_open`]'s verdict, as
/// `crate::chunk::checked_chunk_state` answers it, handed to `end` (the scalar
/// machine's answer where the chunk is too short for a vector of `V`). Longer
/// chunks go to [`check_chunk_long`].
///
/// # Safety
/// The CPU feature of `V` must be present, and `CHUNK_FROM <= bytes.len() <=
/// BLOCK`. Call it only from a function compiled with that feature, so that this
/// body is inlined and compiled with it.
#[inline(always)]
pub(crate) unsafe fn check_chunk<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(CHUNK_FROM <= bytes.len() && bytes.len() <= BLOCK) };
    let last = open_state(bytes);
    // SAFETY: the caller guarantees the CPU feature; `bytes` is at most one block.
    match unsafe { check_open::<V>(state, bytes) } {
        Some(passed) => end.end(bytes, checked_chunk_state(last, passed)),
        // SAFETY: the caller guarantees the state and the length.
        None => unsafe { end.scalar(state, bytes) },
    }
}

/// [`check_chunk`] for a chunk longer than one block: up to [`MEDIUM`] bytes by
/// [`check_medium`], as for a whole input but with the carried state's lead byte
/// before the first block and the end left open. A longer chunk goes to `tiered`,
/// the back end's `validate_chunk_tiered` or `hand_off_tiered`
/// ([`check_chunk_tiered`]), out of line and reached by a jump, so that the
/// chunks of a few blocks neither share its set-up nor save registers for it.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(crate) unsafe fn check_chunk_long<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
    tiered: impl FnOnce(State, &[u8], E) -> E::Output,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(bytes.len() > BLOCK) };
    if bytes.len() > MEDIUM {
        // Not rare, but for the layout: the chunks of a few blocks then run
        // without a taken branch (a long chunk pays one jump, next to its work).
        cold_path();
        return tiered(state, bytes, end);
    }
    let last = open_state(bytes);
    // SAFETY: the caller guarantees the CPU feature and `BLOCK < len <= MEDIUM`.
    let passed = unsafe { check_medium::<V, true>(before::<V>(state), bytes) };
    end.end(bytes, checked_chunk_state(last, passed))
}

/// [`check_chunk`] for a chunk longer than [`MEDIUM`], by [`check_open_tiered`].
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > MEDIUM`. Call it
/// only from a function compiled with that feature, so that this body is inlined
/// and compiled with it.
#[inline(always)]
pub(crate) unsafe fn check_chunk_tiered<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(bytes.len() > MEDIUM) };
    let last = open_state(bytes);
    // SAFETY: forwarded caller contract.
    end.end(
        bytes,
        checked_chunk_state(last, unsafe { check_open_tiered::<V>(state, bytes) }),
    )
}

/// Whether `state` (not ERROR) followed by `bytes` (at most one block) holds
/// nothing ill-formed, the end aside (`bytes` may end inside a sequence), by one
/// vector check; `None` for a chunk shorter than the narrowest vector that `V`
/// cannot load zero-padded, which the caller leaves to the scalar machine.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() <= BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
#[allow(
    clippy::manual_map,
    reason = "a closure can be left out of line, compiled without the back end's target feature"
)]
unsafe fn check_open<V: Vector>(state: State, bytes: &[u8]) -> Option<bool> {
    let len = bytes.len();
    type N1<V> = <V as Vector>::Narrow;
    type N2<V> = <N1<V> as Vector>::Narrow;
    // SAFETY (each arm): the caller guarantees the CPU feature of `V`, which
    // implies those of its narrower vectors; each `check_vectors_after::<W>` is
    // called with `W::BYTES <= len`, and `load_prefix` reads only `bytes`.
    unsafe {
        if len >= V::BYTES {
            Some(check_vectors_after::<V, bool, true>(
                before::<V>(state),
                bytes,
            ))
        } else if len >= N1::<V>::BYTES {
            Some(check_vectors_after::<N1<V>, bool, true>(
                before::<N1<V>>(state),
                bytes,
            ))
        } else if len >= N2::<V>::BYTES {
            Some(check_vectors_after::<N2<V>, bool, true>(
                before::<N2<V>>(state),
                bytes,
            ))
        } else if let Some(this) = V::load_prefix(bytes) {
            // Zero-padded: a sequence the chunk leaves open is cut short by a zero,
            // which marks the lane after the chunk; only the chunk's lanes count.
            Some(!short_errors_after(before::<V>(state), this).any_nonzero_in_prefix(len))
        } else {
            None
        }
    }
}

/// The check of a chunk longer than [`MEDIUM`], as for a whole input but with
/// the carried state's lead byte before the first block and the end left open:
/// its leading ASCII skipped, then the tiered loop.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > MEDIUM`. Call it
/// only from a function compiled with that feature, so that this body is inlined
/// and compiled with it.
#[inline(always)]
unsafe fn check_open_tiered<V: Vector>(state: State, bytes: &[u8]) -> bool {
    // SAFETY: the caller guarantees the CPU feature and `MEDIUM < len`.
    unsafe {
        let before = before::<V>(state);
        // The leading ASCII whatever the state (a branch on the state would
        // mispredict whenever it changes): ASCII right after a carried sequence
        // is wrong, and a carried sequence's continuation bytes are not ASCII, so
        // the state matters only when the chunk starts with ASCII.
        let at = match leading_ascii::<V>(bytes) {
            None => return state == State::Start,
            Some(at) if at > 0 && state != State::Start => return false,
            Some(at) => at,
        };
        check_tiered::<V, true>(bytes, at, before).is_none()
    }
}

/// The bytes before a chunk carried over in `state`: a vector of zeros with the
/// state's lead byte ([`State::lead_byte`]) in its last lane, one load from
/// [`BEFORE`].
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
#[allow(
    clippy::indexing_slicing,
    reason = "BEFORE has a row per State variant (checked by its type): no check is emitted"
)]
unsafe fn before<V: Vector>(state: State) -> V {
    // SAFETY: the load reads the last `BYTES <= BLOCK` bytes of the state's row;
    // the caller guarantees the CPU feature.
    unsafe { V::load(BEFORE.0[state as usize].as_ptr().add(BLOCK - V::BYTES)) }
}

/// For each state (in discriminant order), a block of zeros ending in its lead
/// byte, for [`before`]; aligned, so that no load from it spans two cache lines.
#[repr(C, align(64))]
struct LeadBlocks([[u8; BLOCK]; State::ALL.len()]);

/// See [`LeadBlocks`].
static BEFORE: LeadBlocks = build_before();

#[allow(
    clippy::indexing_slicing,
    reason = "runs only at compile time, for a static's initialiser: an index out of range would fail the build, not panic"
)]
const fn build_before() -> LeadBlocks {
    let mut rows = [[0; BLOCK]; State::ALL.len()];
    let mut i = 0;
    while i < rows.len() {
        rows[i][BLOCK - 1] = State::ALL[i].lead_byte();
        i += 1;
    }
    LeadBlocks(rows)
}
