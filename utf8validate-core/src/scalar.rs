//! The portable scalar engine: the draft's state machine ([`crate::state_machine`]),
//! recompiled into a form a CPU runs fast, plus an ASCII fast path.
//!
//! # The shift form of the machine
//!
//! Looking up `TRANSITIONS[state][class(byte)]` costs two dependent loads per byte.
//! Instead, each of the 9 states is given a 6-bit slot (`state * 6`), and every byte
//! value gets one 64-bit *row* holding, in the slot of each state, the slot of the
//! state it moves to. One step is then `row[byte] >> slot`: the row load does not
//! depend on the state, so the loop-carried chain is a single shift (1 cycle), and
//! the low 6 bits of the result are the next slot. The rows are computed at compile
//! time from [`TRANSITIONS`], so the draft's table stays the one source of truth.
//!
//! # ASCII fast path
//!
//! At a character boundary, a 16-byte block whose bytes are all below 0x80 leaves the
//! machine in START, so it is skipped with two 64-bit tests instead of 16 steps.
//!
//! Nothing here allocates, and every read is inside the given slice.

use crate::ascii::HIGH_BITS;
#[cfg(simd_back_end)]
use crate::sequence::boundary_at_or_before;
use crate::sequence::start_of_sequence;
use crate::state_machine::{byte_class, State, TRANSITIONS};

/// Bits per state slot in a row.
const SLOT_BITS: u32 = 6;
/// Mask of the slot that `row >> slot` leaves in the low bits.
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;
/// Bytes per block of the block loop (and of the ASCII fast path).
const SCAN_BLOCK: usize = 16;

/// The slot of `state` (the shift amount that selects its entry in a row).
#[inline]
const fn slot(state: State) -> u64 {
    state as u64 * SLOT_BITS as u64
}

const START_SLOT: u64 = slot(State::Start);
const ERROR_SLOT: u64 = slot(State::Error);

/// `ROWS[byte]`: for every state, the slot of the next state, stored at that state's
/// slot.
static ROWS: [u64; 256] = build_rows();

#[allow(
    clippy::indexing_slicing,
    reason = "runs only at compile time, for a static's initialiser: an index out of range would fail the build, not panic"
)]
const fn build_rows() -> [u64; 256] {
    let mut rows = [0u64; 256];
    let mut byte = 0usize;
    while byte < 256 {
        let class = byte_class(byte as u8) as usize;
        let mut row = 0u64;
        let mut s = 0usize;
        while s < State::ALL.len() {
            let next = TRANSITIONS[s][class];
            row |= slot(next) << slot(State::ALL[s]);
            s += 1;
        }
        rows[byte] = row;
        byte += 1;
    }
    rows
}

/// The state whose slot is `slot_bits & SLOT_MASK`.
#[inline]
fn state_of(slot_bits: u64) -> State {
    State::from_raw(((slot_bits & SLOT_MASK) / SLOT_BITS as u64) as u32)
}

/// One step in shift form. Only the low 6 bits of `s` are meaningful (the shift
/// amount is taken modulo 64), so callers mask only when they read the state.
#[inline(always)]
#[allow(
    clippy::indexing_slicing,
    reason = "a byte indexes a table of 256 entries: always in range, and no check is emitted"
)]
fn step(s: u64, byte: u8) -> u64 {
    ROWS[byte as usize].wrapping_shr(s as u32)
}

/// True iff all 16 bytes are ASCII.
#[inline(always)]
fn is_ascii_block(block: &[u8; SCAN_BLOCK]) -> bool {
    let b = block;
    // Constant indices into an array: checked at compile time, no panic path.
    let lo = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let hi = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
    (lo | hi) & HIGH_BITS == 0
}

/// True iff the machine, in shift form `s`, is in START: on a character boundary.
#[inline(always)]
fn at_boundary(s: u64) -> bool {
    s & SLOT_MASK == START_SLOT
}

