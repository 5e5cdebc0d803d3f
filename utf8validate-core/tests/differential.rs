//! Differential tests: the library against `std::str::from_utf8` and the RFC 3629
//! grammar, on random bytes and on mutated multilingual text (proptest).

mod oracle;

use oracle::{mutated_text, rfc_first_error, std_error, SAMPLES};
use proptest::prelude::*;
use utf8validate_core::{check, first_error, from_utf8, validate, validate_chunk, State};

/// Every public Rust entry point agrees with the oracles on `bytes`.
fn assert_agrees(bytes: &[u8]) {
    let want = std_error(bytes);
    let want_offset = want.map(|(o, _)| o);
    assert_eq!(
        first_error(bytes),
        want_offset,
        "first_error on {bytes:02x?}"
    );
    assert_eq!(
        rfc_first_error(bytes),
        want_offset,
        "the two oracles disagree on {bytes:02x?}"
    );
    assert_eq!(validate(bytes), want.is_none(), "validate on {bytes:02x?}");
    match (check(bytes), want) {
        (Ok(()), None) => {}
        (Err(e), Some((offset, len))) => {
            assert_eq!(e.valid_up_to(), offset, "check offset on {bytes:02x?}");
            assert_eq!(e.error_len(), len, "check error_len on {bytes:02x?}");
            assert_eq!(
                e.subpart_len(),
                len.unwrap_or(bytes.len() - offset),
                "check length on {bytes:02x?}"
            );
        }
        (got, want) => panic!("check {got:?} vs std {want:?} on {bytes:02x?}"),
    }
    match (from_utf8(bytes), std::str::from_utf8(bytes)) {
        (Ok(got), Ok(want)) => assert!(std::ptr::eq(got, want), "from_utf8 on {bytes:02x?}"),
        (Err(e), Err(s)) => assert_eq!(
            (e.valid_up_to(), e.error_len()),
            (s.valid_up_to(), s.error_len()),
            "from_utf8 on {bytes:02x?}"
        ),
        (got, want) => panic!("from_utf8 {got:?} vs std {want:?} on {bytes:02x?}"),
    }
    let whole = validate_chunk(State::Start, bytes);
    assert_eq!(
        whole == State::Start,
        want.is_none(),
        "validate_chunk on {bytes:02x?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        assert_agrees(&bytes);
    }

    /// Random bytes biased towards the interesting values (lead bytes, boundaries of
    /// the continuation ranges), so short ill-formed sequences are common.
    #[test]
    fn random_interesting_bytes(bytes in prop::collection::vec(
        prop::sample::select(vec![0x00u8, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1,
            0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF]),
        0..300)) {
        assert_agrees(&bytes);
    }

    #[test]
    fn mutated_multilingual_text(bytes in mutated_text(SAMPLES, 1..40, 4)) {
        assert_agrees(&bytes);
    }

    /// Splitting the input anywhere and feeding the chunks to `validate_chunk`
    /// gives the one-shot verdict.
    #[test]
    fn chunked_equals_one_shot(bytes in mutated_text(SAMPLES, 1..40, 4), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6)) {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut state = State::Start;
        let mut from = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            state = validate_chunk(state, &bytes[from..cut]);
            from = cut;
        }
        prop_assert_eq!(state == State::Start, std::str::from_utf8(&bytes).is_ok());
    }
}

#[test]
fn the_samples_are_valid_and_stay_valid_at_every_length() {
    let all = SAMPLES.concat();
    let bytes = all.as_bytes();
    for end in 0..=bytes.len() {
        assert_agrees(&bytes[..end]);
        assert_agrees(&bytes[end..]);
    }
}
