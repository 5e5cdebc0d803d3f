//! What exactly is wrong: the kind of the first ill-formed sequence and the length of
//! its maximal subpart (Unicode §3.9, "U+FFFD Substitution of Maximal Subparts").
//!
//! The fast engines only find *where* the first ill-formed sequence starts. This
//! module then runs the draft's state machine from that character boundary for at
//! most four bytes and reads the kind off the state it failed in and the byte that
//! failed it, so the detail costs nothing on valid input and O(1) on invalid input.

use crate::sequence::is_continuation;
use crate::state_machine::{next_state, State};

/// Why a sequence is ill-formed: the considerations of Tang's draft (v0.4), one kind
/// per row of its "bytes never used" and "two-byte pairs never used" tables.
///
/// The discriminants are part of the C ABI (`utf8_error_kind`): explicit, and only
/// ever appended to.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// No error: the input is well-formed.
    None = 0,
    /// A continuation byte (80-BF) where a lead byte or ASCII was expected, e.g. a
    /// lone `80`, or `BF` after a complete `C3 A9`. Maximal subpart: 1 byte.
    UnexpectedContinuation = 1,
    /// A lead byte followed by too few continuation bytes before another byte that
    /// is not a continuation byte, e.g. `C3 41`, `E2 82 41`, `F0 9F 98 41`.
    /// Maximal subpart: the lead byte and the continuation bytes that were valid
    /// (1-3 bytes).
    MissingContinuation = 2,
    /// The input ends inside a sequence, e.g. a final `E2 82`. Maximal subpart: the
    /// bytes from the lead byte to the end (1-3 bytes). Only for the end of the whole
    /// input: more data could have completed it.
    Truncated = 3,
    /// A non-shortest (overlong) form: a lead byte C0 or C1 (any 2-byte sequence from
    /// them encodes U+0000-U+007F), `E0 80-9F` (3 bytes for U+0000-U+07FF) or
    /// `F0 80-8F` (4 bytes for U+0000-U+FFFF). Maximal subpart: 1 byte (the lead).
    Overlong = 4,
    /// A UTF-16 surrogate encoded directly: `ED A0-BF` (U+D800-U+DFFF are not scalar
    /// values). Maximal subpart: 1 byte (the lead ED).
    Surrogate = 5,
    /// A value above U+10FFFF: `F4 90-BF`, or a lead byte F5, F6 or F7. Maximal
    /// subpart: 1 byte (the lead).
    TooLarge = 6,
    /// A byte never used by UTF-8 at all: F8-FB and FC-FD (the 5- and 6-byte lead
    /// bytes of obsolete RFC 2279) and FE-FF. Maximal subpart: 1 byte.
    InvalidByte = 7,
}

