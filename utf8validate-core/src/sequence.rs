//! Where sequences end and characters start, byte by byte: the continuation-byte
//! test, whether an input ends inside a sequence, the last character boundary before
//! an offset, and the state a chunk of data ends in. The one
//! place for these small ideas; the scalar engine, the SIMD back ends, the dispatch
//! and the stream all use them.

use crate::state_machine::{next_state, State};

/// True iff `bytes[..end]` ends inside a sequence: its last byte is a lead byte
/// (C0-FF), the one before a 3- or 4-byte lead (E0-FF), or the one before that a
/// 4-byte lead (F0-FF).
#[cfg(simd_back_end)]
#[inline(always)]
pub(crate) fn ends_inside_sequence(bytes: &[u8], end: usize) -> bool {
    let back = |n: usize| end.checked_sub(n).and_then(|i| bytes.get(i));
    back(1).is_some_and(|&b| is_lead(b))
        || back(2).is_some_and(|&b| b >= 0xE0)
        || back(3).is_some_and(|&b| b >= 0xF0)
}

/// True for continuation bytes (80-BF).
#[inline(always)]
pub(crate) fn is_continuation(byte: u8) -> bool {
    (byte as i8) < -0x40
}

/// True for lead bytes of multi-byte sequences (C0-FF; C0, C1 and F5-FF are never
/// well-formed, but take a sequence's place where they stand).
#[inline(always)]
pub(crate) fn is_lead(byte: u8) -> bool {
    byte >= 0xC0
}

/// The length of the sequence that the lead byte `lead` (C2-F4) starts: 2, 3 or 4.
#[inline(always)]
pub(crate) fn sequence_length(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    }
}

/// Where the sequence that holds `bytes[at]` starts: the nearest byte at or before
/// `at` that is not a continuation byte, looking back at most 3 bytes (no
/// well-formed sequence has more continuation bytes). The one place that backs up
/// over continuation bytes.
#[inline]
pub(crate) fn start_of_sequence(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    while i > 0 && at - i < 3 && bytes.get(i).is_some_and(|&b| is_continuation(b)) {
        i -= 1;
    }
    i
}

/// The last character boundary at or before `at` that `bytes[..at]` alone shows, where
/// `bytes[..at]` is a prefix of well-formed UTF-8: the start of the multi-byte sequence
/// that holds `bytes[at - 1]` (whether or not it ends there: the bytes after `at` are
/// not looked at), or `at` after ASCII.
#[cfg(simd_back_end)]
#[inline]
pub(crate) fn boundary_at_or_before(bytes: &[u8], at: usize) -> usize {
    let at = at.min(bytes.len());
    let Some(last) = at.checked_sub(1) else {
        return 0;
    };
    let start = start_of_sequence(bytes, last);
    if bytes.get(start).is_some_and(|&b| is_lead(b)) {
        start
    } else {
        at
    }
}

/// The state the draft's machine is in after `bytes` (at least 3 of them), read off
/// their last three bytes alone, given that nothing in them is ill-formed: the end
/// of a chunk of data whose check, with its end left open, passed. START
/// unless the last sequence is cut short; else the state after its lead byte and
/// the continuation bytes it has: a lead byte last (C2-F4) gives the machine's state
/// after it; a 3-byte lead (E0-EF) and one continuation byte give A (one more
/// expected); a 4-byte lead (F0-F4) and one gives B, and two give A. (The lead
/// byte's own second-byte range was checked with the rest: after it, any
/// continuation byte will do.) So the state depends on the last byte, the high
/// nibble of the one before and whether the third from last is F0 or above: one
/// load of the last two bytes, one comparison and one lookup in [`OPEN_STATES`],
/// no branch, and no lookup of the machine that the next chunk's check would wait
/// for. When `bytes` is ill-formed the answer means nothing (the caller answers
/// ERROR).
#[inline(always)]
#[allow(
    clippy::indexing_slicing,
    reason = "the index has 13 bits (a 16-bit value shifted right by 3) and OPEN_STATES 8192 entries: no check is emitted"
)]
pub(crate) fn open_state(bytes: &[u8]) -> State {
    let Some(&[b3, b2, b1]) = bytes.last_chunk::<3>() else {
        return State::Start;
    };
    // `(b1 << 5) | ((b2 >> 4) << 1)`, from one load of the last two bytes, and
    // the third from last's bit.
    let last_two = usize::from(u16::from_le_bytes([b2, b1]));
    let index = ((last_two >> 3) & !1) | usize::from(b3 >= 0xF0);
    // SAFETY: every entry of OPEN_STATES is a state's discriminant (its builder
    // stores `State as u8`).
    unsafe { State::from_discriminant(u32::from(OPEN_STATES.0[index])) }
}

