//! The stream (`Stream`) against independent oracles: whatever the split, finishing
//! gives Rust's `std::str::from_utf8` offset (`valid_up_to`) and maximal-subpart
//! length (`error_len`, or the bytes to the end when std reports a truncated
//! sequence), the kind the draft's tables give, and the same result as the one-shot
//! `check` on the concatenation, through every back end this CPU supports. (The C
//! functions `utf8_stream_*` are tested in `c-tests/tests/stream.rs`.)

mod oracle;

use oracle::inputs::splits;
use oracle::{
    detail, expected_check as expected, std_error, Detail, ILL_FORMED, SAMPLES, TRUNCATED,
};
use proptest::prelude::*;
use utf8validate_core::{backends, check, ErrorKind, Stream};

/// Feeds `chunks` to a stream, and to one stream per back end this CPU supports
/// (`backends::available`); checks that `feed` returns false exactly from the chunk
/// where the first error became certain, that every back end's stream finishes
/// with the same result, and returns it, read through the error's accessors.
fn run(chunks: &[&[u8]]) -> Result<(), Detail> {
    let whole: Vec<u8> = chunks.concat();
    let backends: Vec<_> = backends::available().collect();
    let mut s = Stream::new();
    let mut each = vec![Stream::new(); backends.len()];
    let mut fed = 0;
    for chunk in chunks {
        fed += chunk.len();
        // Once an error is certain from the bytes so far, feed must say so: an
        // error std reports with an `error_len` (not a truncation) in the prefix.
        let certain = matches!(std_error(&whole[..fed]), Some((_, Some(_))));
        assert_eq!(
            s.feed(chunk),
            !certain,
            "feed result after {fed} bytes of {chunks:02x?}"
        );
        for (backend, stream) in backends.iter().zip(&mut each) {
            assert_eq!(
                backend.feed(stream, chunk),
                !certain,
                "{} feed result after {fed} bytes of {chunks:02x?}",
                backend.name()
            );
        }
    }
    let got = s.finish();
    if got.is_ok() {
        assert_eq!(s.position(), whole.len());
    }
    // Finishing does not change the stream.
    assert_eq!(s.finish(), got);
    for (backend, stream) in backends.iter().zip(&each) {
        assert_eq!(
            (stream.finish(), stream.position()),
            (got, s.position()),
            "{} on {chunks:02x?}",
            backend.name()
        );
    }
    detail(got)
}

/// The stream over `bytes` split at every point, at every pair of points (for
/// short inputs) and into 1-byte chunks equals the oracle.
fn assert_every_split(bytes: &[u8]) {
    let want = expected(bytes);
    assert_eq!(detail(check(bytes)), want, "one-shot check of {bytes:02x?}");
    for (how, chunks) in splits(bytes) {
        assert_eq!(run(&chunks), want, "{how}: {bytes:02x?}");
    }
}

#[test]
fn valid_multilingual_text() {
    for sample in SAMPLES {
        assert_every_split(sample.as_bytes());
    }
}

#[test]
fn every_kind_embedded_in_multilingual_text() {
    for sample in SAMPLES {
        let text = sample.as_bytes();
        // A few character boundaries: start, middle, end.
        let cuts: Vec<usize> = [0, text.len() / 2, text.len()]
            .into_iter()
            .map(|mut i| {
                while !sample.is_char_boundary(i) {
                    i -= 1;
                }
                i
            })
            .collect();
        for bad in ILL_FORMED {
            for &cut in &cuts {
                let mut bytes = text[..cut].to_vec();
                bytes.extend_from_slice(bad);
                bytes.extend_from_slice(&text[cut..]);
                assert_every_split(&bytes);
            }
        }
        for end in TRUNCATED {
            let mut bytes = text.to_vec();
            bytes.extend_from_slice(end);
            assert_every_split(&bytes);
        }
    }
}