impl ErrorKind {
    /// All kinds, in discriminant order.
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::None,
        ErrorKind::UnexpectedContinuation,
        ErrorKind::MissingContinuation,
        ErrorKind::Truncated,
        ErrorKind::Overlong,
        ErrorKind::Surrogate,
        ErrorKind::TooLarge,
        ErrorKind::InvalidByte,
    ];

    /// The kind whose discriminant is `raw`, or `None` when there is no such kind.
    pub const fn from_raw(raw: u32) -> Option<ErrorKind> {
        match raw {
            0 => Some(ErrorKind::None),
            1 => Some(ErrorKind::UnexpectedContinuation),
            2 => Some(ErrorKind::MissingContinuation),
            3 => Some(ErrorKind::Truncated),
            4 => Some(ErrorKind::Overlong),
            5 => Some(ErrorKind::Surrogate),
            6 => Some(ErrorKind::TooLarge),
            7 => Some(ErrorKind::InvalidByte),
            _ => None,
        }
    }

    /// A stable snake_case name, for logs and machine-readable output (for example
    /// `"unexpected_continuation"`). Never changes once released. Every kind, `None`
    /// included, has one; the kinds are the ways a sequence breaks RFC 3629 §4
    /// (Unicode §3.9, Table 3-7).
    pub const fn name(self) -> &'static str {
        without_nul(self.name_nul())
    }

    /// One English sentence saying what is wrong, for people. Every kind, `None`
    /// included, has one. The wording may change between releases: match on the
    /// kind, not on the message.
    pub const fn message(self) -> &'static str {
        without_nul(self.message_nul())
    }

    /// [`name`](Self::name) with a terminating NUL, for the C library.
    #[doc(hidden)]
    pub const fn name_nul(self) -> &'static str {
        match self {
            ErrorKind::None => "none\0",
            ErrorKind::UnexpectedContinuation => "unexpected_continuation\0",
            ErrorKind::MissingContinuation => "missing_continuation\0",
            ErrorKind::Truncated => "truncated\0",
            ErrorKind::Overlong => "overlong\0",
            ErrorKind::Surrogate => "surrogate\0",
            ErrorKind::TooLarge => "too_large\0",
            ErrorKind::InvalidByte => "invalid_byte\0",
        }
    }

    /// [`message`](Self::message) with a terminating NUL, for the C library.
    #[doc(hidden)]
    pub const fn message_nul(self) -> &'static str {
        match self {
            ErrorKind::None => "The input is well-formed UTF-8.\0",
            ErrorKind::UnexpectedContinuation => {
                "A continuation byte (80-BF) appears where a lead byte was expected.\0"
            }
            ErrorKind::MissingContinuation => {
                "A lead byte is not followed by enough continuation bytes.\0"
            }
            ErrorKind::Truncated => "The input ends in the middle of a multi-byte sequence.\0",
            ErrorKind::Overlong => {
                "An overlong (non-shortest) form encodes a code point with more bytes than needed.\0"
            }
            ErrorKind::Surrogate => {
                "A UTF-16 surrogate (U+D800-U+DFFF) is encoded, which is not a scalar value.\0"
            }
            ErrorKind::TooLarge => "A sequence encodes a value above U+10FFFF.\0",
            ErrorKind::InvalidByte => "A byte that never appears in UTF-8 (F8-FF) is present.\0",
        }
    }
}

impl ErrorKind {
    /// A few lowercase words naming the kind, as [`Utf8Error`]'s `Display` writes it
    /// after the offset (for example "encoded UTF-16 surrogate"). For people, like
    /// [`message`](Self::message): match on the kind, not on these words.
    const fn phrase(self) -> &'static str {
        match self {
            ErrorKind::None => "no error",
            ErrorKind::UnexpectedContinuation => "unexpected continuation byte",
            ErrorKind::MissingContinuation => "missing continuation byte",
            ErrorKind::Truncated => "sequence cut short by the end of the input",
            ErrorKind::Overlong => "overlong form",
            ErrorKind::Surrogate => "encoded UTF-16 surrogate",
            ErrorKind::TooLarge => "value above U+10FFFF",
            ErrorKind::InvalidByte => "byte never used in UTF-8",
        }
    }
}

/// A few lowercase words for people, without a final period, for use inside a
/// longer message: "unexpected continuation byte", "missing continuation byte",
/// "sequence cut short by the end of the input", "overlong form", "encoded UTF-16
/// surrogate", "value above U+10FFFF", "byte never used in UTF-8", and "no error"
/// for [`ErrorKind::None`]. The wording may change between releases: match on the
/// kind, or use [`ErrorKind::name`] for a stable string.
///
/// ```
/// use utf8validate_core::ErrorKind;
/// assert_eq!(ErrorKind::Overlong.to_string(), "overlong form");
/// ```
impl core::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.phrase())
    }
}

