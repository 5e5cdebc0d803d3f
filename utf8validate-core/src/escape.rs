//! Rendering untrusted bytes as valid UTF-8, for logs and messages: [`escape_into`]
//! (reversible: each byte of an ill-formed sequence becomes `\xHH`) and
//! [`replace_into`] (lossy: each maximal subpart becomes U+FFFD, exactly as Rust's
//! `String::from_utf8_lossy` and the WHATWG Encoding Standard's UTF-8 decoder do).
//!
//! Both write into a buffer the caller provides and never allocate. Valid runs are
//! found with the fast validator ([`crate::first_error`]) and copied in bulk; each
//! ill-formed sequence is split into maximal subparts (Unicode §3.9, "U+FFFD
//! Substitution of Maximal Subparts") with the draft's state machine.
//!
//! # Truncation
//!
//! The output is a sequence of *units*: a whole UTF-8 character copied from the
//! input, one escape (`\\`, `\x00`, `\xHH`), or one U+FFFD. When the buffer is too
//! small, the functions write the longest run of whole units from the start that
//! fits, so what was written is a prefix of the full result and is itself valid
//! UTF-8 (never half a character, never half an escape). They always report the
//! length of the full result, so the caller can retry with a large enough buffer.

use core::mem::MaybeUninit;

use crate::sequence::start_of_sequence;

/// What [`escape_into`] or [`replace_into`] did: how many bytes it wrote and how
/// many the whole result needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rendered {
    /// Bytes written at the start of the output buffer: a prefix of the result made
    /// of whole units (see the [module docs](self)), valid UTF-8. Equals `needed`
    /// iff the whole result fit.
    pub written: usize,
    /// Length in bytes of the whole result (saturates at `usize::MAX`).
    pub needed: usize,
}

impl Rendered {
    /// True iff the whole result was written (`written == needed`).
    pub fn is_complete(&self) -> bool {
        self.written == self.needed
    }
}

/// Writes `bytes` into `out` as valid UTF-8 that can be turned back into exactly
/// `bytes`: every well-formed character is copied as it is, except that a backslash
/// (5C) becomes `\\` and U+0000 becomes `\x00`; each byte of an ill-formed sequence
/// becomes `\xHH`, with two uppercase hexadecimal digits (`C0` → `\xC0`).
///
/// - Decoding: read `\\` as one backslash and `\xHH` as the byte 0xHH; every other
///   byte stands for itself. The result is `bytes` again.
/// - NUL is escaped so that the result never contains a 00 byte and can be used as
///   a C string. Other control characters (newline, ESC, ...) are well-formed and
///   are copied unchanged.
/// - Ill-formed sequences are those of RFC 3629 §4 / Unicode §3.9, split into
///   maximal subparts as [`crate::check`] reports them; every byte of them is
///   escaped, including a truncated sequence at the end.
/// - `out` may be of any length (including 0): see [`Rendered`] and the module
///   docs for what is written when it is too small. The whole result needs at most
///   `4 * bytes.len()` bytes.
/// - Allocation-free; reads only `bytes`, writes only `out[..written]`;
///   thread-safe.
///
/// ```
/// let mut out = [0u8; 64];
/// let r = utf8validate_core::escape_into(b"caf\xC3\xA9 \\ \xC0\xAF!", &mut out);
/// assert_eq!(&out[..r.written], r"café \\ \xC0\xAF!".as_bytes());
/// assert!(r.is_complete());
/// ```
pub fn escape_into(bytes: &[u8], out: &mut [u8]) -> Rendered {
    render(bytes, as_uninit(out), Mode::Escape)
}

/// Writes `bytes` into `out` with every maximal subpart of every ill-formed
/// sequence (Unicode §3.9) replaced by U+FFFD REPLACEMENT CHARACTER (EF BF BD),
/// and every well-formed character copied as it is (U+0000 included).
///
/// - The result equals Rust's `String::from_utf8_lossy(bytes)` and the WHATWG
///   Encoding Standard's UTF-8 decoder byte for byte: one U+FFFD per maximal
///   subpart, e.g. `E2 82 41` → `EF BF BD 41`, `F0 80 80` → three U+FFFD, a final
///   truncated `F0 9F 98` → one U+FFFD.
/// - `out` may be of any length (including 0): see [`Rendered`] and the module
///   docs for what is written when it is too small. The whole result needs at most
///   `3 * bytes.len()` bytes.
/// - Allocation-free; reads only `bytes`, writes only `out[..written]`;
///   thread-safe.
///
/// ```
/// let mut out = [0u8; 64];
/// let r = utf8validate_core::replace_into(b"a\xE2\x82b\xF0\x80\x80", &mut out);
/// assert_eq!(&out[..r.written], "a\u{FFFD}b\u{FFFD}\u{FFFD}\u{FFFD}".as_bytes());
/// assert!(r.is_complete());
/// ```
pub fn replace_into(bytes: &[u8], out: &mut [u8]) -> Rendered {
    render(bytes, as_uninit(out), Mode::Replace)
}