/// Inputs longer than one SIMD block, with the error before, inside and after
/// block boundaries, so the bulk of each chunk goes through the fast back end.
#[test]
fn long_inputs_through_the_fast_path() {
    let text: Vec<u8> = SAMPLES.concat().into_bytes(); // ~700 bytes, valid
    assert_every_split(&text);
    for bad in [
        &b"\xED\xA0\x80"[..],
        b"\xF0\x9F\x98A",
        b"\x80",
        b"\xF4\x90\x80\x80",
    ] {
        for at in [0usize, 63, 64, 65, 127, 128, 300, text.len()] {
            let mut at = at.min(text.len());
            while at < text.len() && (text[at] & 0xC0) == 0x80 {
                at += 1;
            }
            let mut bytes = text[..at].to_vec();
            bytes.extend_from_slice(bad);
            bytes.extend_from_slice(&text[at..]);
            let want = expected(&bytes);
            assert!(want.is_err());
            for i in 0..=bytes.len() {
                let (a, b) = bytes.split_at(i);
                assert_eq!(run(&[a, b]), want, "{bad:02x?} at {at}, split at {i}");
            }
            for size in [1, 2, 3, 7, 64, 100] {
                let chunks: Vec<&[u8]> = bytes.chunks(size).collect();
                assert_eq!(run(&chunks), want, "{bad:02x?} at {at}, {size}-byte chunks");
            }
        }
    }
}

/// Bytes that cover every byte class and every class boundary of the draft's
/// machine (and its restricted second-byte ranges).
const REPRESENTATIVES: &[u8] = &[
    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC,
    0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF,
];

/// Every 1- and 2-byte string, between text on both sides, at every split.
#[test]
fn every_one_and_two_byte_string_in_text() {
    for a in 0..=255u8 {
        assert_every_split(&[b'x', a, b'y']);
        for b in 0..=255u8 {
            let bytes = [b'x', a, b, b'y'];
            let want = expected(&bytes);
            for i in 0..=bytes.len() {
                let (p, q) = bytes.split_at(i);
                assert_eq!(run(&[p, q]), want, "split at {i}: {bytes:02x?}");
            }
            let ones: Vec<&[u8]> = bytes.chunks(1).collect();
            assert_eq!(run(&ones), want, "1-byte chunks: {bytes:02x?}");
        }
    }
}

/// Every 3-byte string whose first byte is any byte and whose other bytes are
/// class representatives, at the end of text and between text, at every split.
#[test]
fn three_byte_strings_in_text() {
    for a in 0..=255u8 {
        for &b in REPRESENTATIVES {
            for &c in REPRESENTATIVES {
                for bytes in [&[b'x', a, b, c][..], &[b'x', a, b, c, b'y']] {
                    let want = expected(bytes);
                    for i in 0..=bytes.len() {
                        let (p, q) = bytes.split_at(i);
                        assert_eq!(run(&[p, q]), want, "split at {i}: {bytes:02x?}");
                    }
                }
            }
        }
    }
}

/// Every 4-byte sequence built from representatives, followed by each of them:
/// split inside it at every pair of points (3 chunks).
#[test]
fn four_byte_sequences_three_ways() {
    for &a in &[0xF0u8, 0xF1, 0xF3, 0xF4, 0xF5] {
        for &b in REPRESENTATIVES {
            for &c in &[0x80u8, 0xBF, 0x41, 0xC2] {
                for &d in &[0x80u8, 0xBF, 0x41, 0xF0] {
                    assert_every_split(&[a, b, c, d]);
                }
            }
        }
    }
}

fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => prop::sample::select(REPRESENTATIVES.to_vec()),
        1 => any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random bytes, every split point, every 3-way split (short inputs) and
    /// 1-byte chunks.
    #[test]
    fn random_bytes_every_split(bytes in prop::collection::vec(interesting_byte(), 0..20)) {
        assert_every_split(&bytes);
    }

    /// Mostly valid multilingual text with random damage, in random chunks.
    #[test]
    fn damaged_text_random_chunks(
        sample in prop::sample::select(SAMPLES.to_vec()),
        damage in prop::collection::vec((any::<prop::sample::Index>(), interesting_byte()), 0..3),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let mut bytes = sample.repeat(3).into_bytes();
        if !bytes.is_empty() {
            for (at, byte) in &damage {
                let i = at.index(bytes.len());
                bytes[i] = *byte;
            }
        }
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut chunks = Vec::new();
        let mut from = 0;
        for p in points {
            chunks.push(&bytes[from..p]);
            from = p;
        }
        chunks.push(&bytes[from..]);
        prop_assert_eq!(run(&chunks), expected(&bytes));
    }
}