/// True iff `bytes` is well-formed UTF-8: the machine over every byte, with no exit
/// before the end (ERROR is absorbing, so an error anywhere leaves it there). One
/// shift per byte, and no set-up: for inputs of a few bytes, where a back end's
/// indirect call and vector check cost more (`crate::dispatch::validate_rest`).
#[inline(always)]
pub(crate) fn validate_few(bytes: &[u8]) -> bool {
    let mut s = START_SLOT;
    for &b in bytes {
        s = step(s, b);
    }
    at_boundary(s)
}

/// True iff the bytes of `word` (the first in its low 8 bits), as many as the input
/// has and then zero bytes up to 8, are well-formed UTF-8: the machine over all 8
/// bytes, with no loop and no branch. The zero bytes cannot change the answer: after
/// a well-formed input the machine is in START, where ASCII keeps it, and after an
/// input that ends inside a sequence, ASCII moves it to ERROR, which it never leaves.
/// For non-ASCII inputs of at most 8 bytes in a Rust caller's code
/// (`crate::ladder::in_caller`), in a word from
/// [`crate::ascii::few_word`].
#[inline(always)]
pub(crate) fn validate_word(word: u64) -> bool {
    let mut s = START_SLOT;
    for byte in word.to_le_bytes() {
        s = step(s, byte);
    }
    at_boundary(s)
}

/// Where a scan stopped because the machine entered ERROR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stop {
    /// Index of the byte that moved the machine into ERROR.
    pub(crate) at: usize,
    /// The state just before that byte.
    pub(crate) before: State,
}

/// Runs the machine over `bytes` from `state`: `Ok(final state)` when it never
/// entered ERROR, else where it did.
///
/// `state` must not be [`State::Error`] (callers answer that case themselves).
pub(crate) fn scan(state: State, bytes: &[u8]) -> Result<State, Stop> {
    let mut s = slot(state);
    let (blocks, tail) = bytes.as_chunks::<SCAN_BLOCK>();
    let mut offset = 0usize;
    for block in blocks {
        if at_boundary(s) && is_ascii_block(block) {
            offset += SCAN_BLOCK;
            continue;
        }
        let entry = s;
        for &b in block {
            s = step(s, b);
        }
        if s & SLOT_MASK == ERROR_SLOT {
            return Err(locate(entry, &block[..], offset));
        }
        offset += SCAN_BLOCK;
    }
    let entry = s;
    for &b in tail {
        s = step(s, b);
    }
    if s & SLOT_MASK == ERROR_SLOT {
        return Err(locate(entry, tail, offset));
    }
    Ok(state_of(s))
}

/// Re-runs `part` (which starts at `offset` in the whole input, entered in slot
/// `entry`) one byte at a time to find the byte that entered ERROR. The caller has
/// seen the machine enter ERROR inside `part`.
#[cold]
fn locate(entry: u64, part: &[u8], offset: usize) -> Stop {
    let mut s = entry;
    let mut before = State::Error;
    let stop = part.iter().position(|&b| {
        let next = step(s, b);
        if next & SLOT_MASK == ERROR_SLOT {
            before = state_of(s);
            return true;
        }
        s = next;
        false
    });
    // The caller saw ERROR in this part, and the re-run takes the same steps: the
    // byte is found. (Were it not, the last byte and ERROR would stand in, without
    // a panic path.)
    Stop {
        at: offset + stop.unwrap_or(part.len().saturating_sub(1)),
        before,
    }
}

/// Offset of the first byte of the first ill-formed sequence, or `None` when
/// `bytes` is well-formed. See [`crate::first_error`].
pub fn first_error(bytes: &[u8]) -> Option<usize> {
    match scan(State::Start, bytes) {
        Ok(State::Start) => None,
        // Ended inside a sequence: the truncated sequence starts at its lead byte,
        // within the last 3 bytes.
        Ok(_) => Some(start_of_sequence(bytes, bytes.len() - 1)),
        Err(stop) => Some(error_offset(bytes, stop)),
    }
}

