//! The Rust API as a user takes it: `from_utf8` and `from_utf8_mut` in std's shape;
//! `Utf8Error` and `PercentError` are standard errors (`Display`,
//! `core::error::Error`, `?` into `Box<dyn Error>`), `Utf8Error` with std's
//! accessors; and the public types have the traits users expect of plain data.
//!
//! The expected texts are written out here by hand, not produced by the code under
//! test.

use std::collections::HashSet;
use std::hash::Hash;

use utf8validate_core::{
    check, check_percent, from_utf8, from_utf8_mut, ErrorKind, PercentError, Rendered, State,
    Stream, Utf8Error,
};

/// For each kind, an input whose first error is of that kind, and the exact
/// `Display` text of that error. Offsets and lengths differ in every case, so a
/// text with the two swapped does not match.
const CASES: [(&[u8], ErrorKind, &str); 7] = [
    (
        b"ab\x80",
        ErrorKind::UnexpectedContinuation,
        "ill-formed UTF-8 at byte offset 2: unexpected continuation byte \
         (maximal subpart of 1 byte)",
    ),
    (
        b"a\xE2\x82A",
        ErrorKind::MissingContinuation,
        "ill-formed UTF-8 at byte offset 1: missing continuation byte \
         (maximal subpart of 2 bytes)",
    ),
    (
        b"abcd\xF0\x9F\x98",
        ErrorKind::Truncated,
        "ill-formed UTF-8 at byte offset 4: sequence cut short by the end of the input \
         (maximal subpart of 3 bytes)",
    ),
    (
        b"\xC0\xAF",
        ErrorKind::Overlong,
        "ill-formed UTF-8 at byte offset 0: overlong form (maximal subpart of 1 byte)",
    ),
    (
        b"xyz\xED\xA0\x80",
        ErrorKind::Surrogate,
        "ill-formed UTF-8 at byte offset 3: encoded UTF-16 surrogate \
         (maximal subpart of 1 byte)",
    ),
    (
        b"\xF4\x90\x80\x80",
        ErrorKind::TooLarge,
        "ill-formed UTF-8 at byte offset 0: value above U+10FFFF (maximal subpart of 1 byte)",
    ),
    (
        b"12345\xFF",
        ErrorKind::InvalidByte,
        "ill-formed UTF-8 at byte offset 5: byte never used in UTF-8 \
         (maximal subpart of 1 byte)",
    ),
];

#[test]
fn display_names_offset_kind_and_maximal_subpart() {
    for (input, kind, text) in CASES {
        let e = check(input).unwrap_err();
        assert_eq!(e.kind(), kind, "{input:02X?}");
        assert_eq!(e.to_string(), text, "{input:02X?}");
        assert_eq!(format!("{e}"), text);
        // Through the trait object, as `?` hands it on.
        let boxed: Box<dyn std::error::Error> = Box::new(e);
        assert_eq!(boxed.to_string(), text);
    }
}

#[test]
fn display_of_every_kind_and_of_large_numbers() {
    let cases = [
        (
            ErrorKind::UnexpectedContinuation,
            "unexpected continuation byte",
        ),
        (ErrorKind::MissingContinuation, "missing continuation byte"),
        (
            ErrorKind::Truncated,
            "sequence cut short by the end of the input",
        ),
        (ErrorKind::Overlong, "overlong form"),
        (ErrorKind::Surrogate, "encoded UTF-16 surrogate"),
        (ErrorKind::TooLarge, "value above U+10FFFF"),
        (ErrorKind::InvalidByte, "byte never used in UTF-8"),
    ];
    assert_eq!(cases.len(), ErrorKind::ALL.len());
    for (kind, words) in cases {
        assert_eq!(kind.to_string(), words);
    }
    // An offset of several digits.
    let mut long = vec![b'a'; 1_048_576];
    long.extend_from_slice(b"\xF0\x9F\x98");
    assert_eq!(
        check(&long).unwrap_err().to_string(),
        "ill-formed UTF-8 at byte offset 1048576: sequence cut short by the end of the input \
         (maximal subpart of 3 bytes)"
    );
    // Length 0: the C functions' NULL-buffer error, which a stream records.
    let mut s = Stream::new();
    s.feed(b"abcdefg");
    s.fail_unreadable();
    let e = s.finish().unwrap_err();
    assert_eq!(
        e.to_string(),
        "ill-formed UTF-8 at byte offset 7: byte never used in UTF-8 (maximal subpart of 0 bytes)"
    );
    // Formatting flags do not garble it.
    assert_eq!(format!("{e:>5}"), e.to_string());
}

