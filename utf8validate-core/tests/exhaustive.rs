//! Exhaustive tests: every 1-, 2- and 3-byte string, each compared with the RFC 3629
//! grammar (written independently in `oracle`) and with `std::str::from_utf8` (which
//! `from_utf8` and `from_utf8_mut` must answer exactly as); and (ignored by default,
//! run by CI in release mode) every 4-byte string whose first byte is E0-F7. The
//! draft's state machine itself (`byte_class`, `next_state`) is held to the same
//! oracles, and to the draft's byte classes.

mod oracle;

use oracle::{draft_class, rfc_first_error, std_error};
use utf8validate_core::{
    byte_class, check, first_error, from_utf8, from_utf8_mut, next_state, valid_up_to, validate,
    validate_entry_point, ErrorKind, State,
};

/// `from_utf8` and `from_utf8_mut` answer as std's functions of the same names: the
/// same `Ok` value (the same slice, as a `str`), or errors with the same
/// `valid_up_to` and `error_len`.
fn assert_as_std(bytes: &[u8]) {
    match (from_utf8(bytes), std::str::from_utf8(bytes)) {
        (Ok(got), Ok(want)) => assert!(
            std::ptr::eq(got, want),
            "{bytes:02x?}: from_utf8 gave another slice"
        ),
        (Err(e), Err(s)) => assert_eq!(
            (e.valid_up_to(), e.error_len()),
            (s.valid_up_to(), s.error_len()),
            "{bytes:02x?}: from_utf8's error (valid_up_to, error_len), std's"
        ),
        (got, want) => panic!("{bytes:02x?}: from_utf8 {got:?}, std {want:?}"),
    }
    // The same for the mutable forms, on a copy (on the stack: the exhaustive loops
    // call this millions of times).
    let mut ours = [0u8; 80];
    let mut theirs = [0u8; 80];
    let (ours, theirs) = (&mut ours[..bytes.len()], &mut theirs[..bytes.len()]);
    ours.copy_from_slice(bytes);
    theirs.copy_from_slice(bytes);
    let (ours_at, theirs_at) = (ours.as_ptr(), theirs.as_ptr());
    match (from_utf8_mut(ours), std::str::from_utf8_mut(theirs)) {
        (Ok(got), Ok(want)) => {
            assert_eq!(&*got, &*want, "{bytes:02x?}: from_utf8_mut");
            assert_eq!(got.as_ptr(), ours_at, "{bytes:02x?}: from_utf8_mut's slice");
            assert_eq!(want.as_ptr(), theirs_at);
        }
        (Err(e), Err(s)) => assert_eq!(
            (e.valid_up_to(), e.error_len()),
            (s.valid_up_to(), s.error_len()),
            "{bytes:02x?}: from_utf8_mut's error (valid_up_to, error_len), std's"
        ),
        (got, want) => panic!("{bytes:02x?}: from_utf8_mut {got:?}, std {want:?}"),
    }
}

fn assert_agrees(bytes: &[u8]) {
    let want = rfc_first_error(bytes);
    let got = first_error(bytes);
    if got != want || validate(bytes) != want.is_none() {
        panic!("{bytes:02x?}: first_error {got:?}, RFC grammar says {want:?}");
    }
    // The shapes the C library's `utf8_validate` and `utf8_first_error` compile (a
    // route of their own for short input: see
    // `every_place_at_every_length_across_the_routes`).
    assert_eq!(
        validate_entry_point(bytes),
        want.is_none(),
        "{bytes:02x?}: validate_entry_point"
    );
    assert_eq!(
        valid_up_to(bytes),
        want.unwrap_or(bytes.len()),
        "{bytes:02x?}: valid_up_to"
    );
    let std = std_error(bytes);
    assert_eq!(
        std.map(|(o, _)| o),
        want,
        "{bytes:02x?}: std and the RFC grammar disagree"
    );
    // The draft's machine, stepped byte by byte: START after well-formed input,
    // ERROR after an ill-formed sequence, a live state after a truncated one.
    let state = bytes.iter().fold(State::Start, |s, &b| next_state(s, b));
    match std {
        None => assert_eq!(state, State::Start, "{bytes:02x?}: next_state"),
        Some((_, Some(_))) => assert_eq!(state, State::Error, "{bytes:02x?}: next_state"),
        Some((_, None)) => assert!(
            !matches!(state, State::Start | State::Error),
            "{bytes:02x?}: next_state gave {state:?} for a truncated sequence"
        ),
    }
    if let (Err(e), Some((_, len))) = (check(bytes), std) {
        assert_eq!(
            e.subpart_len(),
            len.unwrap_or(bytes.len() - e.valid_up_to()),
            "{bytes:02x?}: subpart_len"
        );
        assert_eq!(
            e.kind() == ErrorKind::Truncated,
            len.is_none(),
            "{bytes:02x?}: kind {:?}",
            e.kind()
        );
    }
    assert_as_std(bytes);
}