/// `s` without its final NUL (the strings above are written once, NUL-terminated,
/// and shared by the Rust and C APIs).
const fn without_nul(s: &'static str) -> &'static str {
    match s.as_bytes().split_last() {
        Some((0, rest)) => match core::str::from_utf8(rest) {
            Ok(text) => text,
            Err(_) => s,
        },
        _ => s,
    }
}

/// Where the first ill-formed sequence is, how long its maximal subpart is, and why
/// it is ill-formed.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utf8Error {
    /// Byte offset of the first byte of the first ill-formed sequence; equals Rust's
    /// `Utf8Error::valid_up_to()` and Python's `UnicodeDecodeError.start`.
    pub offset: usize,
    /// Length in bytes of the maximal subpart at `offset` (Unicode §3.9): the bytes
    /// a decoder replaces with one U+FFFD; 1-3 for an error, 0 when there is none
    /// and for the C functions' NULL-buffer errors (no byte was read). Equals
    /// Rust's `error_len()` where that is `Some`, and Python's
    /// `UnicodeDecodeError.end - start`. For a sequence
    /// cut short by the end of the input (`ErrorKind::Truncated`, in C
    /// `UTF8_ERROR_TRUNCATED`), the bytes from the lead byte to the end of the input.
    pub length: usize,
    /// Why the sequence is ill-formed.
    pub kind: ErrorKind,
}

/// One line for people, in the terms of Unicode §3.9. For an error of kind `kind` at
/// `offset` with a maximal subpart of `length` bytes: `ill-formed UTF-8 at byte
/// offset {offset}: {kind} (maximal subpart of {length} byte(s))`, where `{kind}` is
/// the `Display` text of [`ErrorKind`]. The wording may change between releases:
/// match on the fields, not on the text.
///
/// ```
/// use utf8validate_core::check;
/// let e = check(b"Caf\xC3").unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "ill-formed UTF-8 at byte offset 3: sequence cut short by the end of the input \
///      (maximal subpart of 1 byte)"
/// );
/// ```
impl core::fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let unit = if self.length == 1 { "byte" } else { "bytes" };
        write!(
            f,
            "ill-formed UTF-8 at byte offset {}: {} (maximal subpart of {} {})",
            self.offset, self.kind, self.length, unit
        )
    }
}

/// A standard error, as std's `Utf8Error` is: `?` turns it into a `Box<dyn Error>`.
/// No [`source`](core::error::Error::source): the error is the input's, not a lower
/// layer's.
///
/// ```
/// use utf8validate_core::check;
///
/// fn title(raw: &[u8]) -> Result<&[u8], Box<dyn core::error::Error>> {
///     check(raw)?; // Utf8Error → Box<dyn Error>
///     Ok(raw.split(|&b| b == b'\n').next().unwrap_or(raw))
/// }
///
/// assert_eq!(title("Café\nbody".as_bytes()).unwrap(), "Café".as_bytes());
/// assert!(title(b"Caf\xC3").is_err());
/// ```
impl core::error::Error for Utf8Error {}

/// Checks `bytes` and, when they are not well-formed UTF-8 (RFC 3629 §4), says where
/// the first ill-formed sequence starts, how long its maximal subpart is, and why.
///
/// `Ok(())` when `bytes` is well-formed. Otherwise `Err` with `offset` the byte offset
/// of the first ill-formed sequence (everything before it is well-formed), `length`
/// its maximal subpart (Unicode §3.9: 1-3 bytes; for [`ErrorKind::Truncated`], the
/// bytes from the lead byte to the end) and `kind` why (see [`ErrorKind`]).
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// use utf8validate_core::{check, ErrorKind, Utf8Error};
/// assert_eq!(check("ok ✓".as_bytes()), Ok(()));
/// assert_eq!(
///     check(b"ab\xED\xA0\x80"),
///     Err(Utf8Error { offset: 2, length: 1, kind: ErrorKind::Surrogate })
/// );
/// assert_eq!(
///     check(b"\xE2\x82"),
///     Err(Utf8Error { offset: 0, length: 2, kind: ErrorKind::Truncated })
/// );
/// ```
pub fn check(bytes: &[u8]) -> Result<(), Utf8Error> {
    match crate::dispatch::first_error(bytes) {
        None => Ok(()),
        Some(offset) => Err(describe(bytes, offset)),
    }
}

