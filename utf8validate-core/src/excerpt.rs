//! Which bytes of untrusted input to show in a log line: a prefix of at most so many
//! bytes ([`prefix`]) and the bytes around an error ([`around`]), each cut only
//! between two *units*: whole characters and whole maximal subparts of ill-formed
//! sequences (Unicode §3.9), the units [`crate::escape`] renders. A cut never splits
//! a character, so a window rendered with [`crate::escape_into`] shows the same
//! characters and the same `\xHH` escapes as the whole input rendered.
//!
//! Both only look at the few bytes around each cut (at most 3 before it and 4 from
//! it), whatever the length of the input.

use core::ops::Range;

use crate::diagnostics::Utf8Error;
use crate::sequence::is_continuation;
use crate::state_machine::{run, State};

/// The unit that `bytes[at]` lies strictly inside, as the range of that unit, or
/// `None` when `at` is a boundary between two units (or the start or the end).
///
/// A continuation byte lies inside a unit iff a lead byte at most 3 bytes before it
/// starts a character or maximal subpart that reaches past it; otherwise it is a
/// stray continuation byte, a unit of its own.
fn unit_containing(bytes: &[u8], at: usize) -> Option<Range<usize>> {
    if !bytes.get(at).copied().is_some_and(is_continuation) {
        return None;
    }
    // The nearest byte before `at` that is not a continuation byte, at most 3 back.
    let lead = (at.saturating_sub(3)..at)
        .rev()
        .find(|&i| bytes.get(i).is_some_and(|&b| !is_continuation(b)))?;
    // A lead byte starts the unit; ASCII or a byte that is never in UTF-8 does not
    // take the continuation bytes after it, so `at` starts a unit of its own.
    let end = match crate::scalar::unit_at(bytes, lead) {
        Ok(end) | Err(end) => end,
    };
    (end > at).then_some(lead..end)
}

/// The length of the longest prefix of `bytes` that is at most `max` bytes long and
/// does not end inside a character (or a maximal subpart): `bytes.len()` when that
/// is at most `max`, else `max` moved back by up to 3 bytes to the start of the
/// character it would split. For cutting a header name or a request line to length.
/// Offsets and lengths are in bytes; units are those of Unicode §3.9 (characters
/// well-formed per RFC 3629 §4, and maximal subparts). Reads at most the 4 bytes
/// before `max` and the 4 from it; thread-safe, allocation-free, never panics.
///
/// ```
/// use utf8validate_core::excerpt::prefix;
/// assert_eq!(prefix("añb".as_bytes(), 2), 1);  // 'ñ' is 2 bytes: not split
/// assert_eq!(prefix("añb".as_bytes(), 3), 3);
/// assert_eq!(prefix(b"a\x80\x80b", 2), 2);      // stray continuation bytes: units
/// assert_eq!(prefix(b"ab", 9), 2);
/// ```
pub fn prefix(bytes: &[u8], max: usize) -> usize {
    if bytes.len() <= max {
        return bytes.len();
    }
    unit_containing(bytes, max).map_or(max, |unit| unit.start)
}

/// The bytes to show around `err`, an error of `bytes` (as [`crate::check`] reports
/// it): a range that contains the maximal subpart `err.valid_up_to()..
/// err.valid_up_to() + err.subpart_len()`, at most `context` bytes before it and
/// `context` after it, and that neither starts nor ends inside a character or a
/// maximal subpart (it may be shorter than `context` on a side by up to 3 bytes for
/// that). [`around_subpart`] with that range.
///
/// An `err` that does not lie within `bytes` gives the empty range at
/// `err.valid_up_to().min(bytes.len())`; only the offset and the subpart's length are
/// read. Offsets are in bytes; units as for [`prefix`] (Unicode §3.9). Reads only the
/// few bytes at the two cuts; thread-safe, allocation-free, never panics.
///
/// ```
/// use utf8validate_core::{check, excerpt::around};
/// let input = b"\xC3\xA9\xC3\xA9\xC0\xC3\xA9\xC3\xA9"; // "éé", C0, "éé"
/// let err = check(input).unwrap_err();                    // C0, at offset 4
/// assert_eq!(around(input, &err, 3), 2..7);               // one 'é' each side
/// ```
pub fn around(bytes: &[u8], err: &Utf8Error, context: usize) -> Range<usize> {
    around_subpart(
        bytes,
        err.offset..err.offset.saturating_add(err.length),
        context,
    )
}

