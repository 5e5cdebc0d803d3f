//! Independent oracles shared by the integration tests (of this crate, and of the C
//! library in `c-tests/`, which includes this module by path), and the inputs they
//! are tried on. Nothing here calls the library: each answer comes from Rust's
//! standard library or from the RFC 3629 grammar written out again, by hand, from
//! the RFC's text.
#![allow(dead_code)]

pub mod inputs;
pub mod render;

/// An error as the oracles give it, field by field: what `Utf8Error`'s accessors
/// must answer (`valid_up_to`, `error_len`, `subpart_len`, `kind`), and what the C
/// functions store in a `utf8_error` (`offset`, `length`, `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Detail {
    /// The offset of the first ill-formed sequence (`valid_up_to`).
    pub offset: usize,
    /// std's `error_len`: `None` when the input ends inside the sequence.
    pub error_len: Option<usize>,
    /// The maximal subpart's length, to the end of the input when `error_len` is
    /// `None` (`subpart_len`; the C struct's `length`).
    pub length: usize,
    /// The kind.
    pub kind: utf8validate_core::ErrorKind,
}

impl Detail {
    /// An error written out by hand: `error_len` is `None` for a truncated
    /// sequence, as std's rule is, else the maximal subpart.
    pub fn new(offset: usize, length: usize, kind: utf8validate_core::ErrorKind) -> Detail {
        let truncated = kind == utf8validate_core::ErrorKind::Truncated;
        Detail {
            offset,
            error_len: (!truncated).then_some(length),
            length,
            kind,
        }
    }
}

/// The value of `kind` in the C library's `utf8_error_kind`, as the header
/// declares it (the index of its name in [`KIND_NAMES`]).
pub fn c_kind(kind: utf8validate_core::ErrorKind) -> u32 {
    use utf8validate_core::ErrorKind;
    match kind {
        ErrorKind::UnexpectedContinuation => 1,
        ErrorKind::MissingContinuation => 2,
        ErrorKind::Truncated => 3,
        ErrorKind::Overlong => 4,
        ErrorKind::Surrogate => 5,
        ErrorKind::TooLarge => 6,
        ErrorKind::InvalidByte => 7,
        other => panic!("{other:?} has no value in the C header"),
    }
}

/// The library's error, read through its accessors.
impl From<utf8validate_core::Utf8Error> for Detail {
    fn from(e: utf8validate_core::Utf8Error) -> Detail {
        Detail {
            offset: e.valid_up_to(),
            error_len: e.error_len(),
            length: e.subpart_len(),
            kind: e.kind(),
        }
    }
}

/// The library's result, read through the error's accessors.
pub fn detail(result: Result<(), utf8validate_core::Utf8Error>) -> Result<(), Detail> {
    result.map_err(Detail::from)
}

/// What `check` (and a stream fed `bytes` in any chunks) must give, from std and
/// the draft: offset, `error_len`, maximal-subpart length and kind of the first
/// error.
pub fn expected_check(bytes: &[u8]) -> Result<(), Detail> {
    match std_error(bytes) {
        None => Ok(()),
        Some((offset, len)) => Err(Detail {
            offset,
            error_len: len,
            length: len.unwrap_or(bytes.len() - offset),
            kind: draft_kind(bytes, offset, len.is_none()),
        }),
    }
}

/// `(valid_up_to, error_len)` from `std::str::from_utf8`, `None` when valid.
pub fn std_error(bytes: &[u8]) -> Option<(usize, Option<usize>)> {
    std::str::from_utf8(bytes)
        .err()
        .map(|e| (e.valid_up_to(), e.error_len()))
}

