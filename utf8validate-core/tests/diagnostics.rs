//! Error kinds and maximal-subpart lengths against independent oracles: Rust's
//! `Utf8Error` (offset, `error_len`), a classification written from the tables of
//! Tang's draft, and Python's `UnicodeDecodeError` (`start`, `end`).

mod oracle;

use oracle::{draft_kind, std_error};
use proptest::prelude::*;
use utf8validate_core::{check, ErrorKind, Utf8Error};

/// `check` agrees with std (offset, `error_len`, and the maximal subpart to the end
/// when std has none) and with the draft's tables (kind).
fn assert_detail(bytes: &[u8]) -> Option<Utf8Error> {
    match (check(bytes), std_error(bytes)) {
        (Ok(()), None) => None,
        (Err(e), Some((offset, len))) => {
            assert_eq!(e.valid_up_to(), offset, "offset of {bytes:02x?}");
            assert_eq!(e.error_len(), len, "error_len of {bytes:02x?}");
            let truncated = len.is_none();
            assert_eq!(
                e.subpart_len(),
                len.unwrap_or(bytes.len() - offset),
                "length of {bytes:02x?}"
            );
            assert_eq!(
                e.kind(),
                draft_kind(bytes, offset, truncated),
                "kind of {bytes:02x?}"
            );
            Some(e)
        }
        (got, want) => panic!("{bytes:02x?}: check {got:?}, std {want:?}"),
    }
}

