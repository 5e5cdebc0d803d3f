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
/// `#[non_exhaustive]`: a later release may add a kind, so a `match` on it needs a
/// `_` arm. For a stable identifier use [`name`](Self::name); for people,
/// [`message`](Self::message) or `Display`.
// The discriminants are explicit and never reused: a `Stream` keeps the kind of its
// first error in one byte of its C-visible struct (`utf8_stream`), which the C
// library's header documents as a `utf8_error_kind`, and these are its values.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
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
    /// input: more data could have completed it. The one kind for which
    /// [`Utf8Error::error_len`] is `None`.
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
    /// Every kind, in the order of the draft's considerations (the order above). A
    /// slice, not an array: later releases may add kinds.
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::UnexpectedContinuation,
        ErrorKind::MissingContinuation,
        ErrorKind::Truncated,
        ErrorKind::Overlong,
        ErrorKind::Surrogate,
        ErrorKind::TooLarge,
        ErrorKind::InvalidByte,
    ];

    /// The kind whose discriminant is `raw`, or `None` when there is no such kind
    /// (the byte a `Stream` keeps).
    pub(crate) const fn from_raw(raw: u32) -> Option<ErrorKind> {
        match raw {
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
    /// `"unexpected_continuation"`). Never changes once released; the C library's
    /// `utf8_error_kind_name` gives the same names. The kinds are the ways a
    /// sequence breaks RFC 3629 §4 (Unicode §3.9, Table 3-7).
    ///
    /// ```
    /// use utf8validate_core::ErrorKind;
    /// assert_eq!(ErrorKind::TooLarge.name(), "too_large");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedContinuation => "unexpected_continuation",
            ErrorKind::MissingContinuation => "missing_continuation",
            ErrorKind::Truncated => "truncated",
            ErrorKind::Overlong => "overlong",
            ErrorKind::Surrogate => "surrogate",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::InvalidByte => "invalid_byte",
        }
    }

    /// One English sentence saying what is wrong, for people (the C library's
    /// `utf8_error_kind_message`). The wording may change between releases: match
    /// on the kind, not on the message.
    pub const fn message(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedContinuation => {
                "A continuation byte (80-BF) appears where a lead byte was expected."
            }
            ErrorKind::MissingContinuation => {
                "A lead byte is not followed by enough continuation bytes."
            }
            ErrorKind::Truncated => "The input ends in the middle of a multi-byte sequence.",
            ErrorKind::Overlong => {
                "An overlong (non-shortest) form encodes a code point with more bytes than needed."
            }
            ErrorKind::Surrogate => {
                "A UTF-16 surrogate (U+D800-U+DFFF) is encoded, which is not a scalar value."
            }
            ErrorKind::TooLarge => "A sequence encodes a value above U+10FFFF.",
            ErrorKind::InvalidByte => "A byte that never appears in UTF-8 (F8-FF) is present.",
        }
    }

    /// A few lowercase words naming the kind, as [`Utf8Error`]'s `Display` writes it
    /// after the offset (for example "encoded UTF-16 surrogate"). For people, like
    /// [`message`](Self::message): match on the kind, not on these words.
    const fn phrase(self) -> &'static str {
        match self {
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
/// surrogate", "value above U+10FFFF", "byte never used in UTF-8". The wording may
/// change between releases: match on the kind, or use [`ErrorKind::name`] for a
/// stable string.
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

/// The error of [`from_utf8`](crate::from_utf8), [`check`] and
/// [`Stream::finish`](crate::Stream::finish): where the first ill-formed sequence
/// is, how long its maximal subpart is (Unicode §3.9), and why it is ill-formed.
///
/// The shape of std's [`core::str::Utf8Error`]: the fields are private, and
/// [`valid_up_to`](Self::valid_up_to) and [`error_len`](Self::error_len) answer as
/// std's methods of the same names do, for every input; [`kind`](Self::kind) and
/// [`subpart_len`](Self::subpart_len) add the detail. Plain data (`Copy`, `Send`,
/// `Sync`).
///
/// ```
/// use utf8validate_core::{check, ErrorKind};
/// let e = check(b"ab\xED\xA0\x80").unwrap_err();
/// assert_eq!(e.valid_up_to(), 2);
/// assert_eq!(e.error_len(), Some(1));
/// assert_eq!(e.kind(), ErrorKind::Surrogate);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utf8Error {
    /// Byte offset of the first byte of the first ill-formed sequence.
    pub(crate) offset: usize,
    /// Length in bytes of the maximal subpart at `offset`; for `Truncated`, the
    /// bytes from the lead byte to the end of the input.
    pub(crate) length: usize,
    /// Why the sequence is ill-formed.
    pub(crate) kind: ErrorKind,
}