/// [`around`] for a maximal subpart given as a range of `bytes` (from std's
/// `Utf8Error`, say: `valid_up_to..valid_up_to + error_len`, or the bytes to the end
/// when `error_len` is `None`): a range that contains `subpart`, at most `context`
/// bytes before it and `context` after it, cut only between two units.
///
/// A `subpart` that does not lie within `bytes` (or whose end is before its start)
/// gives the empty range at `subpart.start.min(bytes.len())`. Reads only the few
/// bytes at the two cuts; thread-safe, allocation-free, never panics.
///
/// ```
/// use utf8validate_core::excerpt::around_subpart;
/// let input = b"\xC3\xA9\xC3\xA9\xC0\xC3\xA9\xC3\xA9"; // "éé", C0, "éé"
/// let e = core::str::from_utf8(input).unwrap_err();
/// let start = e.valid_up_to();
/// let end = start + e.error_len().unwrap_or(input.len() - start);
/// assert_eq!(around_subpart(input, start..end, 3), 2..7);
/// ```
pub fn around_subpart(bytes: &[u8], subpart: Range<usize>, context: usize) -> Range<usize> {
    let Range {
        start: offset,
        end: subpart_end,
    } = subpart;
    if subpart_end > bytes.len() || subpart_end < offset {
        let at = offset.min(bytes.len());
        return at..at;
    }
    let mut start = offset.saturating_sub(context);
    if let Some(unit) = unit_containing(bytes, start) {
        // Before the error every unit is a whole character, which ends at or before
        // `offset`: start after it.
        start = unit.end.min(offset);
    }
    let mut end = subpart_end.saturating_add(context).min(bytes.len());
    if let Some(unit) = unit_containing(bytes, end) {
        end = unit.start.max(subpart_end);
    }
    start..end
}