#[test]
fn feeding_after_an_error_is_ignored() {
    let mut s = Stream::new();
    assert!(s.feed(b"ab"));
    assert!(!s.feed(b"\xFFcd"));
    let first = s.finish();
    assert_eq!(
        detail(first),
        Err(Detail::new(2, 1, ErrorKind::InvalidByte))
    );
    assert!(!s.feed(b"\xC0\xAF more"));
    assert!(!s.feed(b""));
    assert_eq!(s.finish(), first);
    assert_eq!(s.position(), 2);
    s.reset();
    assert_eq!(s, Stream::new());
    assert_eq!(s.finish(), Ok(()));
}

#[test]
fn finish_is_a_snapshot_and_feeding_can_continue() {
    let mut s = Stream::new();
    assert!(s.feed(b"x\xE2\x82"));
    assert_eq!(
        detail(s.finish()),
        Err(Detail::new(1, 2, ErrorKind::Truncated))
    );
    assert_eq!(s.position(), 3);
    assert!(s.feed(b"\xAC"));
    assert_eq!(s.finish(), Ok(()));
    assert_eq!(s.position(), 4);
}

#[test]
fn zeroed_struct_is_a_new_stream() {
    // SAFETY: `Stream` is plain integers; all-zero is a valid value.
    let zeroed: Stream = unsafe { std::mem::zeroed() };
    assert_eq!(zeroed, Stream::new());
}

/// Every 3-byte string, between text on both sides and at the end of text, split at
/// every point and fed in 1-byte chunks (16.7 million strings: run it in release,
/// `cargo test --release --test stream -- --ignored`).
#[test]
#[ignore = "exhaustive: about 10 s in release mode, minutes in debug"]
fn every_three_byte_string_in_text_every_split() {
    let mut checked = 0u64;
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            for c in 0..=255u8 {
                for bytes in [&[b'x', a, b, c, b'y'][..], &[b'x', a, b, c]] {
                    let want = expected(bytes);
                    for i in 0..=bytes.len() {
                        let (p, q) = bytes.split_at(i);
                        let mut s = Stream::new();
                        s.feed(p);
                        s.feed(q);
                        assert_eq!(detail(s.finish()), want, "split at {i}: {bytes:02x?}");
                        checked += 1;
                    }
                    let mut s = Stream::new();
                    for byte in bytes.chunks(1) {
                        s.feed(byte);
                    }
                    assert_eq!(detail(s.finish()), want, "1-byte chunks: {bytes:02x?}");
                }
            }
        }
    }
    assert_eq!(checked, 256 * 256 * 256 * (6 + 5));
}

/// `fail_unreadable`, the C ABI's NULL buffer with a length: an error of length 0
/// and kind `InvalidByte` at the start of the current sequence (the documented
/// rule of `utf8_stream_feed`), after which the stream has failed; it does not
/// replace an earlier error.
#[test]
fn unreadable_bytes_fail_the_stream_at_the_current_sequence() {
    let mut s = Stream::new();
    assert!(s.feed(b"ab\xE2\x82"));
    s.fail_unreadable();
    // Length 0: std has no such error; `error_len` is the 0 bytes read.
    let unreadable = Detail {
        offset: 2,
        error_len: Some(0),
        length: 0,
        kind: ErrorKind::InvalidByte,
    };
    assert_eq!(detail(s.finish()), Err(unreadable));
    assert!(!s.feed(b"\xAC"));
    assert_eq!(s.position(), 2);
    let mut s = Stream::new();
    assert!(!s.feed(b"a\x80"));
    s.fail_unreadable();
    let stray = Detail::new(1, 1, ErrorKind::UnexpectedContinuation);
    assert_eq!(detail(s.finish()), Err(stray));
}