/// After every proper prefix of every character (every scalar value, U+0000 to
/// U+10FFFF), the machine needs as many more continuation bytes as the character
/// has left; START and ERROR need none.
#[test]
fn pending_continuations_after_every_prefix_of_every_character() {
    let mut buf = [0u8; 4];
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        for k in 1..=bytes.len() {
            let state = bytes[..k]
                .iter()
                .fold(State::Start, |s, &b| next_state(s, b));
            let left = bytes.len() - k;
            assert_eq!(state.pending_continuations(), left, "{:02x?}", &bytes[..k]);
        }
    }
    assert_eq!(State::Start.pending_continuations(), 0);
    assert_eq!(State::Error.pending_continuations(), 0);
}

#[test]
fn byte_classes_are_the_drafts() {
    for b in 0..=255u8 {
        assert_eq!(byte_class(b), draft_class(b), "{b:#04x}");
    }
}

#[test]
fn every_one_and_two_byte_string() {
    for a in 0..=255u8 {
        assert_agrees(&[a]);
        for b in 0..=255u8 {
            assert_agrees(&[a, b]);
        }
    }
}

#[test]
fn every_three_byte_string() {
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            for c in 0..=255u8 {
                assert_agrees(&[a, b, c]);
            }
        }
    }
}

/// Every 3-byte string placed after valid 1-4 byte prefixes, so that the error
/// offset has to be found behind earlier characters, and before a valid suffix.
#[test]
fn every_three_byte_string_in_context() {
    let prefixes: [&[u8]; 3] = [b"x", "é".as_bytes(), "😀".as_bytes()];
    for prefix in prefixes {
        for a in 0x80..=0xFFu8 {
            for b in 0..=255u8 {
                for c in [
                    0x00u8, 0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC3, 0xE0, 0xF0, 0xFF,
                ] {
                    let mut v = prefix.to_vec();
                    v.extend_from_slice(&[a, b, c]);
                    v.extend_from_slice(b"ok");
                    assert_agrees(&v);
                }
            }
        }
    }
}

/// `validate` picks its route by length: all-ASCII input by a tree whose branches
/// part at 4, 8, 16 and 64 bytes; other input of at most 8 bytes by the scalar
/// machine over a word; the rest by the back end (`ladder::in_caller`). So at every
/// length from 1 to 70, a well-formed or ill-formed sequence at every place in
/// ASCII (its first and last bytes included), and, up to 9 bytes, every 3-byte
/// string with a non-ASCII lead byte (the second and third bytes from a set of
/// class representatives) at every place.
#[test]
fn every_place_at_every_length_across_the_routes() {
    let sequences: [&[u8]; 16] = [
        "é".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        b"\x7F",
        b"\x80",
        b"\xBF",
        b"\xC0\xAF",
        b"\xC3",
        b"\xE2\x82",
        b"\xE0\x9F\xBF",
        b"\xED\xA0\x80",
        b"\xF4\x90\x80\x80",
        b"\xF5\x80",
        b"\xFF",
        // Continuation bytes only: the bytes of a 4- and an 8-byte load all 0x80.
        b"\x80\x80\x80\x80",
        b"\x80\x80\x80\x80\x80\x80\x80\x80",
    ];
    for len in 1..=70 {
        for seq in sequences.iter().filter(|seq| seq.len() <= len) {
            for at in 0..=len - seq.len() {
                let mut v = vec![b'a'; len];
                v[at..at + seq.len()].copy_from_slice(seq);
                assert_agrees(&v);
            }
        }
    }
    let representatives = [
        0x00u8, 0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC3, 0xE0, 0xF0, 0xFF,
    ];
    for len in 3..=9 {
        for at in 0..=len - 3 {
            for a in 0x80..=0xFFu8 {
                for b in representatives {
                    for c in representatives {
                        let mut v = vec![b'a'; len];
                        v[at..at + 3].copy_from_slice(&[a, b, c]);
                        assert_agrees(&v);
                    }
                }
            }
        }
    }
}

/// All 4-byte strings with a lead byte E0-F7 (about 570 million), against the RFC
/// grammar and, for `from_utf8`, against std: run with
/// `cargo test --release --test exhaustive -- --ignored`.
#[test]
#[ignore = "about a minute in release mode; CI runs it with --ignored"]
fn every_four_byte_string_with_lead_e0_to_f7() {
    for a in 0xE0..=0xF7u8 {
        for b in 0..=255u8 {
            for c in 0..=255u8 {
                for d in 0..=255u8 {
                    let v = [a, b, c, d];
                    let want = rfc_first_error(&v);
                    if first_error(&v) != want || validate(&v) != want.is_none() {
                        panic!(
                            "{v:02x?}: first_error {:?}, RFC grammar says {want:?}",
                            first_error(&v)
                        );
                    }
                    // `from_utf8` as std's (`from_utf8_mut` is the same check,
                    // compared on every shorter input above).
                    match (from_utf8(&v), std::str::from_utf8(&v)) {
                        (Ok(got), Ok(want)) => assert!(std::ptr::eq(got, want), "{v:02x?}"),
                        (Err(e), Err(s)) => assert!(
                            e.valid_up_to() == s.valid_up_to() && e.error_len() == s.error_len(),
                            "{v:02x?}: from_utf8 {e:?}, std {s:?}"
                        ),
                        (got, want) => panic!("{v:02x?}: from_utf8 {got:?}, std {want:?}"),
                    }
                }
            }
        }
    }
}
