//! Percent-encoded text (URL paths and query arguments, form fields, RFC 3986 §2.1)
//! checked as it is decoded: [`check_percent`] answers whether the decoded bytes are
//! well-formed UTF-8 and, when not, where the first ill-formed sequence is in the
//! decoded bytes and in the raw text, without a buffer for the decoded text.
//! [`decode`] writes the decoded bytes, for a log line or the application.
//!
//! The decoding rule: `%` followed by two hexadecimal digits (either case) is the byte
//! they give; any other `%` is itself; every other byte is itself (`+` too: it is
//! ASCII either way, so it changes no verdict and no offset). A `%` that does not
//! start an escape is kept rather than dropped with what follows, so a raw byte after
//! it is still checked: `%4` followed by FF decodes to `%4` FF, which is ill-formed.

use core::mem::MaybeUninit;

use crate::diagnostics::{ErrorKind, Utf8Error};
use crate::dispatch;
use crate::state_machine::{next_state, State};
use crate::stream::Stream;

/// The error of [`check_percent`]: the first ill-formed sequence of percent-encoded
/// text, where it is in the decoded bytes ([`utf8_error`](Self::utf8_error), as
/// [`crate::check`] reports it for them) and which raw bytes decode to its maximal
/// subpart ([`raw_offset`](Self::raw_offset), [`raw_len`](Self::raw_len)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PercentError {
    /// The error in the decoded bytes.
    error: Utf8Error,
    /// Offset in the raw text of the first raw byte that decodes to the subpart.
    raw_offset: usize,
    /// Length in raw bytes of the text that decodes to the subpart.
    raw_length: usize,
}

impl PercentError {
    /// The error in the decoded bytes, exactly what [`crate::check`] reports for them:
    /// offset and maximal-subpart length counted in decoded bytes, and the kind.
    #[inline]
    pub const fn utf8_error(&self) -> Utf8Error {
        self.error
    }

    /// Offset in the raw text of the first raw byte that decodes to the maximal
    /// subpart (a `%` for an escaped byte).
    #[inline]
    pub const fn raw_offset(&self) -> usize {
        self.raw_offset
    }

    /// Length in raw bytes of the text that decodes to the maximal subpart (the
    /// [`subpart_len`](Utf8Error::subpart_len) decoded bytes, also when the text
    /// ends inside a sequence): 1-3 raw bytes per decoded byte (3 for `%XX`).
    #[inline]
    pub const fn raw_len(&self) -> usize {
        self.raw_length
    }
}

/// One line for people: the decoded error as [`Utf8Error`]'s `Display` words it,
/// with the raw bytes that decode to its maximal subpart: `ill-formed UTF-8 at byte
/// offset {offset} of the decoded text (raw bytes {start}..{end}): {kind} (maximal
/// subpart of {length} byte(s))`. The wording may change between releases: match on
/// the accessors, not on the text.
///
/// ```
/// let e = utf8validate_core::check_percent(b"q=%C0%AF").unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "ill-formed UTF-8 at byte offset 2 of the decoded text (raw bytes 2..5): \
///      overlong form (maximal subpart of 1 byte)"
/// );
/// ```
impl core::fmt::Display for PercentError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let e = &self.error;
        let unit = if e.length == 1 { "byte" } else { "bytes" };
        write!(
            f,
            "ill-formed UTF-8 at byte offset {} of the decoded text (raw bytes {}..{}): {} \
             (maximal subpart of {} {})",
            e.offset,
            self.raw_offset,
            self.raw_offset.saturating_add(self.raw_length),
            e.kind,
            e.length,
            unit
        )
    }
}

/// A standard error: `?` turns it into a `Box<dyn Error>`. No
/// [`source`](core::error::Error::source): `Display` already says all that the
/// decoded error would.
impl core::error::Error for PercentError {}

/// The value of each byte as a hexadecimal digit, or 16 for a byte that is none.
// Evaluated at compile time: an index out of range would fail the build.
#[allow(clippy::indexing_slicing)]
static HEX: [u8; 256] = {
    let mut table = [16u8; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = match byte as u8 {
            digit @ b'0'..=b'9' => digit - b'0',
            letter @ b'a'..=b'f' => letter - b'a' + 10,
            letter @ b'A'..=b'F' => letter - b'A' + 10,
            _ => 16,
        };
        byte += 1;
    }
    table
};