/// `out` as a buffer of possibly uninitialised bytes (only ever written).
fn as_uninit(out: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the size, alignment and validity of `u8` and
    // more; the renderer only writes initialised bytes into it, so `out` stays
    // fully initialised when the borrow ends.
    unsafe { core::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) }
}

/// Which rendering: [`escape_into`]'s or [`replace_into`]'s. For the C library; not
/// part of the Rust API.
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// [`escape_into`].
    Escape,
    /// [`replace_into`].
    Replace,
    /// [`escape_into`], and also `\xHH` for each byte of `"`, of a C0 or C1 control
    /// character, of DEL, and of U+2028 and U+2029: the text stays on one line and
    /// inside double quotes (the C library's `utf8_escape_quoted`).
    Quoted,
}

/// The UTF-8 encoding of U+FFFD (EF BF BD).
const REPLACEMENT: &[u8; 3] = b"\xEF\xBF\xBD";

/// [`escape_into`] or [`replace_into`] into a possibly uninitialised buffer (the C
/// ABI's `out`). For the C library; not part of the Rust API.
#[doc(hidden)]
pub fn render(bytes: &[u8], out: &mut [MaybeUninit<u8>], mode: Mode) -> Rendered {
    let mut w = Writer {
        out,
        written: 0,
        needed: 0,
        full: false,
    };
    let mut rest = bytes;
    while !rest.is_empty() {
        let Some(offset) = crate::dispatch::first_error(rest) else {
            w.valid(rest, mode);
            break;
        };
        // `offset < rest.len()`; were it not, walking all of `rest` with the
        // machine would still give the right result.
        let (good, bad) = rest.split_at_checked(offset).unwrap_or((&[], rest));
        w.valid(good, mode);
        let walk = if offset < DENSE { DENSE } else { 0 };
        rest = render_ill_formed(&mut w, bad, mode, walk);
    }
    Rendered {
        written: w.written,
        needed: w.needed,
    }
}

/// An error fewer than this many bytes after the previous one (or after the
/// start) begins a dense stretch: [`render_ill_formed`] walks on with the state
/// machine until this many well-formed bytes in a row follow an error, instead of
/// calling the fast validator once per error, which costs about as much as
/// walking this many bytes (random bytes hold an error every byte or two). A lone
/// error costs one call and its maximal subpart.
const DENSE: usize = 32;

/// Renders `bad`, which starts with an ill-formed sequence: its maximal subpart,
/// then, while the bytes after it are at most `walk` well-formed bytes away from
/// the next error, those bytes and errors too, walked character by character with
/// the draft's state machine. Returns the rest, which starts at a character
/// boundary, for the fast validator.
fn render_ill_formed<'a>(w: &mut Writer<'_>, bad: &'a [u8], mode: Mode, walk: usize) -> &'a [u8] {
    // `bad[clean..at]` is well-formed and not yet written; `at` is a boundary.
    let mut clean = 0;
    let mut at = 0;
    while let Some(&byte) = bad.get(at) {
        if byte < 0x80 {
            // ASCII is a whole character: the machine would stay in START.
            at += 1;
        } else {
            match crate::scalar::unit_at(bad, at) {
                Ok(end) => at = end,
                Err(end) => {
                    if at > clean {
                        w.valid(span(bad, clean, at), mode);
                    }
                    match mode {
                        Mode::Escape | Mode::Quoted => {
                            for &byte in span(bad, at, end) {
                                w.unit(&hex_escape(byte));
                            }
                        }
                        Mode::Replace => w.unit(REPLACEMENT),
                    }
                    at = end;
                    clean = end;
                }
            }
        }
        if at - clean >= walk {
            break;
        }
    }
    if at > clean {
        w.valid(span(bad, clean, at), mode);
    }
    bad.get(at..).unwrap_or_default()
}

/// `bytes[from..to]`. The walk's bookkeeping keeps `from <= to <= bytes.len()`;
/// were it wrong, this would give nothing rather than a panic path.
fn span(bytes: &[u8], from: usize, to: usize) -> &[u8] {
    bytes.get(from..to).unwrap_or_default()
}

