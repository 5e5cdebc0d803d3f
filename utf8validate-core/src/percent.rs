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

use crate::diagnostics::{check, Utf8Error};
use crate::stream::Stream;

/// The first ill-formed sequence of percent-encoded text: where it is in the decoded
/// bytes (`error`, as [`crate::check`] reports it for them) and which raw bytes
/// decode to its maximal subpart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PercentError {
    /// The error in the decoded bytes: offset and maximal-subpart length counted in
    /// decoded bytes, and the kind.
    pub error: Utf8Error,
    /// Offset in the raw text of the first raw byte that decodes to the maximal
    /// subpart (a `%` for an escaped byte).
    pub raw_offset: usize,
    /// Length in raw bytes of the text that decodes to the maximal subpart: 1-3 per
    /// decoded byte (3 for `%XX`).
    pub raw_length: usize,
}

/// The value of a hexadecimal digit, or 16 for any other byte.
#[inline]
fn hex_value(byte: u8) -> u8 {
    match byte {
        b'0'..=b'9' => byte - b'0',
        b'a'..=b'f' => byte - b'a' + 10,
        b'A'..=b'F' => byte - b'A' + 10,
        _ => 16,
    }
}

/// The byte that the escape at `raw[at]` (a `%`) decodes to, if `%XX` starts there.
#[inline]
fn escaped(raw: &[u8], at: usize) -> Option<u8> {
    let (hi, lo) = (hex_value(*raw.get(at + 1)?), hex_value(*raw.get(at + 2)?));
    (hi | lo < 16).then_some(hi << 4 | lo)
}

/// Decodes `raw[from..]` into `out` until either ends: returns the raw bytes read and
/// the decoded bytes written. Runs without `%` are copied whole.
fn decode_from(raw: &[u8], from: usize, out: &mut [MaybeUninit<u8>]) -> (usize, usize) {
    let mut r = from;
    let mut w = 0;
    while let Some(rest) = raw.get(r..).filter(|rest| !rest.is_empty()) {
        let room = out.len() - w;
        if room == 0 {
            break;
        }
        let run = rest
            .iter()
            .take(room)
            .position(|&b| b == b'%')
            .unwrap_or(room.min(rest.len()));
        if let (Some(dst), Some(src)) = (out.get_mut(w..w + run), rest.get(..run)) {
            for (d, &s) in dst.iter_mut().zip(src) {
                d.write(s);
            }
        }
        r += run;
        w += run;
        if run < room && r < raw.len() {
            // `raw[r]` is a `%`: one decoded byte from 1 or 3 raw bytes.
            let (byte, width) = escaped(raw, r).map_or((b'%', 1), |b| (b, 3));
            if let Some(d) = out.get_mut(w) {
                d.write(byte);
            }
            r += width;
            w += 1;
        }
    }
    (r - from, w)
}

/// Writes the decoded form of `raw` into `out` and returns its length. `out` needs
/// at most `raw.len()` bytes; a shorter `out` receives the decoded bytes that fit.
/// Allocation-free; reads only `raw`, writes only `out`.
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
/// assert_eq!((err.error.offset, err.error.length, err.error.kind), (2, 1, ErrorKind::Overlong));
/// assert_eq!((err.raw_offset, err.raw_length), (2, 3));
/// ```
pub fn check_percent(raw: &[u8]) -> Result<usize, PercentError> {
    let Some(first) = raw.iter().position(|&b| b == b'%') else {
        return check(raw)
            .map(|()| raw.len())
            .map_err(|error| PercentError {
                raw_offset: error.offset,
                raw_length: error.length,
                error,
            });
    };
    // Up to the first `%` the raw bytes are the decoded ones.
    let mut stream = Stream::new();
    let mut ok = stream.feed(raw.get(..first).unwrap_or_default());
    let mut at = first;
    let mut piece = [MaybeUninit::<u8>::uninit(); PIECE];
    while ok && at < raw.len() {
        let (read, written) = decode_from(raw, at, &mut piece);
        // SAFETY: `decode_from` initialised `piece[..written]`, `written <= PIECE`.
        let decoded = unsafe { core::slice::from_raw_parts(piece.as_ptr().cast::<u8>(), written) };
        ok = stream.feed(decoded);
        at += read;
    }
    stream
        .finish()
        .map(|()| stream.position())
        .map_err(|error| {
            let raw_offset = raw_position(raw, first, error.offset);
            let raw_end = raw_position(raw, first, error.offset.saturating_add(error.length));
            PercentError {
                error,
                raw_offset,
                raw_length: raw_end - raw_offset,
            }
        })
}

/// The offset in `raw` of the decoded byte `decoded` (`raw.len()` at the end), given
/// that `raw[..first]` holds no `%`.
fn raw_position(raw: &[u8], first: usize, decoded: usize) -> usize {
    if decoded <= first {
        return decoded;
    }
    let mut r = first;
    let mut w = first;
    while w < decoded && r < raw.len() {
        r += match raw.get(r) {
            Some(b'%') if escaped(raw, r).is_some() => 3,
            _ => 1,
        };
        w += 1;
    }
    r.min(raw.len())
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
        // Three pieces each (two under Miri, which is slow).
        let third: &[&[u8]] = if cfg!(miri) { &[b""] } else { &pieces };
        let mut out = Vec::new();
        for a in pieces {
            for b in pieces {
                for &c in third {
                    out.push([a, b, c].concat());
                }
            }
        }
        out
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
        // error falls at every distance from the pieces' edges; under Miri, the cuts
        // around the first edge only.
        let cuts = if cfg!(miri) { 600..900 } else { 0..long.len() };
        for cut in cuts.step_by(7) {
            inputs.push(long[..cut].to_vec());
        }
        for raw in inputs {
            let (decoded, starts) = oracle_decode(&raw);
            match core::str::from_utf8(&decoded) {
                Ok(_) => assert_eq!(check_percent(&raw), Ok(decoded.len()), "{raw:02X?}"),
                Err(e) => {
                    let err = check_percent(&raw).unwrap_err();
                    let length = e.error_len().unwrap_or(decoded.len() - e.valid_up_to());
                    assert_eq!(
                        (err.error.offset, err.error.length),
                        (e.valid_up_to(), length)
                    );
                    assert_eq!(err.error, check(&decoded).unwrap_err());
                    assert_eq!(err.raw_offset, starts[e.valid_up_to()], "{raw:02X?}");
                    assert_eq!(
                        err.raw_offset + err.raw_length,
                        starts[e.valid_up_to() + length]
                    );
                }
            }
        }
    }
}
