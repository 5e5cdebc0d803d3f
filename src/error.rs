//! The C shapes of an error: `utf8_error` and `utf8_error_kind` ([`CUtf8Error`] and
//! [`CErrorKind`]), converted from the Rust crate's `Utf8Error` and `ErrorKind`,
//! and the kinds' names and messages as the NUL-terminated strings C gets.
//!
//! The Rust types are in the shape of std's (private fields, accessors, no "no
//! error" kind, more kinds possible); the C ABI keeps its struct with public fields
//! and its enum, whose value 0 (`UTF8_ERROR_NONE`) is what the functions store for
//! well-formed input. The values, names and field order never change: C programs
//! are compiled against them (see `include/utf8validate.h`).

use utf8validate_core::{ErrorKind, Utf8Error};

/// Why a sequence is ill-formed: the considerations of Tang's draft (v0.4), one kind
/// per row of its "bytes never used" and "two-byte pairs never used" tables.
///
/// The discriminants are part of the C ABI (`utf8_error_kind`): explicit, and only
/// ever appended to.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CErrorKind {
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

/// Where the first ill-formed sequence is, how long its maximal subpart is, and why
/// it is ill-formed.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CUtf8Error {
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
    pub kind: CErrorKind,
}

impl CUtf8Error {
    /// What the functions store for well-formed input of `end` bytes:
    /// `{ end, 0, UTF8_ERROR_NONE }`.
    pub(crate) const fn none(end: usize) -> CUtf8Error {
        CUtf8Error {
            offset: end,
            length: 0,
            kind: CErrorKind::None,
        }
    }

    /// What the functions store for input they could not read (a NULL buffer with a
    /// non-zero length): `{ 0, 0, UTF8_ERROR_INVALID_BYTE }`, length 0 marking that
    /// no byte was read.
    pub(crate) const UNREADABLE: CUtf8Error = CUtf8Error {
        offset: 0,
        length: 0,
        kind: CErrorKind::InvalidByte,
    };
}

/// The C struct of a Rust error: `offset` is its `valid_up_to()`, `length` its
/// `subpart_len()` (the maximal subpart, also for a truncated sequence, where
/// `error_len()` is `None`), `kind` its kind.
impl From<Utf8Error> for CUtf8Error {
    fn from(e: Utf8Error) -> CUtf8Error {
        CUtf8Error {
            offset: e.valid_up_to(),
            length: e.subpart_len(),
            kind: e.kind().into(),
        }
    }
}

/// The C value of each Rust kind, by name.
impl From<ErrorKind> for CErrorKind {
    fn from(kind: ErrorKind) -> CErrorKind {
        match kind {
            ErrorKind::UnexpectedContinuation => CErrorKind::UnexpectedContinuation,
            ErrorKind::MissingContinuation => CErrorKind::MissingContinuation,
            ErrorKind::Truncated => CErrorKind::Truncated,
            ErrorKind::Overlong => CErrorKind::Overlong,
            ErrorKind::Surrogate => CErrorKind::Surrogate,
            ErrorKind::TooLarge => CErrorKind::TooLarge,
            ErrorKind::InvalidByte => CErrorKind::InvalidByte,
            // `ErrorKind` is `#[non_exhaustive]`. A kind the Rust crate adds gets a
            // value appended here; until then it is reported as the most general
            // one (the unit test below fails for a kind without its own value).
            _ => CErrorKind::InvalidByte,
        }
    }
}

/// The constant string `$text` followed by a NUL, as a `&'static [u8]` made at
/// compile time (a static array; nothing is built at run time).
macro_rules! nul_terminated {
    ($text:expr) => {{
        const TEXT: &str = $text;
        const BYTES: [u8; TEXT.len() + 1] = with_nul(TEXT);
        &BYTES
    }};
}
/// `text` followed by zeros, as `N` bytes: with `N = text.len() + 1`, `text` and
/// its terminating NUL. Only evaluated at compile time ([`nul_terminated`]), where
/// an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn with_nul<const N: usize>(text: &str) -> [u8; N] {
    let bytes = text.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    while i < bytes.len() {
        out[i] = bytes[i];
        i += 1;
    }
    out
}

