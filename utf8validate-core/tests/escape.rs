//! `escape_into` and `replace_into` against independent oracles: Rust's
//! `String::from_utf8_lossy` (the WHATWG decoder's output), an escaper written over
//! `std`'s `Utf8Chunks` (whose invalid parts are the maximal subparts), and an
//! unescaper that must give the input back (`oracle::render`). Into a buffer too
//! small, the longest run of whole units that fits is written, for every length from
//! 0 to the whole result + 2. (The C functions `utf8_escape` and `utf8_replace` are
//! tested in `c-tests/tests/escape.rs`.)

mod oracle;

use oracle::inputs::RENDER_SAMPLES;
use oracle::render::{escape_text, escape_units, replace_text, replace_units, unescape};
use oracle::SAMPLES;
use proptest::prelude::*;
use utf8validate_core::{escape_into, replace_into, Rendered};

/// The whole result through the Rust API (in a buffer large enough).
fn escaped(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; 4 * bytes.len()];
    let r = escape_into(bytes, &mut out);
    assert!(r.is_complete(), "4 * len is enough");
    out.truncate(r.written);
    out
}

fn replaced(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; 3 * bytes.len()];
    let r = replace_into(bytes, &mut out);
    assert!(r.is_complete(), "3 * len is enough");
    out.truncate(r.written);
    out
}

/// Escaping agrees with the oracle, is valid UTF-8 without NUL, and reverses.
fn assert_escape(bytes: &[u8]) {
    let got = escaped(bytes);
    assert_eq!(got, escape_units(bytes).concat(), "escape of {bytes:02x?}");
    assert!(
        std::str::from_utf8(&got).is_ok(),
        "escape of {bytes:02x?} is UTF-8"
    );
    assert!(!got.contains(&0), "escape of {bytes:02x?} has no NUL");
    assert_eq!(unescape(&got), bytes, "escape of {bytes:02x?} reverses");
}

fn assert_replace(bytes: &[u8]) {
    let got = replaced(bytes);
    assert_eq!(
        got,
        String::from_utf8_lossy(bytes).as_bytes(),
        "replace of {bytes:02x?}"
    );
}

#[test]
fn every_one_two_and_three_byte_string() {
    for a in 0..=255u8 {
        assert_escape(&[a]);
        assert_replace(&[a]);
        for b in 0..=255u8 {
            assert_escape(&[a, b]);
            assert_replace(&[a, b]);
            for c in 0..=255u8 {
                let bytes = [a, b, c];
                let mut out = [0u8; 9];
                let r = replace_into(&bytes, &mut out);
                assert_eq!(
                    &out[..r.written],
                    String::from_utf8_lossy(&bytes).as_bytes(),
                    "replace of {bytes:02x?}"
                );
            }
        }
    }
}

/// Escaping of every 3-byte string whose first byte is any byte and whose other
/// bytes cover every byte class and class boundary (the exhaustive 3-byte set above
/// already fixes the maximal subparts; escaping writes each of their bytes).
#[test]
fn three_byte_strings_escape_and_reverse() {
    const REPRESENTATIVES: &[u8] = &[
        0x00, 0x41, 0x5C, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
        0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFC, 0xFE, 0xFF,
    ];
    for a in 0..=255u8 {
        for &b in REPRESENTATIVES {
            for &c in REPRESENTATIVES {
                assert_escape(&[a, b, c]);
            }
        }
    }
}