/// The first byte of the ill-formed sequence that `stop` was found in.
#[inline]
pub(crate) fn error_offset(bytes: &[u8], stop: Stop) -> usize {
    if stop.before == State::Start {
        // The byte itself cannot start a sequence.
        stop.at
    } else {
        // A lead byte and some continuation bytes were accepted before `at`.
        start_of_sequence(bytes, stop.at - 1)
    }
}

/// The unit at the character boundary `at < bytes.len()`, for the renderers of
/// `crate::escape`: `Ok(end)` when `bytes[at..end]` is a well-formed character,
/// `Err(end)` when it is the maximal subpart of an ill-formed sequence (Unicode
/// §3.9): the bytes the machine took before it entered ERROR, or the one byte that
/// made it enter ERROR from START, or every byte to the end when the input ends
/// inside a sequence.
#[inline]
pub(crate) fn unit_at(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let mut s = START_SLOT;
    let mut i = at;
    while let Some(&byte) = bytes.get(i) {
        s = step(s, byte) & SLOT_MASK;
        if s == START_SLOT {
            return Ok(i + 1);
        }
        if s == ERROR_SLOT {
            return Err(i.max(at + 1));
        }
        i += 1;
    }
    Err(bytes.len())
}

/// The scalar back end's first error, with the C calling convention (see
/// `crate::dispatch`'s `FirstErrorFn`): the offset of the first ill-formed
/// sequence, or `len` when there is none. Also the SIMD back ends' answer for inputs
/// too short for a vector. Out of line, so that the short paths that may end here
/// need not save registers around an inlined copy of the machine.
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[inline(never)]
pub(crate) unsafe extern "C" fn scalar_first_error(ptr: *const u8, len: usize) -> usize {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    first_error(unsafe { core::slice::from_raw_parts(ptr, len) }).unwrap_or(len)
}

/// The scalar back end's verdict, with the C calling convention (see
/// `crate::dispatch`'s `ValidateFn`), and the SIMD back ends' answer for inputs too
/// short for a vector.
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[inline(never)]
pub(crate) unsafe extern "C" fn scalar_validate(ptr: *const u8, len: usize) -> bool {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    first_error(unsafe { core::slice::from_raw_parts(ptr, len) }).is_none()
}

/// True iff `state` (not ERROR) followed by `bytes` holds nothing ill-formed, the
/// end left open (the machine may end in any state but ERROR): the scalar check of
/// a chunk of data, and the fallback of `simd::check_open` for chunks too
/// short for a vector. Out of line, as [`scalar_first_error`] is.
#[inline(never)]
pub(crate) fn scalar_check_open(state: State, bytes: &[u8]) -> bool {
    scan(state, bytes).is_ok()
}

/// The exact first error of `bytes`, given that `bytes[..passed]` is a well-formed
/// prefix: the scalar machine from the last character boundary at or before
/// `passed`, where it is in START. The machine is the source of truth: if it finds
/// no error, there is none. Turns the `g` of a failed vector check into the exact
/// offset (for the SIMD back ends' `first_error`). Out of line and cold: only
/// inputs with an error get here.
#[cfg(simd_back_end)]
#[cold]
#[inline(never)]
pub(crate) fn first_error_from_boundary(bytes: &[u8], passed: usize) -> Option<usize> {
    let from = boundary_at_or_before(bytes, passed);
    first_error(bytes.get(from..)?).map(|error| from + error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::next_state;

    /// The shift form agrees with the draft's table for every (state, byte).
    #[test]
    fn rows_encode_the_draft_table() {
        for state in State::ALL {
            for byte in 0..=255u8 {
                let s = step(slot(state), byte);
                assert_eq!(
                    state_of(s),
                    next_state(state, byte),
                    "{state:?} {byte:#04x}"
                );
            }
        }
    }
}