/// One line for people, in the terms of Unicode §3.9. For an error of kind `kind` at
/// `offset` with a maximal subpart of `length` bytes: `ill-formed UTF-8 at byte
/// offset {offset}: {kind} (maximal subpart of {length} byte(s))`, where `{offset}`
/// is [`valid_up_to`](Utf8Error::valid_up_to), `{length}`
/// [`subpart_len`](Utf8Error::subpart_len) and `{kind}` the `Display` text of
/// [`ErrorKind`]. The wording may change between releases: match on the accessors,
/// not on the text.
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
/// use utf8validate_core::from_utf8;
///
/// fn title(raw: &[u8]) -> Result<&str, Box<dyn core::error::Error>> {
///     let text = from_utf8(raw)?; // Utf8Error → Box<dyn Error>
///     Ok(text.lines().next().unwrap_or(text))
/// }
///
/// assert_eq!(title("Café\nbody".as_bytes()).unwrap(), "Café");
/// assert!(title(b"Caf\xC3").is_err());
/// ```
impl core::error::Error for Utf8Error {}

/// Checks `bytes` and, when they are not well-formed UTF-8 (RFC 3629 §4), says where
/// the first ill-formed sequence starts, how long its maximal subpart is, and why.
///
/// `Ok(())` when `bytes` is well-formed. Otherwise `Err` with
/// [`valid_up_to`](Utf8Error::valid_up_to) the byte offset of the first ill-formed
/// sequence (everything before it is well-formed),
/// [`error_len`](Utf8Error::error_len) its maximal subpart as std gives it (Unicode
/// §3.9: 1-3 bytes; `None` for [`ErrorKind::Truncated`]) and
/// [`kind`](Utf8Error::kind) why (see [`ErrorKind`]). [`from_utf8`](crate::from_utf8)
/// is the same check returning the `&str`. Thread-safe, allocation-free, reads only
/// `bytes`.
///
/// ```
/// use utf8validate_core::{check, ErrorKind};
/// assert_eq!(check("ok ✓".as_bytes()), Ok(()));
/// let e = check(b"ab\xED\xA0\x80").unwrap_err();
/// assert_eq!((e.valid_up_to(), e.error_len(), e.kind()), (2, Some(1), ErrorKind::Surrogate));
/// let e = check(b"\xE2\x82").unwrap_err();
/// assert_eq!((e.valid_up_to(), e.error_len(), e.kind()), (0, None, ErrorKind::Truncated));
/// assert_eq!(e.subpart_len(), 2);
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
/// `str::from_utf8` (the same answers), and the detail std does not give.
impl Utf8Error {
    /// The length of the longest well-formed prefix, as Rust's
    /// [`core::str::Utf8Error::valid_up_to`] gives it: the byte offset of the first
    /// byte of the first ill-formed sequence, from the start of the input (of the
    /// first chunk, for a [`Stream`](crate::Stream)). Python's
    /// `UnicodeDecodeError.start`; the C library's `utf8_error.offset`.
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
    /// else `Some` of the length in bytes of the maximal subpart (1-3): the bytes a
    /// decoder replaces with one U+FFFD, after which decoding resumes.
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

    /// The length in bytes of the maximal subpart (Unicode §3.9) for every kind:
    /// [`error_len`](Self::error_len) where that is `Some`, and for
    /// [`ErrorKind::Truncated`] the bytes from the lead byte to the end of the input
    /// (1-3), which a lossy decoder also replaces with one U+FFFD. The window
    /// [`excerpt::around`](crate::excerpt::around) shows, and where a checker that
    /// reports every error resumes. Python's `UnicodeDecodeError.end - start`; the C
    /// library's `utf8_error.length`.
    ///
    /// ```
    /// use utf8validate_core::check;
    /// assert_eq!(check(b"a\xE2\x82b").unwrap_err().subpart_len(), 2);
    /// assert_eq!(check(b"a\xE2\x82").unwrap_err().subpart_len(), 2);
    /// ```
    #[inline]
    pub const fn subpart_len(&self) -> usize {
        self.length
    }

    /// Why the sequence is ill-formed.
    ///
    /// ```
    /// use utf8validate_core::{check, ErrorKind};
    /// assert_eq!(check(b"\xF4\x90\x80\x80").unwrap_err().kind(), ErrorKind::TooLarge);
    /// ```
    #[inline]
    pub const fn kind(&self) -> ErrorKind {
        self.kind
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
            assert_eq!(ErrorKind::from_raw(*a as u32), Some(*a));
            assert!(a
                .name()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_'));
            assert!(a.message().ends_with('.'));
            for b in &ErrorKind::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
        }
        assert_eq!(ErrorKind::from_raw(0), None);
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