#[test]
fn examples() {
    assert_eq!(escaped(b"plain"), b"plain");
    assert_eq!(escaped("naïve ✓ 😀".as_bytes()), "naïve ✓ 😀".as_bytes());
    assert_eq!(escaped(b"a\\b"), br"a\\b");
    assert_eq!(escaped(b"nul\0here"), br"nul\x00here");
    assert_eq!(escaped(b"\xC0\xAF"), br"\xC0\xAF");
    assert_eq!(escaped(b"ab\xED\xA0\x80c"), br"ab\xED\xA0\x80c");
    assert_eq!(escaped(b"x\xE2\x82"), br"x\xE2\x82");
    assert_eq!(escaped(b"\xfe\xff"), br"\xFE\xFF");
    // Text that looks like an escape is itself escaped, so decoding is unambiguous.
    assert_eq!(escaped(br"\xC0"), br"\\xC0");

    assert_eq!(replaced(b"a\xE2\x82Ab"), "a\u{FFFD}Ab".as_bytes());
    assert_eq!(replaced(b"\xC0\xAF"), "\u{FFFD}\u{FFFD}".as_bytes());
    assert_eq!(
        replaced(b"\xF0\x80\x80"),
        "\u{FFFD}\u{FFFD}\u{FFFD}".as_bytes()
    );
    assert_eq!(replaced(b"end\xF0\x9F\x98"), "end\u{FFFD}".as_bytes());
    assert_eq!(
        replaced(b"\xED\xA0\x80"),
        "\u{FFFD}\u{FFFD}\u{FFFD}".as_bytes()
    );
    assert_eq!(replaced(b"nul\0"), b"nul\0");
}

/// Long inputs (many SIMD blocks) with errors scattered through them.
#[test]
fn long_inputs() {
    let text = SAMPLES.concat().repeat(4).into_bytes();
    assert_escape(&text);
    assert_replace(&text);
    for step in [1usize, 7, 63, 64, 65, 200] {
        let mut bytes = text.clone();
        let mut i = 0;
        while i < bytes.len() {
            bytes[i] = [0xFF, 0x80, 0xC3, 0xED, 0x5C, 0x00][i % 6];
            i += step;
        }
        assert_escape(&bytes);
        assert_replace(&bytes);
    }
}

fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => prop::sample::select(vec![0x00u8, 0x41, 0x5C, 0x78, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0,
            0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xF8, 0xFE, 0xFF]),
        1 => any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(interesting_byte(), 0..300)) {
        assert_escape(&bytes);
        assert_replace(&bytes);
    }

    #[test]
    fn damaged_text(
        sample in prop::sample::select(SAMPLES.to_vec()),
        damage in prop::collection::vec((any::<prop::sample::Index>(), interesting_byte()), 0..4),
    ) {
        let mut bytes = sample.as_bytes().to_vec();
        if !bytes.is_empty() {
            for (at, byte) in &damage {
                let i = at.index(bytes.len());
                bytes[i] = *byte;
            }
        }
        assert_escape(&bytes);
        assert_replace(&bytes);
    }
}

/// Into a buffer of every length from 0 to the whole result + 2: the longest run of
/// whole units that fits is written, nothing after it, and `needed` is the whole
/// result's length.
fn assert_truncation(bytes: &[u8], units: &[Vec<u8>], render: fn(&[u8], &mut [u8]) -> Rendered) {
    let full: Vec<u8> = units.concat();
    for len in 0..=full.len() + 2 {
        const CANARY: u8 = 0xA5;
        let mut want = Vec::new();
        for unit in units {
            if want.len() + unit.len() > len {
                break;
            }
            want.extend_from_slice(unit);
        }
        let mut out = vec![CANARY; len];
        let r = render(bytes, &mut out);
        assert_eq!(
            (r.written, r.needed),
            (want.len(), full.len()),
            "len {len}, {bytes:02x?}"
        );
        assert_eq!(&out[..r.written], &want[..], "len {len}, {bytes:02x?}");
        assert!(
            out[r.written..].iter().all(|&b| b == CANARY),
            "len {len}, {bytes:02x?}"
        );
        assert_eq!(r.is_complete(), want == full);
    }
}

#[test]
fn truncation_for_every_buffer_length() {
    let mut inputs: Vec<Vec<u8>> = RENDER_SAMPLES.iter().map(|s| s.to_vec()).collect();
    inputs.extend(SAMPLES.iter().map(|s| s.as_bytes().to_vec()));
    for bytes in &inputs {
        assert_truncation(bytes, &escape_units(bytes), escape_into);
        assert_truncation(bytes, &replace_units(bytes), replace_into);
        assert_eq!(
            replace_units(bytes).concat(),
            String::from_utf8_lossy(bytes).as_bytes()
        );
        // The one-piece forms tests/miri.rs checks against.
        assert_eq!(escape_text(bytes), escape_units(bytes).concat());
        assert_eq!(replace_text(bytes), replace_units(bytes).concat());
    }
}