/// `\xHH` for `byte`, uppercase.
fn hex_escape(byte: u8) -> [u8; 4] {
    [b'\\', b'x', hex_digit(byte >> 4), hex_digit(byte & 0x0F)]
}

/// The uppercase hexadecimal digit of `n` (0-15).
fn hex_digit(n: u8) -> u8 {
    if n < 10 {
        b'0' + n
    } else {
        b'A' + (n - 10)
    }
}

/// Writes whole units into `out` until one does not fit, and counts every unit.
struct Writer<'a> {
    out: &'a mut [MaybeUninit<u8>],
    written: usize,
    needed: usize,
    /// A unit did not fit: nothing more is written (the output stays a prefix).
    full: bool,
}

impl Writer<'_> {
    /// One indivisible unit (an escape or U+FFFD).
    fn unit<const N: usize>(&mut self, unit: &[u8; N]) {
        self.needed = self.needed.saturating_add(N);
        if self.full {
            return;
        }
        // `written <= out.len() <= isize::MAX`, so the sum cannot overflow.
        match self.out.get_mut(self.written..self.written + N) {
            Some(dst) => {
                copy(dst, unit);
                self.written += N;
            }
            None => self.full = true,
        }
    }

    /// Well-formed UTF-8, rendered per `mode`.
    fn valid(&mut self, run: &[u8], mode: Mode) {
        if mode == Mode::Replace {
            return self.text(run);
        }
        if mode == Mode::Quoted {
            return self.quoted(run);
        }
        let mut rest = run;
        while let Some((before, byte, after)) = split_at_escaped(rest) {
            self.text(before);
            if byte == 0 {
                self.unit(b"\\x00");
            } else {
                self.unit(b"\\\\");
            }
            rest = after;
        }
        self.text(rest);
    }

    /// Well-formed UTF-8 rendered for [`Mode::Quoted`]: as for [`Mode::Escape`], with
    /// each byte of the characters that could end a line or a quoted string
    /// (`"`, C0 and C1 controls, DEL, U+2028, U+2029) written as `\xHH`.
    fn quoted(&mut self, run: &[u8]) {
        let mut clean = 0;
        let mut at = 0;
        while let Some(&byte) = run.get(at) {
            let width = match (byte, run.get(at + 1), run.get(at + 2)) {
                (b'\\', _, _) => 1,
                (0x00..=0x1F | b'"' | 0x7F, _, _) => 1,
                (0xC2, Some(0x80..=0x9F), _) => 2,
                (0xE2, Some(0x80), Some(0xA8 | 0xA9)) => 3,
                _ => 0,
            };
            if width == 0 {
                at += 1;
                continue;
            }
            self.text(span(run, clean, at));
            for &b in span(run, at, at + width) {
                if b == b'\\' {
                    self.unit(b"\\\\");
                } else {
                    self.unit(&hex_escape(b));
                }
            }
            at += width;
            clean = at;
        }
        self.text(span(run, clean, run.len()));
    }

    /// Well-formed UTF-8 copied as it is; when it does not all fit, the longest
    /// prefix that ends on a character boundary.
    fn text(&mut self, run: &[u8]) {
        self.needed = self.needed.saturating_add(run.len());
        if self.full || run.is_empty() {
            return;
        }
        let room = self.out.len().saturating_sub(self.written);
        let mut take = run.len();
        if take > room {
            take = room;
            // `run[take]` exists; back up to the lead byte of its character.
            take = start_of_sequence(run, take);
            self.full = true;
        }
        if let (Some(dst), Some(src)) = (
            self.out.get_mut(self.written..self.written + take),
            run.get(..take),
        ) {
            copy(dst, src);
            self.written += take;
        }
    }
}

/// `run` split at its first backslash or NUL (the two characters that
/// [`escape_into`] escapes in valid text): the bytes before it, it, and the bytes
/// after it. Searched 8 bytes at a time.
fn split_at_escaped(run: &[u8]) -> Option<(&[u8], u8, &[u8])> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    // Nonzero iff some byte of `v` is zero (the classic exact test).
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let (words, _) = run.as_chunks::<8>();
    let mut from = 0;
    for word in words {
        let v = u64::from_ne_bytes(*word);
        if has_zero(v) | has_zero(v ^ BACKSLASHES) != 0 {
            break;
        }
        from += 8;
    }
    let rest = run.get(from..)?;
    let at = from + rest.iter().position(|&b| b == b'\\' || b == 0)?;
    let (before, tail) = run.split_at_checked(at)?;
    let (&byte, after) = tail.split_first()?;
    Some((before, byte, after))
}

/// `dst = src` (same lengths).
#[inline]
fn copy(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        d.write(s);
    }
}