/// For [`open_state`], at `(b1 << 5) | ((b2 >> 4) << 1) | (b3 >= 0xF0)` for the last
/// three bytes `b3 b2 b1`: the machine's state after a lead byte `b1` (C2-F4; ERROR
/// for C0, C1 and F5-FF), else A after a 3-byte lead (E0-EF) and one continuation
/// byte or a 4-byte lead (F0-F4) and two, B after a 4-byte lead and one, else START.
/// Combinations no well-formed text has hold what those rules add up to (at most
/// ERROR). Discriminants, a byte each: 8 KiB, aligned; a chunk reads one byte.
#[repr(C, align(64))]
struct OpenStates([u8; 8192]);

/// See [`OpenStates`].
static OPEN_STATES: OpenStates = build_open_states();

#[allow(
    clippy::indexing_slicing,
    reason = "runs only at compile time, for a static's initialiser: an index out of range would fail the build, not panic"
)]
const fn build_open_states() -> OpenStates {
    let mut table = [0; 8192];
    let mut index = 0;
    while index < table.len() {
        let b1 = (index >> 5) as u8;
        let b2_nibble = (index >> 1) & 0xF;
        let b3_high = index & 1;
        // The state after a lead byte last, START after any other byte.
        let after_b1 = if b1 >= 0xC0 {
            next_state(State::Start, b1) as usize
        } else {
            0
        };
        // One more byte expected after a 3-byte lead and one continuation byte,
        // two after a 4-byte lead and one, one after a 4-byte lead and two.
        let raw = after_b1 + (b2_nibble >= 0xE) as usize + (b2_nibble == 0xF) as usize + b3_high;
        table[index] = State::from_raw(raw as u32) as u8;
        index += 1;
    }
    OpenStates(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(simd_back_end)]
    fn boundaries() {
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 5), 2);
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 4), 2);
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 2), 2);
        assert_eq!(boundary_at_or_before(b"ab\xF0\x9F\x98\x80", 6), 2);
        assert_eq!(boundary_at_or_before(b"abc", 3), 3);
        assert_eq!(boundary_at_or_before(b"", 0), 0);
    }

    /// `open_state` against the machine, on every well-formed string of 3-6 bytes
    /// (of 3 under Miri, which is a thousand times slower: every last three bytes
    /// `open_state` reads) built from one byte of each class.
    #[test]
    fn open_states_are_the_machines() {
        use crate::state_machine::run;
        let samples: &[u8] = &[
            0x41, 0x80, 0x90, 0xA0, 0xBF, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF1, 0xF4,
        ];
        let mut checked = 0;
        let mut bytes = std::vec::Vec::new();
        let longest = if cfg!(miri) { 3 } else { 6 };
        for len in 3..=longest {
            let mut index = std::vec![0usize; len];
            loop {
                bytes.clear();
                bytes.extend(index.iter().map(|&i| samples[i]));
                let state = run(State::Start, &bytes);
                if state != State::Error {
                    assert_eq!(open_state(&bytes), state, "{bytes:02X?}");
                    checked += 1;
                }
                let mut k = 0;
                while k < len && index[k] + 1 == samples.len() {
                    index[k] = 0;
                    k += 1;
                }
                if k == len {
                    break;
                }
                index[k] += 1;
            }
        }
        assert!(checked > if cfg!(miri) { 100 } else { 10_000 }, "{checked}");
    }
}