/// The length of the `UTF8-char` (RFC 3629 §4) at the start of `s`, or `None` when
/// no well-formed character starts there. Written from the ABNF:
///
/// ```text
/// UTF8-1 = %x00-7F
/// UTF8-2 = %xC2-DF UTF8-tail
/// UTF8-3 = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
///          %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
/// UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
///          %xF4 %x80-8F 2( UTF8-tail )
/// UTF8-tail = %x80-BF
/// ```
pub fn rfc_char_len(s: &[u8]) -> Option<usize> {
    let tail = |i: usize| matches!(s.get(i), Some(0x80..=0xBF));
    let in_range =
        |i: usize, lo: u8, hi: u8| matches!(s.get(i), Some(&b) if (lo..=hi).contains(&b));
    match *s.first()? {
        0x00..=0x7F => Some(1),
        0xC2..=0xDF if tail(1) => Some(2),
        0xE0 if in_range(1, 0xA0, 0xBF) && tail(2) => Some(3),
        0xE1..=0xEC | 0xEE..=0xEF if tail(1) && tail(2) => Some(3),
        0xED if in_range(1, 0x80, 0x9F) && tail(2) => Some(3),
        0xF0 if in_range(1, 0x90, 0xBF) && tail(2) && tail(3) => Some(4),
        0xF1..=0xF3 if tail(1) && tail(2) && tail(3) => Some(4),
        0xF4 if in_range(1, 0x80, 0x8F) && tail(2) && tail(3) => Some(4),
        _ => None,
    }
}

/// Offset of the first byte that does not start a well-formed `UTF8-char`, by the
/// RFC grammar alone; `None` when the whole input is `UTF8-octets`.
pub fn rfc_first_error(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < bytes.len() {
        match rfc_char_len(&bytes[i..]) {
            Some(n) => i += n,
            None => return Some(i),
        }
    }
    None
}

/// The kind of the ill-formed sequence at `bytes[offset..]`, from the two tables of
/// Tang's draft ("bytes never used", "two-byte pairs never used") and its
/// considerations; `truncated` says whether std reported no `error_len` (the input
/// ended inside the sequence).
pub fn draft_kind(bytes: &[u8], offset: usize, truncated: bool) -> utf8validate_core::ErrorKind {
    use utf8validate_core::ErrorKind;
    let lead = bytes[offset];
    let second = bytes.get(offset + 1).copied();
    match lead {
        0x80..=0xBF => ErrorKind::UnexpectedContinuation,
        0xC0..=0xC1 => ErrorKind::Overlong,
        0xF5..=0xF7 => ErrorKind::TooLarge,
        0xF8..=0xFF => ErrorKind::InvalidByte,
        _ if truncated => ErrorKind::Truncated,
        0xE0 if matches!(second, Some(0x80..=0x9F)) => ErrorKind::Overlong,
        0xF0 if matches!(second, Some(0x80..=0x8F)) => ErrorKind::Overlong,
        0xED if matches!(second, Some(0xA0..=0xBF)) => ErrorKind::Surrogate,
        0xF4 if matches!(second, Some(0x90..=0xBF)) => ErrorKind::TooLarge,
        _ => ErrorKind::MissingContinuation,
    }
}

/// The names of the error kinds, as `ErrorKind::name` and the header's
/// `utf8_error_kind_name` document them, in the order of their values 0-7.
pub const KIND_NAMES: [&str; 8] = [
    "none",
    "unexpected_continuation",
    "missing_continuation",
    "truncated",
    "overlong",
    "surrogate",
    "too_large",
    "invalid_byte",
];

/// The sentence `ErrorKind::message` and the header's `utf8_error_kind_message`
/// give for each kind, in the order of [`KIND_NAMES`]: written out here so that a
/// swapped or changed message fails (the header allows rewording between releases;
/// this list then changes with it).
pub const KIND_MESSAGES: [&str; 8] = [
    "The input is well-formed UTF-8.",
    "A continuation byte (80-BF) appears where a lead byte was expected.",
    "A lead byte is not followed by enough continuation bytes.",
    "The input ends in the middle of a multi-byte sequence.",
    "An overlong (non-shortest) form encodes a code point with more bytes than needed.",
    "A UTF-16 surrogate (U+D800-U+DFFF) is encoded, which is not a scalar value.",
    "A sequence encodes a value above U+10FFFF.",
    "A byte that never appears in UTF-8 (F8-FF) is present.",
];

