//! `escape_into`/`utf8_escape` and `replace_into`/`utf8_replace` against
//! independent oracles: Rust's `String::from_utf8_lossy` (the WHATWG decoder's
//! output), an escaper written here over `std`'s `Utf8Chunks` (whose invalid parts
//! are the maximal subparts), and an unescaper written here that must give the input
//! back. The snprintf contract (return value, NUL, bounds, whole units) is checked
//! for every `out_cap` from 0 to needed + 2.

mod oracle;

use std::ptr;

use oracle::SAMPLES;
use proptest::prelude::*;
use utf8validate::ffi::{utf8_escape, utf8_replace};
use utf8validate::{escape_into, replace_into};

/// The escaped form as a list of units (characters, escapes), from `std` alone.
fn escape_units(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut units = Vec::new();
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            units.push(match ch {
                '\\' => b"\\\\".to_vec(),
                '\0' => b"\\x00".to_vec(),
                _ => ch.to_string().into_bytes(),
            });
        }
        for byte in chunk.invalid() {
            units.push(format!("\\x{byte:02X}").into_bytes());
        }
    }
    units
}

/// The replaced form as a list of units, from `std` alone; their concatenation is
/// checked against `String::from_utf8_lossy` below.
fn replace_units(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut units = Vec::new();
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            units.push(ch.to_string().into_bytes());
        }
        if !chunk.invalid().is_empty() {
            units.push("\u{FFFD}".as_bytes().to_vec());
        }
    }
    units
}

/// Reverses the escaping: `\\` is a backslash, `\xHH` the byte 0xHH.
fn unescape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' {
            match text.get(i + 1) {
                Some(b'\\') => {
                    out.push(b'\\');
                    i += 2;
                }
                Some(b'x') => {
                    let hex = std::str::from_utf8(&text[i + 2..i + 4]).expect("hex digits");
                    assert!(
                        hex.bytes()
                            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b)),
                        "uppercase hex: {hex}"
                    );
                    out.push(u8::from_str_radix(hex, 16).expect("hex"));
                    i += 4;
                }
                other => panic!("bad escape {other:?} in {text:02x?}"),
            }
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

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

type CRender =
    unsafe extern "C" fn(*const std::ffi::c_char, usize, *mut std::ffi::c_char, usize) -> usize;

/// The snprintf contract of a C renderer for every `out_cap` from 0 to needed + 2:
/// the return value, the NUL, nothing written past `out_cap`, and exactly the
/// longest run of whole units that fits in `out_cap - 1` bytes. The Rust API
/// writes the same bytes into a slice of `out_cap - 1`.
fn assert_snprintf_contract(
    bytes: &[u8],
    render: CRender,
    units: &[Vec<u8>],
    rust: fn(&[u8], &mut [u8]) -> utf8validate::Rendered,
) {
    let full: Vec<u8> = units.concat();
    let needed = full.len();
    // SAFETY: NULL output with capacity 0; `bytes` is live.
    assert_eq!(
        unsafe { render(bytes.as_ptr().cast(), bytes.len(), ptr::null_mut(), 0) },
        needed
    );
    // SAFETY: NULL output is never written, whatever the capacity.
    assert_eq!(
        unsafe { render(bytes.as_ptr().cast(), bytes.len(), ptr::null_mut(), 100) },
        needed
    );
    for cap in 0..=needed + 2 {
        const CANARY: u8 = 0xA5;
        let mut buf = vec![CANARY; cap + 8];
        // SAFETY: `buf` has `cap + 8 >= cap` writable bytes and does not overlap `bytes`.
        let got = unsafe {
            render(
                bytes.as_ptr().cast(),
                bytes.len(),
                buf.as_mut_ptr().cast(),
                cap,
            )
        };
        assert_eq!(got, needed, "return value, cap {cap}, {bytes:02x?}");
        assert!(
            buf[cap..].iter().all(|&b| b == CANARY),
            "wrote past cap {cap}: {bytes:02x?}"
        );
        if cap == 0 {
            continue;
        }
        // The longest run of whole units within cap - 1 bytes.
        let mut want = Vec::new();
        for unit in units {
            if want.len() + unit.len() > cap - 1 {
                break;
            }
            want.extend_from_slice(unit);
        }
        assert_eq!(
            &buf[..want.len()],
            &want[..],
            "prefix, cap {cap}, {bytes:02x?}"
        );
        assert_eq!(
            buf[want.len()],
            0,
            "NUL after the prefix, cap {cap}, {bytes:02x?}"
        );
        assert!(
            buf[want.len() + 1..cap + 8].iter().all(|&b| b == CANARY),
            "nothing after the NUL"
        );
        assert!(std::str::from_utf8(&want).is_ok());
        assert!(full.starts_with(&want));
        if cap > needed {
            assert_eq!(want, full, "the whole result fits in cap {cap}");
        }
        // The Rust API: the same bytes into a slice of cap - 1, nothing after them.
        let mut slice = vec![CANARY; cap - 1];
        let r = rust(bytes, &mut slice);
        assert_eq!((r.written, r.needed), (want.len(), needed));
        assert_eq!(&slice[..r.written], &want[..]);
        assert!(slice[r.written..].iter().all(|&b| b == CANARY));
    }
}

/// Inputs where units of every width meet the truncation point.
const CONTRACT_SAMPLES: &[&[u8]] = &[
    b"",
    b"a",
    b"\xFF",
    b"\\",
    b"\0",
    "é€😀".as_bytes(),
    b"ab\xC3\xA9\\\xE2\x82\xAC\xF0\x9F\x98\x80\xC0\xAF\x00x\xED\xA0\x80\xF0\x9F\x98",
    b"\xE2\x82A\xF4\x90\x80\x80\xFE tail \\ \xCE\xB1",
];

#[test]
fn snprintf_contract_for_every_capacity() {
    let mut inputs: Vec<Vec<u8>> = CONTRACT_SAMPLES.iter().map(|s| s.to_vec()).collect();
    inputs.extend(SAMPLES.iter().map(|s| s.as_bytes().to_vec()));
    for bytes in &inputs {
        assert_snprintf_contract(bytes, utf8_escape, &escape_units(bytes), escape_into);
        assert_snprintf_contract(bytes, utf8_replace, &replace_units(bytes), replace_into);
        assert_eq!(
            replace_units(bytes).concat(),
            String::from_utf8_lossy(bytes).as_bytes()
        );
    }
}

#[test]
fn null_input_with_a_length_is_the_empty_input() {
    for render in [utf8_escape as CRender, utf8_replace] {
        let mut buf = [0xA5u8; 4];
        // SAFETY: `buf` has 4 writable bytes; the NULL input is not dereferenced.
        let got = unsafe { render(ptr::null(), 10, buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(got, 0);
        assert_eq!(buf, [0, 0xA5, 0xA5, 0xA5]);
        // SAFETY: as above; NULL with length 0 is the empty input.
        let got = unsafe { render(ptr::null(), 0, buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(got, 0);
    }
}