/// [`around_subpart`] for bytes that are the start of a longer input, the rest yet
/// to come (a request body read so far): the window also does not end in a proper
/// prefix of a sequence that the bytes end with, after the subpart (the start of a
/// character that the rest may complete), which [`around_subpart`], taking the end
/// of `bytes` as the end of the input, would keep as a unit of its own.
///
/// ```
/// use utf8validate_core::excerpt::{around_subpart, around_subpart_so_far};
/// let so_far = b"a\xC0bc\xE2\x82"; // C0 at 1, then "bc" and the start of a euro sign
/// assert_eq!(around_subpart(so_far, 1..2, 8), 0..6);
/// assert_eq!(around_subpart_so_far(so_far, 1..2, 8), 0..4);
/// ```
pub fn around_subpart_so_far(bytes: &[u8], subpart: Range<usize>, context: usize) -> Range<usize> {
    let subpart_end = subpart.end;
    let window = around_subpart(bytes, subpart, context);
    if window.end != bytes.len() || window.end <= subpart_end {
        return window;
    }
    // The last byte that is not a continuation byte, among the last three after
    // the subpart: the lead byte of the sequence the bytes may end inside.
    let from = window.end.saturating_sub(3).max(subpart_end);
    let lead = (from..window.end)
        .rev()
        .find(|&i| bytes.get(i).is_some_and(|&b| !is_continuation(b)));
    let open = lead.filter(|&i| {
        let state = run(State::Start, bytes.get(i..window.end).unwrap_or_default());
        state != State::Start && state != State::Error
    });
    match open {
        Some(i) => window.start..i.max(window.start),
        None => window,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// The boundaries between units, from the definition: the ends of the pieces
    /// `from_utf8` splits the input into (valid runs, and each `error_len`).
    fn boundaries(bytes: &[u8]) -> Vec<usize> {
        let mut cuts = std::vec![0];
        let mut at = 0;
        while at < bytes.len() {
            match core::str::from_utf8(&bytes[at..]) {
                Ok(s) => {
                    cuts.extend(s.char_indices().skip(1).map(|(i, _)| at + i));
                    at = bytes.len();
                }
                Err(e) => {
                    let good = &bytes[at..at + e.valid_up_to()];
                    let good = core::str::from_utf8(good).unwrap();
                    cuts.extend(good.char_indices().map(|(i, _)| at + i).filter(|&i| i > at));
                    if e.valid_up_to() > 0 {
                        cuts.push(at + e.valid_up_to());
                    }
                    at += e.valid_up_to()
                        + e.error_len().unwrap_or(bytes.len() - at - e.valid_up_to());
                }
            }
            if at > *cuts.last().unwrap() {
                cuts.push(at);
            }
        }
        cuts.dedup();
        cuts
    }

    fn samples() -> Vec<Vec<u8>> {
        let pieces: [&[u8]; 12] = [
            b"a",
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\x80",
            b"\xC0\xAF",
            b"\xE2\x82",
            b"\xF0\x9F\x98",
            b"\xED\xA0\x80",
            b"\xFF",
            b"\xF4\x90\x80\x80",
            b"\xE2\x82\x80\x80",
        ];
        crate::test_inputs::three_pieces(&pieces)
    }

    #[test]
    fn prefix_ends_at_the_last_boundary_within_max() {
        for bytes in samples() {
            let cuts = boundaries(&bytes);
            for max in 0..=bytes.len() + 1 {
                let want = cuts.iter().copied().filter(|&c| c <= max).max().unwrap();
                assert_eq!(prefix(&bytes, max), want, "{bytes:02X?} max {max}");
            }
        }
    }

    #[test]
    fn around_is_the_widest_window_between_boundaries() {
        for bytes in samples() {
            let Err(err) = crate::check(&bytes) else {
                continue;
            };
            let cuts = boundaries(&bytes);
            let end_of = err.valid_up_to() + err.subpart_len();
            for context in 0..8 {
                let lo = err.valid_up_to().saturating_sub(context);
                let hi = (end_of + context).min(bytes.len());
                let want_start = cuts.iter().copied().filter(|&c| c >= lo).min().unwrap();
                let want_end = cuts.iter().copied().filter(|&c| c <= hi).max().unwrap();
                assert_eq!(
                    around(&bytes, &err, context),
                    want_start..want_end,
                    "{bytes:02X?} {err:?} {context}"
                );
            }
        }
    }

    /// For every prefix of an input that holds its first error (the bytes of a body
    /// that have arrived so far), the window is the widest one between the
    /// prefix's boundaries, less the prefix's end when its last unit, after the
    /// subpart, is a sequence the end cuts short (std's `error_len() == None`):
    /// the bytes still to come may complete it.
    #[test]
    fn so_far_does_not_end_in_a_sequence_the_rest_may_complete() {
        for bytes in samples() {
            let Err(err) = crate::check(&bytes) else {
                continue;
            };
            let end_of = err.valid_up_to() + err.subpart_len();
            for arrived in end_of..=bytes.len() {
                let so_far = &bytes[..arrived];
                let mut cuts = boundaries(so_far);
                if let [.., last_start, _] = cuts[..] {
                    let cut_short = core::str::from_utf8(&so_far[last_start..])
                        .is_err_and(|e| e.error_len().is_none());
                    if last_start >= end_of && cut_short {
                        cuts.pop();
                    }
                }
                for context in 0..8 {
                    let lo = err.valid_up_to().saturating_sub(context);
                    let hi = (end_of + context).min(arrived);
                    let want_start = cuts.iter().copied().filter(|&c| c >= lo).min().unwrap();
                    let want_end = cuts.iter().copied().filter(|&c| c <= hi).max().unwrap();
                    assert_eq!(
                        around_subpart_so_far(so_far, err.valid_up_to()..end_of, context),
                        want_start..want_end,
                        "{bytes:02X?} arrived {arrived} {err:?} {context}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_error_outside_the_bytes_gives_an_empty_window() {
        assert_eq!(around_subpart(b"abcdef", 5..7, 4), 5..5);
        assert_eq!(around_subpart(b"abc", 5..7, 4), 3..3);
        #[allow(clippy::reversed_empty_ranges)] // the case under test
        let reversed = 4..3;
        assert_eq!(around_subpart(b"abcdef", reversed, 1), 4..4);
        assert_eq!(around_subpart(b"abc", usize::MAX..usize::MAX, 1), 3..3);
    }

    /// An empty subpart inside the bytes (the C library's error for a buffer it
    /// could not read has no bytes) still has its context around it.
    #[test]
    fn an_empty_subpart_inside_the_bytes_has_its_context() {
        assert_eq!(around_subpart(b"abcdef", 3..3, 2), 1..5);
        assert_eq!(around_subpart("aé€".as_bytes(), 3..3, 2), 1..3);
        assert_eq!(around_subpart(b"abc", 0..0, 5), 0..3);
    }
}