/// The draft's byte class (0-11) of `b`, from its prose list of byte ranges.
pub fn draft_class(b: u8) -> u8 {
    match b {
        0x00..=0x7F => 0,
        0x80..=0x8F => 1,
        0x90..=0x9F => 2,
        0xA0..=0xBF => 3,
        0xC0..=0xC1 | 0xF5..=0xFF => 4,
        0xC2..=0xDF => 5,
        0xE0 => 6,
        0xE1..=0xEC | 0xEE..=0xEF => 7,
        0xED => 8,
        0xF0 => 9,
        0xF1..=0xF3 => 10,
        0xF4 => 11,
    }
}

/// Valid text made of `parts.len()` chunks drawn from `chunks`, with up to
/// `max_edits - 1` random byte edits (replace, insert, delete) that usually make it
/// ill-formed.
pub fn mutated_text(
    chunks: &'static [&'static str],
    parts: std::ops::Range<usize>,
    max_edits: usize,
) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let text = prop::collection::vec(prop::sample::select(chunks), parts)
        .prop_map(|parts| parts.concat().into_bytes());
    let edits = prop::collection::vec(
        (any::<prop::sample::Index>(), 0u8..3, any::<u8>()),
        0..max_edits,
    );
    (text, edits).prop_map(|(mut bytes, edits)| {
        for (at, op, byte) in edits {
            if bytes.is_empty() {
                bytes.push(byte);
                continue;
            }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => {
                    bytes.remove(i);
                }
            }
        }
        bytes
    })
}

/// Multilingual sample text (valid UTF-8) for mutation and chunking tests.
pub const SAMPLES: &[&str] = &[
    "Hello, world! plain ASCII text with digits 0123456789 and punctuation.",
    "Grüße aus Köln — naïve café, smörgåsbord, œuvre, façade.",
    "Ελληνικά: Καλημέρα κόσμε, ο Όμηρος και η Ιλιάδα.",
    "Русский текст: съешь же ещё этих мягких французских булок.",
    "日本語のテキスト、漢字とひらがなとカタカナ。中文文本，简体字。",
    "한국어 텍스트: 다람쥐 헌 쳇바퀴에 타고파.",
    "हिन्दी पाठ: ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश।",
    "Emoji 😀🎉🚀 and 𝄞 musical symbols, 𐍈 Gothic, 🇫🇷 flags.",
    "עברית ועربية mixed with English and ١٢٣ digits.",
    "",
];

/// Ill-formed sequences of every kind, to embed in text.
pub const ILL_FORMED: &[&[u8]] = &[
    b"\x80",
    b"\xBF",
    b"\xC3\xA9\xA9",     // unexpected continuation after a whole character
    b"\xC3A",            // missing continuation
    b"\xE2\x82A",        // missing continuation (2 of 3 bytes)
    b"\xF0\x9F\x98A",    // missing continuation (3 of 4 bytes)
    b"\xC0\xAF",         // overlong, C0
    b"\xC1\xBF",         // overlong, C1
    b"\xE0\x80\xAF",     // overlong, E0 80-9F
    b"\xE0\x9F\xBF",     // overlong, E0 80-9F: its upper edge
    b"\xF0\x80\x80\xAF", // overlong, F0 80-8F
    b"\xF0\x8F\xBF\xBF", // overlong, F0 80-8F: its upper edge
    b"\xED\xA0\x80",     // surrogate
    b"\xED\xBF\xBF",     // surrogate
    b"\xF4\x90\x80\x80", // above U+10FFFF
    b"\xF5\x80\x80\x80", // above U+10FFFF
    b"\xF7",
    b"\xF8\x88\x80\x80\x80", // RFC 2279 5-byte form
    b"\xFC\x84\x80\x80\x80\x80",
    b"\xFE",
    b"\xFF",
];

/// Truncated endings (valid prefixes of one sequence).
pub const TRUNCATED: &[&[u8]] = &[
    b"\xC3",
    b"\xE2",
    b"\xE2\x82",
    b"\xF0\x9F",
    b"\xF0\x9F\x98",
    b"\xF4\x8F\xBF",
];
