//! `utf8_stream_init`, `utf8_stream_feed` and `utf8_stream_finish` against
//! independent oracles: whatever the split, finishing gives Rust's
//! `std::str::from_utf8` offset (`valid_up_to`) and maximal-subpart length
//! (`error_len`, or the bytes to the end when std reports a truncated sequence) and
//! the kind the draft's tables give (`oracle::expected_check`); `feed` returns false
//! exactly from the chunk where the first error became certain; NULL arguments.

use utf8validate_c_tests as support;
#[path = "../../utf8validate-core/tests/oracle/mod.rs"]
mod oracle;

use std::ptr;

use oracle::inputs::splits;
use oracle::{c_kind, std_error, Detail, ILL_FORMED, SAMPLES, TRUNCATED};
use support::c_api::{kind, utf8_stream_feed, utf8_stream_finish, utf8_stream_init, CError};
use utf8validate_core::Stream;

/// The `utf8_error` the oracle's error is stored as.
fn c_error(d: Detail) -> CError {
    CError::new(d.offset, d.length, c_kind(d.kind))
}

/// What `utf8_stream_finish` must report for `bytes`, from the oracle.
fn expected(bytes: &[u8]) -> Result<(), CError> {
    oracle::expected_check(bytes).map_err(c_error)
}

/// Feeds `chunks` to a C stream and finishes it: the error it reports, or `Ok`
/// after checking the `{len, 0, NONE}` it stores for valid input.
fn run(chunks: &[&[u8]]) -> Result<(), CError> {
    let whole: Vec<u8> = chunks.concat();
    let mut s = std::mem::MaybeUninit::<Stream>::uninit();
    // SAFETY: init writes a whole `utf8_stream` into `s`.
    unsafe { utf8_stream_init(s.as_mut_ptr()) };
    let mut fed = 0;
    for chunk in chunks {
        fed += chunk.len();
        // SAFETY: `s` is initialised; `chunk` is a live slice.
        let ok = unsafe { utf8_stream_feed(s.as_mut_ptr(), chunk.as_ptr().cast(), chunk.len()) };
        // Once an error is certain from the bytes so far, feed must say so: an
        // error std reports with an `error_len` (not a truncation) in the prefix.
        let certain = matches!(std_error(&whole[..fed]), Some((_, Some(_))));
        assert_eq!(
            ok, !certain,
            "feed result after {fed} bytes of {chunks:02x?}"
        );
    }
    let mut err = CError::new(99, 99, kind::INVALID_BYTE);
    // SAFETY: `s` is initialised; `err` is writable.
    let ok = unsafe { utf8_stream_finish(s.as_ptr(), &mut err) };
    if ok {
        let none = CError::new(whole.len(), 0, kind::NONE);
        assert_eq!(err, none, "finish's detail for valid input {chunks:02x?}");
        Ok(())
    } else {
        Err(err)
    }
}

/// The C stream over `bytes` whole, split at every point, at every pair of points
/// (for short inputs) and in 1-byte chunks equals the oracle.
fn assert_every_split(bytes: &[u8]) {
    let want = expected(bytes);
    for (how, chunks) in splits(bytes) {
        assert_eq!(run(&chunks), want, "{how}: {bytes:02x?}");
    }
}

#[test]
fn multilingual_text_with_every_kind_of_error() {
    let text: Vec<u8> = SAMPLES.concat().into_bytes();
    assert_every_split(&text);
    for sample in SAMPLES {
        let text = sample.as_bytes();
        let mid = (0..=text.len() / 2)
            .rev()
            .find(|&i| sample.is_char_boundary(i))
            .unwrap_or(0);
        for bad in ILL_FORMED {
            let mut bytes = text[..mid].to_vec();
            bytes.extend_from_slice(bad);
            bytes.extend_from_slice(&text[mid..]);
            assert_every_split(&bytes);
        }
        for end in TRUNCATED {
            let mut bytes = text.to_vec();
            bytes.extend_from_slice(end);
            assert_every_split(&bytes);
        }
    }
}

#[test]
fn init_zeroes_the_whole_struct() {
    let mut garbage = [0xA5u8; std::mem::size_of::<Stream>()];
    // SAFETY: `garbage` has the size of a `Stream`; init writes a whole one.
    unsafe { utf8_stream_init(garbage.as_mut_ptr().cast::<Stream>()) };
    assert!(garbage.iter().all(|&b| b == 0), "init zeroes every byte");
}

#[test]
fn null_pointers() {
    let none = CError::new(0, 0, kind::INVALID_BYTE);
    // SAFETY: every pointer is NULL or points to a live object of the right type.
    unsafe {
        utf8_stream_init(ptr::null_mut());
        assert!(!utf8_stream_feed(ptr::null_mut(), b"a".as_ptr().cast(), 1));
        let mut err = CError::new(7, 7, kind::NONE);
        assert!(!utf8_stream_finish(ptr::null(), &mut err));
        assert_eq!(err, none);
        assert!(!utf8_stream_finish(ptr::null(), ptr::null_mut()));

        // NULL with length 0 is the empty chunk.
        let mut s = Stream::new();
        assert!(utf8_stream_feed(&mut s, b"ab\xC3".as_ptr().cast(), 3));
        assert!(utf8_stream_feed(&mut s, ptr::null(), 0));
        assert!(!utf8_stream_finish(&s, ptr::null_mut()));
        assert!(utf8_stream_feed(&mut s, b"\xA9".as_ptr().cast(), 1));
        assert!(utf8_stream_finish(&s, &mut err));
        assert_eq!(err, CError::new(4, 0, kind::NONE));

        // NULL with a length: an unreadable chunk fails the stream at the start of
        // the current sequence, with length 0.
        let mut s = Stream::new();
        assert!(utf8_stream_feed(&mut s, b"ab\xE2\x82".as_ptr().cast(), 4));
        assert!(!utf8_stream_feed(&mut s, ptr::null(), 5));
        assert!(!utf8_stream_finish(&s, &mut err));
        assert_eq!(err, CError::new(2, 0, kind::INVALID_BYTE));
        // ... and does not replace an earlier error.
        let mut s = Stream::new();
        assert!(!utf8_stream_feed(&mut s, b"a\x80".as_ptr().cast(), 2));
        assert!(!utf8_stream_feed(&mut s, ptr::null(), 5));
        assert!(!utf8_stream_finish(&s, &mut err));
        assert_eq!(err, CError::new(1, 1, kind::UNEXPECTED_CONTINUATION));
    }
}