/// Describes the ill-formed sequence that starts at the character boundary
/// `offset`, given that the input is `bytes` and ends there (no more data follows).
pub(crate) fn describe(bytes: &[u8], offset: usize) -> Utf8Error {
    let rest = bytes.get(offset..).unwrap_or(&[]);
    // `offset` comes from `first_error`, so a description always exists; the
    // fallback only keeps this total without a panic path.
    let fallback = Utf8Error {
        offset: 0,
        length: rest.len().min(1),
        kind: ErrorKind::InvalidByte,
    };
    describe_sequence(rest, true).unwrap_or(fallback).at(offset)
}

/// The accessors of std's [`core::str::Utf8Error`], for code that moves from
/// `str::from_utf8`. A `Utf8Error` is plain data (`Copy`, `Send`, `Sync`); it is the
/// error of [`check`] and [`Stream::finish`](crate::Stream::finish).
impl Utf8Error {
    /// The length of the longest well-formed prefix: [`offset`](Self::offset), as
    /// Rust's [`core::str::Utf8Error::valid_up_to`] gives it. In bytes, from the start
    /// of the input (of the first chunk, for a [`Stream`](crate::Stream)).
    ///
    /// ```
    /// let e = utf8validate_core::check(b"ab\xC0\xAF").unwrap_err();
    /// assert_eq!(e.valid_up_to(), 2);
    /// ```
    #[inline]
    pub const fn valid_up_to(&self) -> usize {
        self.offset
    }

    /// As Rust's [`core::str::Utf8Error::error_len`]: `None` when the input ends
    /// inside a sequence ([`ErrorKind::Truncated`]: more data could complete it),
    /// else `Some` of the maximal subpart's length in bytes
    /// ([`length`](Self::length), 1-3; 0 only for the C functions' NULL-buffer
    /// errors, which std has no counterpart for).
    ///
    /// ```
    /// use utf8validate_core::check;
    /// assert_eq!(check(b"a\xE2\x82b").unwrap_err().error_len(), Some(2));
    /// assert_eq!(check(b"a\xE2\x82").unwrap_err().error_len(), None);
    /// ```
    #[inline]
    pub const fn error_len(&self) -> Option<usize> {
        match self.kind {
            ErrorKind::Truncated => None,
            _ => Some(self.length),
        }
    }

    /// The same error, with its offset moved by `base` bytes.
    #[inline]
    pub(crate) fn at(self, base: usize) -> Utf8Error {
        Utf8Error {
            offset: self.offset + base,
            ..self
        }
    }
}

/// Runs the draft's machine from START over the first bytes of `seq` (at most 4)
/// and describes the ill-formed sequence at its start, with offset 0.
///
/// Returns `None` when the first sequence of `seq` is well-formed, or when `seq`
/// ends inside it and `at_end` is false (more data could complete it).
pub(crate) fn describe_sequence(seq: &[u8], at_end: bool) -> Option<Utf8Error> {
    let mut state = State::Start;
    for (i, &byte) in seq.iter().enumerate().take(4) {
        let next = next_state(state, byte);
        match next {
            State::Error => {
                let (length, kind) = failure(state, byte, i);
                return Some(Utf8Error {
                    offset: 0,
                    length,
                    kind,
                });
            }
            State::Start => return None,
            _ => state = next,
        }
    }
    if at_end && state != State::Start {
        Some(Utf8Error {
            offset: 0,
            length: seq.len(),
            kind: ErrorKind::Truncated,
        })
    } else {
        None
    }
}