/// The byte that the escape at `raw[at]` (a `%`) decodes to, if `%XX` starts there.
#[inline(always)]
fn escaped(raw: &[u8], at: usize) -> Option<u8> {
    let [_, hi, lo] = *raw.get(at..)?.first_chunk::<3>()?;
    #[allow(clippy::indexing_slicing)] // a byte indexes 256 entries
    let (hi, lo) = (HEX[usize::from(hi)], HEX[usize::from(lo)]);
    (hi | lo < 16).then_some(hi << 4 | lo)
}

/// Per byte of `word`, the high bit set where the byte is `%`, and possibly above
/// such a byte (the borrow of the classic zero-byte test); the lowest set bit is
/// exactly the first `%`. Bytes are in memory order from the low end
/// (`from_le_bytes`), whatever the target's byte order.
#[inline(always)]
fn percent_bits(word: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    const PERCENTS: u64 = u64::from_le_bytes([b'%'; 8]);
    let x = word ^ PERCENTS;
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Decodes `raw[from..]` into `out` until either ends: returns the raw bytes read and
/// the decoded bytes written, and writes nothing past them. Eight bytes at a time
/// while a word holds no `%` (a load, a test and a store), then byte by byte up to
/// and through the escape.
fn decode_from(raw: &[u8], from: usize, out: &mut [MaybeUninit<u8>]) -> (usize, usize) {
    let mut r = from;
    let mut w = 0;
    loop {
        // Whole words while 8 raw bytes remain, 8 bytes of `out` are free and the
        // word holds no `%`.
        while let (Some(&bytes), Some(dst)) = (
            raw.get(r..).and_then(<[u8]>::first_chunk::<8>),
            out.get_mut(w..)
                .and_then(<[MaybeUninit<u8>]>::first_chunk_mut::<8>),
        ) {
            if percent_bits(u64::from_le_bytes(bytes)) != 0 {
                break;
            }
            *dst = bytes.map(MaybeUninit::new);
            r += 8;
            w += 8;
        }
        // One decoded byte: a raw byte, or the escape at a `%`.
        let (Some(&first), Some(d)) = (raw.get(r), out.get_mut(w)) else {
            break;
        };
        let (byte, width) = if first == b'%' {
            escaped(raw, r).map_or((b'%', 1), |b| (b, 3))
        } else {
            (first, 1)
        };
        d.write(byte);
        r += width;
        w += 1;
    }
    (r - from, w)
}

/// Writes the decoded form of `raw` (percent-encoding, RFC 3986 §2.1, by the rule in
/// the [module docs](self)) into `out` and returns its length in bytes. `out` needs at
/// most `raw.len()` bytes; a shorter `out` receives the decoded bytes that fit, and
/// nothing is written past the returned length. No UTF-8 check is made: see
/// [`check_percent`]. Thread-safe, allocation-free; reads only `raw`, writes only
/// `out`.
///
/// ```
/// let mut out = [0u8; 16];
/// let n = utf8validate_core::percent::decode(b"a%C3%A9%zz+", &mut out);
/// assert_eq!(&out[..n], b"a\xC3\xA9%zz+");
/// ```
pub fn decode(raw: &[u8], out: &mut [u8]) -> usize {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, and `decode_uninit` only
    // writes initialised bytes, so `out` stays initialised.
    let out = unsafe { &mut *(core::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
    decode_uninit(raw, out)
}

/// [`decode`] into a possibly uninitialised buffer (the C ABI's `out`). For the C
/// library; not part of the Rust API.
#[doc(hidden)]
pub fn decode_uninit(raw: &[u8], out: &mut [MaybeUninit<u8>]) -> usize {
    decode_from(raw, 0, out).1
}

/// How many decoded bytes one check decodes at a time, on the stack.
const PIECE: usize = 256;

/// Checks whether the decoded form of `raw` is well-formed UTF-8 (RFC 3629 §4;
/// Unicode §3.9, Table 3-7): the same verdict as [`crate::check`] on [`decode`]'s
/// output. `Ok` carries the length of the decoded bytes; `Err` says where the first
/// ill-formed sequence is, in decoded bytes and in raw bytes. Thread-safe, allocation-free (at most 256 decoded bytes at a time,
/// on the stack), reads only `raw`.
///
/// ```
/// use utf8validate_core::{percent::check_percent, ErrorKind};
/// assert_eq!(check_percent(b"q=caf%C3%A9&x=1"), Ok(11));
/// let err = check_percent(b"q=%C0%AF").unwrap_err();   // overlong '/'
/// let e = err.utf8_error();
/// assert_eq!((e.valid_up_to(), e.error_len(), e.kind()), (2, Some(1), ErrorKind::Overlong));
/// assert_eq!((err.raw_offset(), err.raw_len()), (2, 3));
/// ```
pub fn check_percent(raw: &[u8]) -> Result<usize, PercentError> {
    match decoded_if_valid(raw) {
        Some(decoded) => Ok(decoded),
        None => Err(first_error(raw)),
    }
}

/// The decoded length of `raw` if its decoded bytes are well-formed UTF-8, checked
/// as it is decoded, with nothing written: text with no `%` is checked where it is
/// by the vector validator; in other text, ASCII between escapes is skipped 8 bytes
/// at a time, each escaped byte is one step of the draft's machine, and a run of 32
/// or more raw bytes that are not all ASCII goes to the vector validator with the
/// machine's state carried in.
fn decoded_if_valid(raw: &[u8]) -> Option<usize> {
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    if !raw.contains(&b'%') {
        return dispatch::validate(raw).then_some(raw.len());
    }
    let mut state = State::Start;
    let mut r = 0;
    let mut escapes = 0;
    // Ends at the `break` below, where no byte is left.
    loop {
        if state == State::Start {
            // On to the next `%` or byte that is not ASCII.
            if let Some(&word) = raw.get(r..).and_then(<[u8]>::first_chunk::<8>) {
                let word = u64::from_le_bytes(word);
                let stops = percent_bits(word) | (word & HIGHS);
                if stops == 0 {
                    r += 8;
                    continue;
                }
                r += (stops.trailing_zeros() / 8) as usize;
            } else {
                let rest = raw.get(r..).unwrap_or_default();
                r += rest
                    .iter()
                    .position(|&b| b == b'%' || b >= 0x80)
                    .unwrap_or(rest.len());
            }
            if let Some(end) = long_raw_run(raw, r) {
                state = dispatch::validate_chunk(state, raw.get(r..end).unwrap_or_default());
                if state == State::Error {
                    return None;
                }
                r = end;
                continue;
            }
        }
        // A `%`, a byte that is not ASCII, or any byte inside a character.
        let Some(&byte) = raw.get(r) else { break };
        let (decoded, width) = match byte {
            b'%' => escaped(raw, r).map_or((b'%', 1), |b| (b, 3)),
            _ => (byte, 1),
        };
        escapes += width / 3;
        state = next_state(state, decoded);
        if state == State::Error {
            return None;
        }
        r += width;
    }
    (state == State::Start).then_some(raw.len() - 2 * escapes)
}

/// Where the run of raw bytes at `r` ends (the next `%`, or the end), if `raw[r]` is
/// not ASCII and the run is long enough to be worth a call to the vector validator.
/// `None` makes the caller step the machine byte by byte: the same answer, slower.
fn long_raw_run(raw: &[u8], r: usize) -> Option<usize> {
    /// Raw runs at least this long go to the vector validator.
    const LONG_RUN: usize = 32;
    if raw.get(r).is_none_or(|&b| b < 0x80) {
        return None;
    }
    let end = find_percent(raw, r);
    (end - r >= LONG_RUN).then_some(end)
}

/// The offset of the first `%` in `raw` at or after `from`, or `raw.len()`.
fn find_percent(raw: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(&word) = raw.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let bits = percent_bits(u64::from_le_bytes(word));
        if bits != 0 {
            return at + (bits.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    raw.get(at..)
        .and_then(|rest| rest.iter().position(|&b| b == b'%'))
        .map_or(raw.len(), |p| at + p)
}

/// `piece[..written]`, which `decode_from` initialised.
fn initialised(piece: &[MaybeUninit<u8>; PIECE], written: usize) -> &[u8] {
    let written = written.min(PIECE);
    // SAFETY: `decode_from` wrote `piece[..written]` (`written <= PIECE`), and
    // `MaybeUninit<u8>` has the layout of `u8`.
    unsafe { core::slice::from_raw_parts(piece.as_ptr().cast::<u8>(), written) }
}

/// Where the first error of ill-formed percent-encoded text is: the decoded bytes
/// fed to a [`Stream`] a piece at a time, for the exact offset and maximal subpart,
/// then mapped back to the raw text.
fn first_error(raw: &[u8]) -> PercentError {
    let mut stream = Stream::new();
    let mut piece = [MaybeUninit::<u8>::uninit(); PIECE];
    let mut at = 0;
    while at < raw.len() {
        let (read, written) = decode_from(raw, at, &mut piece);
        if !stream.feed(initialised(&piece, written)) {
            break;
        }
        at += read;
    }
    let error = stream.finish().err().unwrap_or(Utf8Error {
        // Not reached: the caller found the decoded bytes ill-formed. Were it
        // reached, the end of the text is reported, as an input cut short.
        offset: stream.position(),
        length: 0,
        kind: ErrorKind::Truncated,
    });
    let raw_offset = raw_position(raw, error.offset);
    let raw_end = raw_position(raw, error.offset.saturating_add(error.length));
    PercentError {
        error,
        raw_offset,
        raw_length: raw_end - raw_offset,
    }
}

/// The offset in `raw` of the decoded byte `decoded` (`raw.len()` at the end, and for
/// any `decoded` past it).
fn raw_position(raw: &[u8], decoded: usize) -> usize {
    let mut r = 0;
    let mut w = 0;
    while w < decoded {
        let Some(&byte) = raw.get(r) else { break };
        // An escape is read only when its 3 bytes are there: `r` stays within `raw`.
        r += if byte == b'%' && escaped(raw, r).is_some() {
            3
        } else {
            1
        };
        w += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// The decoding rule, written out byte by byte.
    fn oracle_decode(raw: &[u8]) -> (Vec<u8>, Vec<usize>) {
        let (mut out, mut starts) = (Vec::new(), Vec::new());
        let mut i = 0;
        while i < raw.len() {
            starts.push(i);
            let hex = |b: u8| (b as char).to_digit(16);
            if raw[i] == b'%' && i + 2 < raw.len() {
                if let (Some(h), Some(l)) = (hex(raw[i + 1]), hex(raw[i + 2])) {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
            }
            out.push(raw[i]);
            i += 1;
        }
        starts.push(raw.len());
        (out, starts)
    }

    fn samples() -> Vec<Vec<u8>> {
        let pieces: [&[u8]; 14] = [
            b"a",
            b"%",
            b"%4",
            b"%41",
            b"%C3",
            b"%a9",
            b"\xC3",
            b"\xA9",
            b"%E2%82",
            b"%AC",
            b"%zz",
            b"%ED%A0%80",
            b"\xF0\x9F",
            b"%98%80",
        ];
        crate::test_inputs::three_pieces(&pieces)
    }

    #[test]
    fn decode_follows_the_rule() {
        for raw in samples() {
            let mut out = std::vec![0u8; raw.len()];
            let n = decode(&raw, &mut out);
            assert_eq!(&out[..n], &oracle_decode(&raw).0[..], "{raw:02X?}");
        }
    }

    #[test]
    fn check_percent_agrees_with_from_utf8_on_the_decoded_bytes() {
        let mut long = Vec::new();
        for raw in samples() {
            long.extend_from_slice(b"%C3%A9");
            long.extend_from_slice(&raw);
        }
        let mut inputs = samples();
        // Longer than one piece (256 decoded bytes), cut every 7 bytes, so that the
        // error falls at every distance from the pieces' edges; under Miri, every
        // third of those cuts around the first edge only.
        let (cuts, step) = if cfg!(miri) {
            (600..900, 21)
        } else {
            (0..long.len(), 7)
        };
        for cut in cuts.step_by(step) {
            inputs.push(long[..cut].to_vec());
        }
        // Well-formed text over several pieces, characters split across their edges
        // (raw and escaped bytes mixed), and the same with an error near the end.
        // Runs of raw UTF-8 long enough for the vector validator, one ending inside
        // a character that an escape completes, and errors inside and after them.
        let raw_run = "é€".repeat(12).into_bytes();
        for tail in [&b"%A9"[..], b"\xA9%41", b"%41", b"%C3", b"\xFF%41"] {
            // Every alignment of the run's end against the 8-byte words.
            for cut in raw_run.len() - 9..=raw_run.len() {
                inputs.push([&raw_run[..cut], tail, &raw_run[..], b"%E2%82%AC"].concat());
                inputs.push([b"%41", &raw_run[..cut], tail].concat());
            }
        }
        // Raw runs on both sides of the length that goes to the vector validator
        // (long_raw_run's 32 bytes), whole or with the error in their last byte.
        for len in 28..=36 {
            let mut run = raw_run[..len].to_vec();
            inputs.push([&b"%41"[..], &run, b"%41"].concat());
            *run.last_mut().unwrap() = 0xFF;
            inputs.push([&b"%41"[..], &run, b"%41"].concat());
        }
        let mut bad_run = raw_run.clone();
        bad_run[20] = 0xC0;
        inputs.push([&b"a%41"[..], &bad_run, b"%41"].concat());
        // ASCII runs of every length around 8 between escapes (the 8-byte skip), as in
        // a real query, with an error after each.
        let query = b"q=na%C3%AFve+caf%C3%A9+cr%C3%A8me&lang=fr&page=2&sort=desc&city=Z%C3%BCrich\
            &tag=%E2%82%AC&emoji=%F0%9F%98%80&from=2024-01-01&session=4f9c2a7e1b3d8c6a";
        inputs.push(query.to_vec());
        for run in 5..=18 {
            let ascii = &b"abcdefghijklmnopqrstuvwxyz"[..run];
            for tail in [&b"%C3%A9"[..], b"%C3", b"\xC3\xA9", b"%FF", b"\x80", b"%"] {
                inputs.push([&b"%41"[..], ascii, tail, ascii, b"%E2%82%AC", ascii].concat());
            }
        }
        let unit: [&[u8]; 4] = [b"x%C3%A9", b"\xC3%A9", b"%E2%82\xAC", b"\xF0%9F%98%80"];
        let valid = unit.concat();
        // 40-42 units end at three places past the first piece's edge, 83 and 90
        // cross three and four edges; under Miri, the first edge only.
        let repeats: &[usize] = if cfg!(miri) {
            &[40, 41, 42]
        } else {
            &[40, 41, 42, 83, 90]
        };
        for &repeat in repeats {
            let mut long_valid = valid.repeat(repeat);
            for pad in 0..if cfg!(miri) { 1 } else { 4 } {
                inputs.push(long_valid.clone());
                // Cut inside the last character: ill-formed only at the end.
                inputs.push(long_valid[..long_valid.len() - 3].to_vec());
                let mut broken = long_valid.clone();
                let at = broken.len() - 3;
                broken[at] = 0xFF;
                inputs.push(broken);
                long_valid.insert(0, b'a' + pad);
            }
        }
        for raw in inputs {
            let (decoded, starts) = oracle_decode(&raw);
            match core::str::from_utf8(&decoded) {
                Ok(_) => assert_eq!(check_percent(&raw), Ok(decoded.len()), "{raw:02X?}"),
                Err(e) => {
                    let err = check_percent(&raw).unwrap_err();
                    let length = e.error_len().unwrap_or(decoded.len() - e.valid_up_to());
                    let u = err.utf8_error();
                    assert_eq!(
                        (u.valid_up_to(), u.error_len(), u.subpart_len()),
                        (e.valid_up_to(), e.error_len(), length)
                    );
                    assert_eq!(u, crate::check(&decoded).unwrap_err());
                    assert_eq!(err.raw_offset(), starts[e.valid_up_to()], "{raw:02X?}");
                    assert_eq!(
                        err.raw_offset() + err.raw_len(),
                        starts[e.valid_up_to() + length]
                    );
                }
            }
        }
    }
}