impl CErrorKind {
    /// The kind whose value is `raw`, or `None` when `raw` names no kind.
    pub(crate) const fn from_raw(raw: u32) -> Option<CErrorKind> {
        match raw {
            0 => Some(CErrorKind::None),
            1 => Some(CErrorKind::UnexpectedContinuation),
            2 => Some(CErrorKind::MissingContinuation),
            3 => Some(CErrorKind::Truncated),
            4 => Some(CErrorKind::Overlong),
            5 => Some(CErrorKind::Surrogate),
            6 => Some(CErrorKind::TooLarge),
            7 => Some(CErrorKind::InvalidByte),
            _ => None,
        }
    }

    /// `utf8_error_kind_name`: the Rust kind's `name()` with a NUL, and `"none"` for
    /// `UTF8_ERROR_NONE`, which only C has.
    pub(crate) const fn name(self) -> &'static [u8] {
        match self {
            CErrorKind::None => b"none\0",
            CErrorKind::UnexpectedContinuation => {
                nul_terminated!(ErrorKind::UnexpectedContinuation.name())
            }
            CErrorKind::MissingContinuation => {
                nul_terminated!(ErrorKind::MissingContinuation.name())
            }
            CErrorKind::Truncated => nul_terminated!(ErrorKind::Truncated.name()),
            CErrorKind::Overlong => nul_terminated!(ErrorKind::Overlong.name()),
            CErrorKind::Surrogate => nul_terminated!(ErrorKind::Surrogate.name()),
            CErrorKind::TooLarge => nul_terminated!(ErrorKind::TooLarge.name()),
            CErrorKind::InvalidByte => nul_terminated!(ErrorKind::InvalidByte.name()),
        }
    }

    /// `utf8_error_kind_message`: the Rust kind's `message()` with a NUL, and a
    /// sentence of its own for `UTF8_ERROR_NONE`.
    pub(crate) const fn message(self) -> &'static [u8] {
        match self {
            CErrorKind::None => b"The input is well-formed UTF-8.\0",
            CErrorKind::UnexpectedContinuation => {
                nul_terminated!(ErrorKind::UnexpectedContinuation.message())
            }
            CErrorKind::MissingContinuation => {
                nul_terminated!(ErrorKind::MissingContinuation.message())
            }
            CErrorKind::Truncated => nul_terminated!(ErrorKind::Truncated.message()),
            CErrorKind::Overlong => nul_terminated!(ErrorKind::Overlong.message()),
            CErrorKind::Surrogate => nul_terminated!(ErrorKind::Surrogate.message()),
            CErrorKind::TooLarge => nul_terminated!(ErrorKind::TooLarge.message()),
            CErrorKind::InvalidByte => nul_terminated!(ErrorKind::InvalidByte.message()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every Rust kind has a C value of its own, with the same name and message;
    /// the C values are 0-7, in the order of the header.
    #[test]
    fn every_rust_kind_has_its_own_c_kind() {
        let mut seen = std::vec::Vec::new();
        for &kind in ErrorKind::ALL {
            let c = CErrorKind::from(kind);
            assert_ne!(c, CErrorKind::None);
            assert!(!seen.contains(&c), "{kind:?}");
            seen.push(c);
            assert_eq!(c.name(), [kind.name().as_bytes(), b"\0"].concat());
            assert_eq!(c.message(), [kind.message().as_bytes(), b"\0"].concat());
        }
        assert_eq!(seen.len(), 7);
        for raw in 0..=7 {
            let c = CErrorKind::from_raw(raw).unwrap();
            assert_eq!(c as u32, raw);
            for text in [c.name(), c.message()] {
                assert_eq!(text.iter().position(|&b| b == 0), Some(text.len() - 1));
            }
        }
        assert_eq!(CErrorKind::from_raw(8), None);
        assert_eq!(CErrorKind::None.name(), b"none\0");
    }

    /// The C struct of a Rust error: its offset, its maximal subpart (also when
    /// truncated) and its kind.
    #[test]
    fn errors_convert_field_by_field() {
        let e = utf8validate_core::check(b"ab\xE2\x82").unwrap_err();
        assert_eq!(
            CUtf8Error::from(e),
            CUtf8Error {
                offset: 2,
                length: 2,
                kind: CErrorKind::Truncated
            }
        );
        let e = utf8validate_core::check(b"a\xED\xA0\x80").unwrap_err();
        assert_eq!(
            CUtf8Error::from(e),
            CUtf8Error {
                offset: 1,
                length: 1,
                kind: CErrorKind::Surrogate
            }
        );
    }
}