/// The maximal-subpart length and kind when `byte`, at index `at` of a sequence,
/// moves the machine from `state` into ERROR.
fn failure(state: State, byte: u8, at: usize) -> (usize, ErrorKind) {
    let is_continuation = is_continuation(byte);
    let kind = match state {
        State::Start => match byte {
            _ if is_continuation => ErrorKind::UnexpectedContinuation,
            0xC0..=0xC1 => ErrorKind::Overlong,
            0xF5..=0xF7 => ErrorKind::TooLarge,
            _ => ErrorKind::InvalidByte, // F8-FF: the only bytes left that fail in START
        },
        // Right after a lead byte with a restricted second byte, a continuation byte
        // outside the range is a specific violation (draft's two-byte pair table).
        State::C | State::F if is_continuation => ErrorKind::Overlong, // E0 80-9F, F0 80-8F
        State::D if is_continuation => ErrorKind::Surrogate,           // ED A0-BF
        State::G if is_continuation => ErrorKind::TooLarge,            // F4 90-BF
        _ => ErrorKind::MissingContinuation,
    };
    // The maximal subpart: in START the failing byte alone; otherwise the lead byte
    // and the continuation bytes accepted before the failing one.
    let length = if state == State::Start { 1 } else { at };
    (length, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_snake_case() {
        for (i, a) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(ErrorKind::from_raw(i as u32), Some(*a));
            assert!(a
                .name()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_'));
            assert!(a.message().ends_with('.'));
            for b in &ErrorKind::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
        }
        assert_eq!(ErrorKind::from_raw(8), None);
    }

    /// `describe_sequence` on every string of one or two bytes and on 3- and
    /// 4-byte strings around the edges of the lead bytes' second-byte ranges,
    /// each followed by a byte that cannot follow anything (FF): `None` when the
    /// first sequence is well-formed (std decodes a character), the maximal
    /// subpart when it is ill-formed (std's `error_len`), and a truncation only at
    /// the end (`at_end`), with the bytes to the end.
    #[test]
    fn describe_sequence_answers_for_the_first_sequence_only() {
        // Every byte and pair of bytes; under Miri, which interprets each call about a
        // thousand times slower, the bytes at the edges of the draft's byte classes.
        let bytes: std::vec::Vec<u8> = if cfg!(miri) {
            std::vec![
                0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
                0xED, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
            ]
        } else {
            (0..=255u8).collect()
        };
        let mut inputs: std::vec::Vec<std::vec::Vec<u8>> = std::vec::Vec::new();
        for &a in &bytes {
            inputs.push(std::vec![a]);
            for &b in &bytes {
                inputs.push(std::vec![a, b]);
            }
        }
        let edges = [0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0];
        for a in [0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5] {
            for b in edges {
                for c in edges {
                    inputs.push(std::vec![a, b, c]);
                    inputs.push(std::vec![a, b, c, 0x80]);
                }
            }
        }
        for mut seq in inputs {
            for at_end in [false, true] {
                let whole = seq.clone();
                let want = match core::str::from_utf8(&whole) {
                    Ok(_) => None,
                    Err(e) if e.valid_up_to() > 0 => None,
                    Err(e) => match e.error_len() {
                        Some(length) => Some(length),
                        None if at_end => Some(whole.len()),
                        None => None,
                    },
                };
                let got = describe_sequence(&whole, at_end);
                assert_eq!(got.map(|e| e.length), want, "{whole:02X?} at_end {at_end}");
                if let Some(e) = got {
                    assert_eq!(e.offset, 0);
                    let truncated = core::str::from_utf8(&whole)
                        .unwrap_err()
                        .error_len()
                        .is_none();
                    assert_eq!(e.kind == ErrorKind::Truncated, truncated, "{whole:02X?}");
                }
                // What follows the first sequence never matters.
                seq.push(0xFF);
                let first = describe_sequence(&seq, at_end).map(|e| e.length);
                seq.pop();
                if want.is_none() && core::str::from_utf8(&whole).is_ok() {
                    assert_eq!(first, None, "{seq:02X?} FF");
                }
            }
        }
    }
}