/// The quoted escape (the C library's `utf8_escape_quoted`) as units, from `std`
/// alone: the escape's units, with each byte of `"`, of a C0 or C1 control
/// character, of DEL, and of U+2028 and U+2029 written as `\xHH` too.
fn quoted_units(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut units = Vec::new();
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            let line_or_quote =
                ch == '"' || ch.is_control() || ch == '\u{2028}' || ch == '\u{2029}';
            if ch == '\\' {
                units.push(b"\\\\".to_vec());
            } else if line_or_quote {
                let mut buf = [0u8; 4];
                for byte in ch.encode_utf8(&mut buf).bytes() {
                    units.push(format!("\\x{byte:02X}").into_bytes());
                }
            } else {
                units.push(ch.to_string().into_bytes());
            }
        }
        for byte in chunk.invalid() {
            units.push(format!("\\x{byte:02X}").into_bytes());
        }
    }
    units
}

/// The quoted rendering into a buffer of `cap` bytes.
fn quoted(bytes: &[u8], cap: usize) -> (Vec<u8>, Rendered) {
    use std::mem::MaybeUninit;
    use utf8validate_core::escape::{render, Mode};
    let mut out = vec![MaybeUninit::<u8>::uninit(); cap];
    let r = render(bytes, &mut out, Mode::Quoted);
    // SAFETY: `render` initialised `out[..written]`.
    let written = out[..r.written]
        .iter()
        .map(|b| unsafe { b.assume_init() })
        .collect();
    (written, r)
}

/// Quoted escaping agrees with the oracle for every 1- and 2-byte string, 3-byte
/// strings of every byte class, and in buffers too small (whole units only); it is
/// one line of UTF-8 with no `"`, and it reverses.
#[test]
fn quoted_escape() {
    const REPRESENTATIVES: &[u8] = &[
        0x00, 0x0A, 0x22, 0x41, 0x5C, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xA8, 0xA9, 0xAA, 0xBF, 0xC0,
        0xC2, 0xC3, 0xDF, 0xE0, 0xE2, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
    ];
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for a in 0..=255u8 {
        inputs.push(vec![a]);
        for b in 0..=255u8 {
            inputs.push(vec![a, b]);
        }
        for &b in REPRESENTATIVES {
            for &c in REPRESENTATIVES {
                inputs.push(vec![a, b, c]);
            }
        }
    }
    inputs.extend(RENDER_SAMPLES.iter().map(|s| s.to_vec()));
    inputs.push(
        "say \"hi\"\n\tC1\u{85} LS\u{2028} PS\u{2029} é \\ end"
            .as_bytes()
            .to_vec(),
    );
    for bytes in &inputs {
        let units = quoted_units(bytes);
        let full = units.concat();
        let (got, r) = quoted(bytes, 4 * bytes.len());
        assert_eq!(got, full, "quoted escape of {bytes:02x?}");
        assert_eq!(r.needed, full.len());
        let text = std::str::from_utf8(&got).expect("UTF-8");
        assert!(
            !text.contains(['"', '\n', '\r', '\u{2028}', '\u{2029}']),
            "{text:?}"
        );
        assert_eq!(
            unescape(&got),
            *bytes,
            "quoted escape of {bytes:02x?} reverses"
        );
    }
    for bytes in RENDER_SAMPLES {
        let units = quoted_units(bytes);
        let needed = units.concat().len();
        for cap in 0..=needed + 1 {
            let (got, r) = quoted(bytes, cap);
            let mut want = Vec::new();
            for unit in &units {
                if want.len() + unit.len() > cap {
                    break;
                }
                want.extend_from_slice(unit);
            }
            assert_eq!((got, r.needed), (want, needed), "cap {cap}, {bytes:02x?}");
        }
    }
}