/// `from_utf8` and `from_utf8_mut` as a user switching from std writes them: the
/// string on success, std's `valid_up_to` and `error_len` on failure (written out
/// here), and `?` into a boxed error.
#[test]
fn from_utf8_in_std_shape() {
    assert_eq!(from_utf8(b""), Ok(""));
    assert_eq!(from_utf8("naïve €😀".as_bytes()), Ok("naïve €😀"));
    /// An input, and its error's `valid_up_to`, `error_len`, `subpart_len`, `kind`.
    type Case = (&'static [u8], usize, Option<usize>, usize, ErrorKind);
    let cases: [Case; 6] = [
        (b"ab\x80", 2, Some(1), 1, ErrorKind::UnexpectedContinuation),
        (b"a\xE2\x82A", 1, Some(2), 2, ErrorKind::MissingContinuation),
        (b"abcd\xF0\x9F\x98", 4, None, 3, ErrorKind::Truncated),
        (b"\xE0\x80\xAF", 0, Some(1), 1, ErrorKind::Overlong),
        (b"\xC3\xA9\xED\xBF\xBF", 2, Some(1), 1, ErrorKind::Surrogate),
        (b"\xF4\x8F\xBF", 0, None, 3, ErrorKind::Truncated),
    ];
    for (input, valid_up_to, error_len, subpart_len, kind) in cases {
        let e = from_utf8(input).unwrap_err();
        assert_eq!(
            (e.valid_up_to(), e.error_len(), e.subpart_len(), e.kind()),
            (valid_up_to, error_len, subpart_len, kind),
            "{input:02X?}"
        );
        let mut copy = input.to_vec();
        assert_eq!(from_utf8_mut(&mut copy), Err(e));
    }
    let mut bytes = *b"caf\xC3\xA9";
    let text = from_utf8_mut(&mut bytes).unwrap();
    text.make_ascii_uppercase();
    assert_eq!(text, "CAFé");
    assert_eq!(&bytes, b"CAF\xC3\xA9");

    fn first_word(raw: &[u8]) -> Result<&str, Box<dyn std::error::Error + Send + Sync>> {
        Ok(from_utf8(raw)?.split(' ').next().unwrap_or(""))
    }
    assert_eq!(first_word("été chaud".as_bytes()).unwrap(), "été");
    assert_eq!(
        first_word(b"\xC0\xAF").unwrap_err().to_string(),
        "ill-formed UTF-8 at byte offset 0: overlong form (maximal subpart of 1 byte)"
    );
}

/// `PercentError`: its accessors, its text, and `?` into a boxed error.
#[test]
fn percent_error_is_a_standard_error() {
    // "a%E2%82" then "b": E2 82 is cut short by 'b' (decoded offset 1, raw 1..7).
    let e = check_percent(b"a%E2%82b").unwrap_err();
    let u = e.utf8_error();
    assert_eq!(
        (u.valid_up_to(), u.error_len(), u.kind()),
        (1, Some(2), ErrorKind::MissingContinuation)
    );
    assert_eq!((e.raw_offset(), e.raw_len()), (1, 6));
    assert_eq!(
        e.to_string(),
        "ill-formed UTF-8 at byte offset 1 of the decoded text (raw bytes 1..7): \
         missing continuation byte (maximal subpart of 2 bytes)"
    );
    // Cut short by the end: no `error_len`, and the raw bytes to the end.
    let e = check_percent(b"x=%F0%9F%98").unwrap_err();
    assert_eq!(e.utf8_error().error_len(), None);
    assert_eq!(e.utf8_error().subpart_len(), 3);
    assert_eq!((e.raw_offset(), e.raw_len()), (2, 9));

    fn decoded_len(raw: &[u8]) -> Result<usize, Box<dyn core::error::Error>> {
        Ok(check_percent(raw)?)
    }
    assert_eq!(decoded_len(b"%C3%A9").unwrap(), 2);
    let boxed = decoded_len(b"%FF").unwrap_err();
    assert_eq!(
        boxed.to_string(),
        "ill-formed UTF-8 at byte offset 0 of the decoded text (raw bytes 0..3): \
         byte never used in UTF-8 (maximal subpart of 1 byte)"
    );
    assert!(boxed.source().is_none());
    assert_eq!(
        boxed.downcast_ref::<PercentError>(),
        Some(&check_percent(b"%FF").unwrap_err())
    );
}

#[test]
fn the_stream_error_displays_as_the_one_shot_error() {
    let mut s = Stream::new();
    s.feed(b"ab");
    s.feed(b"cd\xF0\x9F");
    s.feed(b"\x98");
    let e = s.finish().unwrap_err();
    assert_eq!(e.to_string(), CASES[2].2);
}

/// `?` on `check` in functions returning the boxed error types users write.
#[test]
fn question_mark_converts_into_boxed_errors() {
    fn core_box(b: &[u8]) -> Result<usize, Box<dyn core::error::Error>> {
        check(b)?;
        Ok(b.len())
    }
    fn std_box(b: &[u8]) -> Result<usize, Box<dyn std::error::Error>> {
        check(b)?;
        Ok(b.len())
    }
    fn std_box_send_sync(b: &[u8]) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
        check(b)?;
        Ok(b.len())
    }
    fn stream_box(b: &[u8]) -> Result<usize, Box<dyn core::error::Error>> {
        let mut s = Stream::new();
        s.feed(b);
        s.finish()?;
        Ok(s.position())
    }
    assert_eq!(core_box("é".as_bytes()).unwrap(), 2);
    assert_eq!(std_box("é".as_bytes()).unwrap(), 2);
    assert_eq!(std_box_send_sync("é".as_bytes()).unwrap(), 2);
    assert_eq!(stream_box("é".as_bytes()).unwrap(), 2);
    for (input, _, text) in CASES {
        assert_eq!(core_box(input).unwrap_err().to_string(), text);
        assert_eq!(std_box(input).unwrap_err().to_string(), text);
        assert_eq!(std_box_send_sync(input).unwrap_err().to_string(), text);
        assert_eq!(stream_box(input).unwrap_err().to_string(), text);
        // The concrete error comes back out of the box.
        let boxed = core_box(input).unwrap_err();
        assert_eq!(
            boxed.downcast_ref::<Utf8Error>(),
            Some(&check(input).unwrap_err())
        );
    }
}