#[test]
fn every_one_two_and_three_byte_string() {
    for a in 0..=255u8 {
        assert_detail(&[a]);
        for b in 0..=255u8 {
            assert_detail(&[a, b]);
            for c in 0..=255u8 {
                assert_detail(&[a, b, c]);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn random_inputs(bytes in prop::collection::vec(
        prop::sample::select(vec![0x41u8, 0x0A, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF,
            0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xF8, 0xFC, 0xFE, 0xFF]), 0..64)) {
        assert_detail(&bytes);
    }
}

/// Each row of the draft's "bytes never used by valid UTF-8" table, every byte of
/// it, alone and after valid text: kind and a 1-byte maximal subpart.
#[test]
fn draft_table_bytes_never_used() {
    let rows: [(u8, u8, ErrorKind); 5] = [
        (0xFE, 0xFF, ErrorKind::InvalidByte),
        (0xF8, 0xFB, ErrorKind::InvalidByte), // 5-byte leads of RFC 2279
        (0xFC, 0xFD, ErrorKind::InvalidByte), // 6-byte leads of RFC 2279
        (0xC0, 0xC1, ErrorKind::Overlong),
        (0xF5, 0xF7, ErrorKind::TooLarge),
    ];
    for (lo, hi, kind) in rows {
        for b in lo..=hi {
            for prefix in [&b""[..], "añ€😀".as_bytes()] {
                for follow in [&b""[..], b"\x80", b"\x80\x80\x80", b"A"] {
                    let input = [prefix, &[b], follow].concat();
                    let e = check(&input).expect_err("never-used byte");
                    assert_eq!(
                        (e.valid_up_to(), e.subpart_len(), e.kind()),
                        (prefix.len(), 1, kind),
                        "{input:02x?}"
                    );
                }
            }
        }
    }
}

/// Each row of the draft's "two-byte pairs never used" table, every pair in it.
#[test]
fn draft_table_pairs_never_used() {
    // (lead range, second-byte range, kind)
    type Range = (u8, u8);
    let rows: [(Range, Range, ErrorKind); 5] = [
        ((0xC0, 0xF7), (0x00, 0x7F), ErrorKind::MissingContinuation), // see below for C0, C1, F5-F7
        ((0xE0, 0xE0), (0x80, 0x9F), ErrorKind::Overlong),
        ((0xF0, 0xF0), (0x80, 0x8F), ErrorKind::Overlong),
        ((0xED, 0xED), (0xA0, 0xBF), ErrorKind::Surrogate),
        ((0xF4, 0xF4), (0x90, 0xBF), ErrorKind::TooLarge),
    ];
    for ((l0, l1), (s0, s1), kind) in rows {
        for lead in l0..=l1 {
            for second in s0..=s1 {
                let input = [b'x', lead, second, 0x80, 0x80];
                let e = check(&input).expect_err("never-used pair");
                // A lead byte that is itself never used is reported as that byte.
                let kind = match lead {
                    0xC0..=0xC1 => ErrorKind::Overlong,
                    0xF5..=0xF7 => ErrorKind::TooLarge,
                    _ => kind,
                };
                assert_eq!(
                    (e.valid_up_to(), e.subpart_len(), e.kind()),
                    (1, 1, kind),
                    "{input:02x?}"
                );
            }
        }
    }
}

#[test]
fn maximal_subparts_from_unicode_table_3_8() {
    // Unicode 15, §3.9, Table 3-8: "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64" decodes
    // to a U+FFFD U+FFFD U+FFFD b U+FFFD c U+FFFD U+FFFD d: maximal subparts of
    // lengths 3 (F1 80 80), 2 (E1 80), 1 (C2), 1 (80), 1 (80), 1 (BF).
    let input = b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
    let mut at = 0;
    let mut found = Vec::new();
    while let Err(e) = check(&input[at..]) {
        found.push((at + e.valid_up_to(), e.subpart_len(), e.kind()));
        at += e.valid_up_to() + e.subpart_len();
    }
    assert_eq!(
        found,
        [
            (1, 3, ErrorKind::MissingContinuation),
            (4, 2, ErrorKind::MissingContinuation),
            (6, 1, ErrorKind::MissingContinuation),
            (8, 1, ErrorKind::UnexpectedContinuation),
            (10, 1, ErrorKind::UnexpectedContinuation),
            (11, 1, ErrorKind::UnexpectedContinuation),
        ]
    );
}

#[test]
fn truncated_only_at_the_end() {
    for (input, len) in [
        (&b"\xC3"[..], 1),
        (b"\xE2\x82", 2),
        (b"\xF0\x9F\x98", 3),
        (b"\xF4\x8F", 2),
    ] {
        let with_prefix = [b"abc", input].concat();
        let e = check(&with_prefix).expect_err("truncated");
        assert_eq!(
            (e.valid_up_to(), e.subpart_len(), e.kind()),
            (3, len, ErrorKind::Truncated)
        );
        assert_eq!(e.error_len(), None);
        let with_suffix = [input, b"abc"].concat();
        let e = check(&with_suffix).expect_err("interrupted");
        assert_eq!(
            (e.valid_up_to(), e.subpart_len(), e.kind()),
            (0, len, ErrorKind::MissingContinuation)
        );
        assert_eq!(e.error_len(), Some(len));
    }
}

/// Python's decoder as a third oracle: `UnicodeDecodeError.start` and `.end` for
/// every 1- and 2-byte string and every 3-byte string with a lead byte E0-F4.
#[test]
fn python_unicode_decode_error_start_and_end() {
    let script = r#"
import sys
out = []
def rec(b):
    try:
        b.decode('utf-8')
        out.append('ok')
    except UnicodeDecodeError as e:
        out.append('%d %d' % (e.start, e.end))
for a in range(256):
    rec(bytes([a]))
    for b in range(256):
        rec(bytes([a, b]))
for a in range(0xE0, 0xF5):
    for b in range(256):
        for c in range(0, 256, 5):
            rec(bytes([a, b, c]))
sys.stdout.write('\n'.join(out))
"#;
    let Some(output) = python(script) else {
        return;
    };
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for a in 0..=255u8 {
        inputs.push(vec![a]);
        for b in 0..=255u8 {
            inputs.push(vec![a, b]);
        }
    }
    for a in 0xE0..=0xF4u8 {
        for b in 0..=255u8 {
            for c in (0..=255u8).step_by(5) {
                inputs.push(vec![a, b, c]);
            }
        }
    }
    let text = String::from_utf8(output).expect("ASCII output");
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(lines.len(), inputs.len());
    for (input, line) in inputs.iter().zip(lines) {
        let got = match check(input) {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("{} {}", e.valid_up_to(), e.valid_up_to() + e.subpart_len()),
        };
        assert_eq!(got, line, "{input:02x?}");
    }
}

#[test]
fn names_and_messages() {
    let names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
    // The oracle's lists are the C library's, from UTF8_ERROR_NONE (0) on.
    assert_eq!(names, oracle::KIND_NAMES[1..]);
    let messages: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.message()).collect();
    assert_eq!(messages, oracle::KIND_MESSAGES[1..]);
}

/// Every 3-byte string against `UnicodeDecodeError.start` and `.end`, as
/// `bytes((a, b, c)).decode('utf-8')` would raise it. Python decodes the 256 strings
/// of each (a, b) at once, each followed by a NUL (which ends any sequence, so each
/// string's maximal subparts are its own), with an error handler that records each
/// string's first error and resumes at the next string.
#[test]
#[ignore = "about ten seconds, mostly Python; CI runs it with --ignored"]
fn python_on_every_three_byte_string() {
    let script = r#"
import codecs, sys
out = bytearray(b'\xff\xff') * (1 << 24)   # (start, end) per string; FF FF: valid
first = 0                                   # the index of the block's first string
def first_error(e):
    i = e.start >> 2                        # the string, in this block
    out[2 * (first + i)] = e.start & 3
    out[2 * (first + i) + 1] = e.end - 4 * i
    return ('', 4 * (i + 1))
codecs.register_error('first_error', first_error)
block = bytearray(4 * 256)
block[2::4] = bytes(range(256))
for a in range(256):
    block[0::4] = bytes((a,)) * 256
    for b in range(256):
        block[1::4] = bytes((b,)) * 256
        block.decode('utf-8', 'first_error')
        first += 256
sys.stdout.buffer.write(out)
"#;
    let Some(output) = python(script) else {
        return;
    };
    assert_eq!(output.len(), 2 << 24);
    let mut records = output.chunks_exact(2);
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            for c in 0..=255u8 {
                let input = [a, b, c];
                let want = records.next().expect("one record per input");
                let got = match check(&input) {
                    Ok(()) => [0xFF, 0xFF],
                    Err(e) => [
                        e.valid_up_to() as u8,
                        (e.valid_up_to() + e.subpart_len()) as u8,
                    ],
                };
                assert_eq!(got, want, "{input:02x?}");
            }
        }
    }
}

/// The standard output of `python3 -c script`, or `None` (with a message) when
/// Python is not available outside CI; in CI it must be.
fn python(script: &str) -> Option<Vec<u8>> {
    match std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .output()
    {
        Ok(o) if o.status.success() => Some(o.stdout),
        other => {
            assert!(
                std::env::var_os("CI").is_none(),
                "python3 is needed in CI: {other:?}"
            );
            eprintln!("skipping: python3 not available");
            None
        }
    }
}
