//! Pieces of data that arrives in pieces, each checked from the state the piece
//! before left, with its end left open: [`piece_state`].
//!
//! The carried state enters the check as one byte before the piece: the state's lead
//! byte ([`State::lead_byte`]) in the last lane of the vector before it, so that the
//! continuation bytes that finish the carried sequence are checked with the rest of
//! the piece, without the scalar machine (whose table lookups would chain every
//! piece to the one before). The end is left open: a piece that ends inside a
//! sequence passes, and the caller reads the state it ends in off its last bytes
//! (`crate::sequence::open_state`), next to the check rather than after it. So a
//! piece costs one check of its bytes and nothing else, whatever its length.

use super::long::{check_tiered, leading_ascii, MEDIUM};
use super::short::{check_vectors_after, short_errors_after};
use super::{Vector, BLOCK};
use crate::hint::cold_path;
use crate::piece::checked_piece_state;
use crate::sequence::open_state;
use crate::state_machine::State;

/// The machine's state after `state` (not ERROR) followed by `bytes` (at least
/// `crate::piece::PIECE_FROM` of them). A piece of at most one block: [`check_open`]'s
/// verdict, as `crate::piece::checked_piece_state` answers it. A longer one goes to
/// `long` (the back end's `validate_chunk_long`, [`piece_state_long`] out of line),
/// by a jump.
///
/// # Safety
/// The CPU feature of `V` must be present. Call it only from a function compiled
/// with that feature, so that this body is inlined and compiled with it.
#[inline(always)]
pub(crate) unsafe fn piece_state<V: Vector>(
    state: State,
    bytes: &[u8],
    long: impl FnOnce(State, &[u8]) -> State,
) -> State {
    if bytes.len() > BLOCK {
        cold_path();
        return long(state, bytes);
    }
    let last = open_state(bytes);
    // SAFETY: the caller guarantees the CPU feature; `bytes` is at most one block.
    checked_piece_state(last, unsafe { check_open::<V>(state, bytes) })
}

/// [`piece_state`] for a piece longer than one block: [`check_open_long`]'s verdict,
/// as `crate::piece::checked_piece_state` answers it.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(crate) unsafe fn piece_state_long<V: Vector>(state: State, bytes: &[u8]) -> State {
    let last = open_state(bytes);
    // SAFETY: forwarded caller contract.
    checked_piece_state(last, unsafe { check_open_long::<V>(state, bytes) })
}

/// True iff `state` (not ERROR) followed by `bytes` (at most one block) holds
/// nothing ill-formed, the end aside: `bytes` may end inside a sequence. One vector
/// check.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() <= BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
unsafe fn check_open<V: Vector>(state: State, bytes: &[u8]) -> bool {
    let len = bytes.len();
    let lead = state.lead_byte();
    type N1<V> = <V as Vector>::Narrow;
    type N2<V> = <N1<V> as Vector>::Narrow;
    // SAFETY (each arm): the caller guarantees the CPU feature of `V`, which
    // implies those of its narrower vectors; each `check_vectors_after::<W>` is
    // called with `W::BYTES <= len`, `load_prefix` reads only `bytes`, and the
    // scalar machine gets the slice's own pointer and length.
    unsafe {
        if len >= V::BYTES {
            check_vectors_after::<V, bool, true>(before::<V>(lead), bytes)
        } else if len >= N1::<V>::BYTES {
            check_vectors_after::<N1<V>, bool, true>(before::<N1<V>>(lead), bytes)
        } else if len >= N2::<V>::BYTES {
            check_vectors_after::<N2<V>, bool, true>(before::<N2<V>>(lead), bytes)
        } else if let Some(this) = V::load_prefix(bytes) {
            // Zero-padded: a sequence the piece leaves open is cut short by a zero,
            // which marks the lane after the piece; only the piece's lanes count.
            !short_errors_after(before::<V>(lead), this).any_nonzero_in_prefix(len)
        } else {
            crate::scalar::scalar_check_open(state, bytes)
        }
    }
}

/// The check of a piece longer than one block. From START, its leading ASCII is
/// skipped first, as for a whole input; then plain vectors up to [`MEDIUM`] bytes, or
/// the tiered loop, both with the carried state's lead byte before the first block
/// and the end left open.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
unsafe fn check_open_long<V: Vector>(state: State, bytes: &[u8]) -> bool {
    let len = bytes.len();
    // SAFETY: the caller guarantees the CPU feature and `BLOCK < len`.
    unsafe {
        let before = before::<V>(state.lead_byte());
        // The leading ASCII whatever the state (a branch on the state would
        // mispredict whenever it changes): ASCII right after a carried sequence
        // is wrong, and a carried sequence's continuation bytes are not ASCII, so
        // the state matters only when the piece starts with ASCII.
        let at = match leading_ascii::<V>(bytes) {
            None => return state == State::Start,
            Some(at) if at > 0 && state != State::Start => return false,
            Some(at) => at,
        };
        if at == 0 && len <= MEDIUM && len >= V::BYTES + 3 {
            return check_vectors_after::<V, bool, true>(before, bytes);
        }
        check_tiered::<V, true>(bytes, at, before).is_none()
    }
}

/// A vector of zeros with `lead` in its last lane: the bytes before a piece.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn before<V: Vector>(lead: u8) -> V {
    // SAFETY: the load reads the last `BYTES <= BLOCK` bytes of `LAST_LANE`; the
    // caller guarantees the CPU feature.
    unsafe { V::splat(lead).and(V::load(LAST_LANE.as_ptr().add(BLOCK - V::BYTES))) }
}

/// All bits set in the last byte only, for [`before`].
static LAST_LANE: [u8; BLOCK] = {
    let mut mask = [0; BLOCK];
    mask[BLOCK - 1] = 0xFF;
    mask
};