#[test]
fn the_error_has_no_source() {
    use core::error::Error;
    for (input, _, _) in CASES {
        let e = check(input).unwrap_err();
        assert!(e.source().is_none());
        let boxed: Box<dyn Error + Send + Sync> = Box::new(e);
        assert!(boxed.source().is_none());
    }
}

/// `valid_up_to` and `error_len` answer as std's methods of the same names, on
/// every input of up to two bytes and on 3- and 4-byte sequences around the edges
/// of the second-byte ranges, alone and after a prefix.
#[test]
fn accessors_match_std() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for a in 0..=255u8 {
        inputs.push(vec![a]);
        for b in 0..=255u8 {
            inputs.push(vec![a, b]);
        }
    }
    let edges = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0];
    for a in [0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5] {
        for b in edges {
            for c in edges {
                inputs.push(vec![a, b, c]);
                inputs.push(vec![a, b, c, 0x80]);
                inputs.push(vec![b'o', b'k', a, b, c]);
            }
        }
    }
    for input in inputs {
        match (check(&input), std::str::from_utf8(&input)) {
            (Ok(()), Ok(_)) => {}
            (Err(e), Err(s)) => {
                assert_eq!(e.valid_up_to(), s.valid_up_to(), "{input:02X?}");
                assert_eq!(e.error_len(), s.error_len(), "{input:02X?}");
            }
            (got, want) => panic!("{input:02X?}: {got:?} vs std {want:?}"),
        }
    }
}

fn plain_data<T: Copy + Clone + Eq + Hash + core::fmt::Debug + Send + Sync + 'static>() {}

#[test]
fn public_types_are_plain_data() {
    plain_data::<Utf8Error>();
    plain_data::<PercentError>();
    plain_data::<ErrorKind>();
    plain_data::<State>();
    plain_data::<Rendered>();
    plain_data::<Stream>();
    // Errors, kinds and streams can be keys.
    let errors: HashSet<Utf8Error> = CASES.iter().map(|c| check(c.0).unwrap_err()).collect();
    assert_eq!(errors.len(), CASES.len());
    let kinds: HashSet<ErrorKind> = ErrorKind::ALL.iter().copied().collect();
    assert_eq!(kinds.len(), ErrorKind::ALL.len());
    let mut s = Stream::new();
    s.feed(b"x");
    let streams: HashSet<Stream> = [Stream::new(), Stream::default(), s].into_iter().collect();
    assert_eq!(streams.len(), 2);
}
