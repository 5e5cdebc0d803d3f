//! Where sequences end and characters start, byte by byte: the continuation-byte
//! test, whether an input ends inside a sequence, the last character boundary before
//! an offset, and the sequence an input ends inside (for data in pieces). The one
//! place for these small ideas; the scalar engine, the SIMD back ends, the dispatch
//! and the stream all use them.

use crate::state_machine::{next_state, State};

/// True iff `bytes[..end]` ends inside a sequence: its last byte is a lead byte
/// (C0-FF), the one before a 3- or 4-byte lead (E0-FF), or the one before that a
/// 4-byte lead (F0-FF).
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

/// The sequence that `bytes` ends inside, if any, for the chunk and stream checks:
/// `(split, state)`, where `state` is the draft machine's state after
/// `bytes[split..]` from START. `bytes` starts on a character boundary, or (the
/// chunk check of a piece of at least 3 bytes) with the continuation bytes that
/// finish a carried sequence, which are never lead bytes: the last sequence,
/// found from its lead byte, starts after them. The fast validator
/// checks `bytes[..split]`, which ends on a character boundary; had it been given
/// a piece that ends inside a character (most pieces of non-ASCII text do), it would
/// have taken that for an error and looked for it the slow way.
///
/// When `bytes` ends inside a sequence (as [`ends_inside_sequence`] tells),
/// `bytes[split..]` runs from the last lead byte (C0-FF) among the last three
/// bytes: `state` is a live state if that sequence is cut short, `Error` if it is
/// ill-formed. Otherwise `split` is `bytes.len()` and `state` START, and the fast
/// validator decides. An error in `bytes[..split]`, a sequence it cuts short
/// included (the lead byte after it cuts it short in `bytes` too), is the first
/// error of `bytes`.
///
/// Pieces of non-ASCII text end anywhere in a character, so past the test for a
/// final ASCII byte this has no loop over the bytes (a loop over the 0-3 bytes of
/// the last sequence mispredicted about once per piece), and `split` depends on
/// comparisons only, not on the machine's table lookups, so that the fast
/// validator need not wait for them.
#[inline]
pub(crate) fn trailing_sequence(bytes: &[u8]) -> (usize, State) {
    let len = bytes.len();
    if bytes.last().is_none_or(|&byte| byte < 0x80) {
        // Ends with ASCII (most pieces of most text): not inside a sequence.
        return (len, State::Start);
    }
    // The last three bytes; before the start of the input, ASCII (it starts on a
    // character boundary).
    let back = |n: usize| {
        len.checked_sub(n)
            .and_then(|i| bytes.get(i))
            .map_or(0, |&b| b)
    };
    let (b1, b2, b3) = (back(3), back(2), back(1));
    // The length of the last sequence, from its lead byte, within the last three.
    let from_lead = if !ends_inside_sequence(bytes, len) {
        0
    } else if is_lead(b3) {
        1
    } else if is_lead(b2) {
        2
    } else {
        3
    };
    let step = |state: State, byte: u8, taken: bool| {
        let next = next_state(state, byte);
        if taken {
            next
        } else {
            state
        }
    };
    let state = step(State::Start, b1, from_lead >= 3);
    let state = step(state, b2, from_lead >= 2);
    let state = step(state, b3, from_lead >= 1);
    (len - from_lead, state)
}

/// The state the draft's machine is in after `bytes` (at least 3 of them), read off
/// their last three bytes alone, given that nothing in them is ill-formed: the end
/// of a piece of data in pieces whose check, with its end left open, passed. START
/// unless the last sequence is cut short; else the state after its lead byte and
/// the continuation bytes it has: a lead byte last (C2-F4) gives the machine's state
/// after it; a 3-byte lead (E0-EF) and one continuation byte give A (one more
/// expected); a 4-byte lead (F0-F4) and one gives B, and two give A. (The lead
/// byte's own second-byte range was checked with the rest: after it, any
/// continuation byte will do.) Three byte comparisons, so that the next piece's
/// check need not wait for the machine's table lookups. When `bytes` is ill-formed
/// the answer means nothing (the caller answers ERROR).
#[inline(always)]
pub(crate) fn open_state(bytes: &[u8]) -> State {
    let Some(&[b3, b2, b1]) = bytes.last_chunk::<3>() else {
        return State::Start;
    };
    // Both answers computed and one selected: the bytes of text in pieces make
    // every branch here a coin toss.
    let after_lead = next_state(State::Start, b1);
    let inside = if b2 >= 0xF0 {
        State::B
    } else if b2 >= 0xE0 || b3 >= 0xF0 {
        State::A
    } else {
        State::Start
    };
    if is_lead(b1) {
        after_lead
    } else {
        inside
    }
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
    /// built from one byte of each class (and on the ends of longer text).
    #[test]
    fn open_states_are_the_machines() {
        use crate::state_machine::run;
        let samples: &[u8] = &[
            0x41, 0x80, 0x90, 0xA0, 0xBF, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF1, 0xF4,
        ];
        let mut checked = 0;
        let mut bytes = std::vec::Vec::new();
        for len in 3..=6 {
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
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn trailing_sequences() {
        use State::*;
        let cases: &[(&[u8], usize, State)] = &[
            (b"", 0, Start),
            (b"ab", 2, Start),
            (b"\xC3", 0, A),
            (b"a\xE2\x82\xAC", 4, Start),
            (b"a\xE2\x82", 1, A),
            (b"a\xF0\x9F\x98", 1, A),
            (b"\xF0\x9F\x98\x80", 4, Start),
            (b"a\xF4\x90", 1, Error),
            // Not inside a sequence: the fast validator decides.
            (b"a\xE2A", 3, Start),
            (b"a\xC3\xA9\x80", 4, Start),
            (b"a\xC3A", 3, Start),
            // A lead byte cut short by the next one: only the last counts.
            (b"a\xC3\xE2\x82", 2, A),
            (b"a\x80", 2, Start),
            (b"\xF0\x90\x80\x80\x80", 5, Start),
        ];
        for &(bytes, split, state) in cases {
            assert_eq!(trailing_sequence(bytes), (split, state), "{bytes:02X?}");
        }
    }
}
