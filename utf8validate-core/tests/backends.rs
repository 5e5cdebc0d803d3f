//! Every back end this CPU supports (AVX-512, AVX2, SSSE3, NEON, scalar), forced one by one,
//! against `std::str::from_utf8` (validity and `valid_up_to`) and an independent
//! model of the draft's states for the chunk API.
//!
//! Inputs are at least one SIMD block (64 bytes) long wherever the point is to reach
//! the vector code rather than the short-input path. The heavier exhaustive runs are
//! `#[ignore]`d: `cargo test --release --test backends -- --ignored`.

mod oracle;

use oracle::{mutated_text, std_error, ILL_FORMED, TRUNCATED};
use proptest::prelude::*;
use utf8validate_core::backends::{self, Backend};
use utf8validate_core::State;

/// Every back end the CPU supports. Never empty (scalar always runs).
fn all() -> Vec<Backend> {
    backends::available().collect()
}

/// The draft's state after `bytes` from START, derived from std's answer and the
/// draft's description of the states (not from the library's tables): ERROR after an
/// ill-formed sequence; otherwise START, or the state that the truncated last
/// sequence leaves (the lead byte and how many continuation bytes followed it).
fn expected_state(bytes: &[u8]) -> State {
    state_from_std(bytes, std_error(bytes))
}

/// [`expected_state`], from std's answer on `bytes` ([`std_error`]) already asked.
fn state_from_std(bytes: &[u8], std: Option<(usize, Option<usize>)>) -> State {
    let Some((valid_up_to, error_len)) = std else {
        return State::Start;
    };
    if error_len.is_some() {
        return State::Error;
    }
    let tail = &bytes[valid_up_to..];
    match (tail[0], tail.len()) {
        (0xC2..=0xDF, 1) => State::A,
        (0xE0, 1) => State::C,
        (0xED, 1) => State::D,
        (0xE1..=0xEF, 1) => State::B,
        (0xE0..=0xEF, 2) => State::A,
        (0xF0, 1) => State::F,
        (0xF4, 1) => State::G,
        (0xF1..=0xF3, 1) => State::E,
        (0xF0..=0xF4, 2) => State::B,
        (0xF0..=0xF4, 3) => State::A,
        other => panic!("std reported an impossible truncated sequence {other:?}"),
    }
}

/// Each of `backends` gives std's answer on `bytes` (the oracle asked once): the first
/// error's offset, the verdict, and the draft's state after them.
fn assert_backends(backends: &[Backend], bytes: &[u8]) {
    let std = std_error(bytes);
    let want = std.map(|(offset, _)| offset);
    let state = state_from_std(bytes, std);
    for backend in backends {
        let name = backend.name();
        assert_eq!(
            backend.first_error(bytes),
            want,
            "{name} first_error on {bytes:02X?}"
        );
        assert_eq!(
            backend.validate(bytes),
            want.is_none(),
            "{name} validate on {bytes:02X?}"
        );
        assert_eq!(
            backend.validate_chunk(State::Start, bytes),
            state,
            "{name} validate_chunk on {bytes:02X?}"
        );
    }
}

fn assert_all(bytes: &[u8]) {
    assert_backends(&all(), bytes);
}

/// Characters of 1-4 bytes, including the edges of every row of Table 3-7.
const CHARS: &[&str] = &[
    "a",
    "Z",
    "\u{0}",
    "\u{7F}",
    "é",
    "\u{80}",
    "\u{7FF}",
    "ж",
    "ש",
    "ع",
    "€",
    "\u{800}",
    "\u{FFF}",
    "\u{1000}",
    "\u{CFFF}",
    "\u{D000}",
    "\u{D7FF}",
    "\u{E000}",
    "\u{FFFF}",
    "中",
    "日",
    "한",
    "क",
    "😀",
    "\u{10000}",
    "\u{3FFFF}",
    "\u{40000}",
    "\u{FFFFF}",
    "\u{100000}",
    "\u{10FFFF}",
    " ",
    "\n",
];

/// Ill-formed sequences of every kind (Unicode §3.9), and truncated ones, which
/// are ill-formed too once anything but a continuation byte follows them.
fn ill_formed() -> impl Iterator<Item = &'static &'static [u8]> {
    ILL_FORMED.iter().chain(TRUNCATED)
}

/// [`multibyte_text`] cut to at most `len` bytes, on a character boundary.
fn valid_multibyte_text(len: usize) -> Vec<u8> {
    let mut text = multibyte_text(len);
    text.truncate(len);
    while std::str::from_utf8(&text).is_err() {
        text.pop();
    }
    text
}

/// `text` with `seq` written over it at `at` (cut short by the end of `text`), checked
/// on every back end.
fn assert_with_sequence_at(backends: &[Backend], text: &[u8], at: usize, seq: &[u8]) {
    let mut bytes = text.to_vec();
    let n = seq.len().min(bytes.len() - at);
    bytes[at..at + n].copy_from_slice(&seq[..n]);
    assert_backends(backends, &bytes);
}

fn multibyte_text(len: usize) -> Vec<u8> {
    let mut text = Vec::new();
    let mut i = 0;
    while text.len() < len {
        text.extend_from_slice(CHARS[i % CHARS.len()].as_bytes());
        i += 7;
    }
    text
}

#[test]
fn the_machine_has_its_simd_back_ends() {
    let names: Vec<_> = all().iter().map(|b| b.name()).collect();
    println!(
        "back ends on this CPU: {names:?}; selected: {}",
        backends::selected()
    );
    // The best one is selected, unless the testing aid forces another.
    match std::env::var("UTF8VALIDATE_BACKEND") {
        Ok(forced) => assert_eq!(backends::selected(), forced),
        Err(_) => assert_eq!(names.first().copied(), Some(backends::selected())),
    }
    assert_eq!(names.last().copied(), Some("scalar"));
    for b in all() {
        assert_eq!(
            format!("{b:?}"),
            format!("Backend {{ name: {:?} }}", b.name())
        );
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vbmi")
        {
            assert!(names.contains(&"avx512"));
        }
        if std::is_x86_feature_detected!("avx2") {
            assert!(names.contains(&"avx2"));
        }
        if std::is_x86_feature_detected!("ssse3") {
            assert!(names.contains(&"ssse3"));
        }
    }
    #[cfg(target_arch = "aarch64")]
    assert!(names.contains(&"neon"));
}

/// For every length 0..=200 and every offset, each ill-formed sequence written over
/// ASCII and over multibyte text: every error position around the 16-, 32- and
/// 64-byte boundaries, the short path, the first block and the overlapping tail.
#[test]
fn every_error_position_up_to_200_bytes() {
    let backends = all();
    let ascii: Vec<u8> = (0..200u32).map(|i| b'a' + (i % 26) as u8).collect();
    let multi = multibyte_text(200);
    for len in 0..=200usize {
        for background in [&ascii[..len], &multi[..len]] {
            assert_backends(&backends, background);
            for seq in ill_formed() {
                for at in 0..len {
                    let mut bytes = background.to_vec();
                    let n = seq.len().min(len - at);
                    bytes[at..at + n].copy_from_slice(&seq[..n]);
                    assert_backends(&backends, &bytes);
                }
            }
        }
    }
}

/// Lengths around the vector and block boundaries of inputs of a few blocks (65 to
/// 320 bytes), where the back ends skip the leading ASCII and then check up to 256
/// bytes as plain vectors, or longer inputs with the tiered loop.
const FEW_BLOCK_LENGTHS: &[usize] = &[
    65, 66, 67, 68, 95, 96, 97, 99, 127, 128, 129, 131, 160, 191, 192, 193, 200, 223, 224, 225,
    254, 255, 256, 257, 258, 259, 300, 319, 320,
];

/// For the [`FEW_BLOCK_LENGTHS`] and every offset, each ill-formed sequence written
/// over multibyte text (the first block not ASCII: plain vectors up to 256 bytes),
/// over one ASCII block and then multibyte text (the leading ASCII skipped first),
/// and over ASCII: every error position of the paths for a few blocks.
#[test]
fn every_error_position_in_inputs_of_a_few_blocks() {
    let backends = all();
    for &len in FEW_BLOCK_LENGTHS {
        let multi = valid_multibyte_text(len);
        let mut ascii_first = vec![b'a'; 64];
        ascii_first.extend_from_slice(&valid_multibyte_text(len - 64));
        let ascii = vec![b'a'; len];
        for text in [&multi, &ascii_first, &ascii] {
            assert_backends(&backends, text);
            for seq in ill_formed() {
                for at in 0..text.len() {
                    assert_with_sequence_at(&backends, text, at, seq);
                }
            }
        }
    }
}

/// Where short strings are embedded: straddling the 16-, 32- and 64-byte
/// boundaries, in the first block, in the whole blocks and in the tail.
const OFFSETS: &[usize] = &[0, 1, 14, 15, 30, 31, 62, 63, 64, 65, 94, 95, 126, 127];

/// `prefix ++ s ++ suffix` for each host text, so that the check (not the
/// short-input path) sees `s` at `at`. The host splits on a character boundary.
fn embed_all(hosts: &[Vec<u8>], s: &[u8], buf: &mut Vec<u8>, check: &mut impl FnMut(&[u8])) {
    embed_at(hosts, OFFSETS, s, buf, check)
}

/// [`embed_all`] at the given offsets only.
fn embed_at(
    hosts: &[Vec<u8>],
    offsets: &[usize],
    s: &[u8],
    buf: &mut Vec<u8>,
    check: &mut impl FnMut(&[u8]),
) {
    for host in hosts {
        for &at in offsets {
            // Move `at` back onto a character boundary of the host.
            let mut at = at.min(host.len());
            while at > 0 && (host[at] as i8) < -0x40 {
                at -= 1;
            }
            buf.clear();
            buf.extend_from_slice(&host[..at]);
            buf.extend_from_slice(s);
            buf.extend_from_slice(&host[at..]);
            check(buf);
            // And at the very end of a long buffer.
            buf.clear();
            buf.extend_from_slice(&host[..at.max(64)]);
            let end = buf.len();
            let mut at_end = end;
            while at_end > 0 && (buf[at_end - 1] as i8) < -0x40 {
                at_end -= 1;
            }
            buf.truncate(at_end.saturating_sub(1));
            buf.extend_from_slice(s);
            check(buf);
        }
    }
}

fn hosts() -> Vec<Vec<u8>> {
    let ascii: Vec<u8> = (0..160u32).map(|i| b' ' + (i % 90) as u8).collect();
    let mut multi = multibyte_text(160);
    // End the multibyte host on a character boundary.
    while std::str::from_utf8(&multi).is_err() {
        multi.pop();
    }
    vec![ascii, multi]
}

/// Every 1- and 2-byte string, embedded at every offset of [`OFFSETS`].
#[test]
fn every_one_and_two_byte_string_embedded() {
    let backends = all();
    let hosts = hosts();
    let mut buf = Vec::new();
    let mut check = |bytes: &[u8]| assert_backends(&backends, bytes);
    for a in 0..=255u8 {
        embed_all(&hosts, &[a], &mut buf, &mut check);
    }
    // Two-byte strings on the ASCII host and at fewer offsets, to keep debug builds
    // quick (all offsets and both hosts run in the --ignored exhaustive test).
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            embed_at(
                &hosts[..1],
                &[0, 31, 63, 64, 127],
                &[a, b],
                &mut buf,
                &mut check,
            );
        }
    }
}

/// The first and last byte of every byte class (and a few more): every 3- and 4-byte
/// string over these exercises every row of Table 3-7 and every way to break one.
const EDGES: &[u8] = &[
    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC,
    0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
];

/// Every 3-byte string over [`EDGES`], embedded at the offsets of [`OFFSETS`].
#[test]
fn every_three_edge_byte_string_embedded() {
    let backends = all();
    let hosts = hosts();
    let mut buf = Vec::new();
    let mut check = |bytes: &[u8]| assert_backends(&backends, bytes);
    for &a in EDGES {
        for &b in EDGES {
            for &c in EDGES {
                embed_all(&hosts[..1], &[a, b, c], &mut buf, &mut check);
            }
        }
    }
}

/// Exhaustive: every 2-byte string at every offset of [`OFFSETS`] in both hosts,
/// every 3-byte string at four offsets (straddling the 32- and 64-byte boundaries)
/// in the ASCII host and at its end, and every 4-byte string over [`EDGES`] at every
/// offset in both hosts. Release mode:
/// `cargo test --release --test backends -- --ignored`.
#[test]
#[ignore = "exhaustive, minutes in debug builds; run with --release -- --ignored"]
fn exhaustive_three_byte_strings_embedded() {
    let backends = all();
    let hosts = hosts();
    let mut buf = Vec::new();
    let mut check = |bytes: &[u8]| assert_backends(&backends, bytes);
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            embed_all(&hosts, &[a, b], &mut buf, &mut check);
            for c in 0..=255u8 {
                embed_at(
                    &hosts[..1],
                    &[1, 31, 63, 127],
                    &[a, b, c],
                    &mut buf,
                    &mut check,
                );
            }
        }
    }
    for &a in EDGES {
        for &b in EDGES {
            for &c in EDGES {
                for &d in EDGES {
                    embed_all(&hosts, &[a, b, c, d], &mut buf, &mut check);
                }
            }
        }
    }
}

/// `bytes` fed to `backend` in chunks ending at `cuts` (sorted, any values) ends in
/// the same state as one call over the whole, and as the independent model.
fn assert_chunks(backend: &Backend, bytes: &[u8], cuts: &[prop::sample::Index]) {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut state = State::Start;
    let mut from = 0;
    for &cut in cuts.iter().chain(Some(&bytes.len())) {
        state = backend.validate_chunk(state, &bytes[from..cut]);
        from = cut;
    }
    let whole = backend.validate_chunk(State::Start, bytes);
    assert_eq!(
        state,
        whole,
        "{} chunks {cuts:?} of {bytes:02X?}",
        backend.name()
    );
    assert_eq!(
        whole,
        expected_state(bytes),
        "{} on {bytes:02X?}",
        backend.name()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        assert_all(&bytes);
    }

    #[test]
    fn random_high_bytes(bytes in prop::collection::vec(0x80u8..=0xFF, 0..512)) {
        assert_all(&bytes);
    }

    #[test]
    fn mutated_multilingual_text(bytes in mutated_text(CHARS, 0..1400, 3)) {
        assert_all(&bytes);
    }

    #[test]
    fn chunks_equal_one_shot(
        bytes in mutated_text(CHARS, 0..1400, 3),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        for backend in all() {
            assert_chunks(&backend, &bytes, &cuts);
        }
    }

    #[test]
    fn chunks_of_random_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        for backend in all() {
            assert_chunks(&backend, &bytes, &cuts);
        }
    }
}

/// The lengths of the chunk after a carried state in [`chunk_continues_every_state`]:
/// every chunk is checked from the carried state by the back end (the state's lead
/// byte as the byte before it); these cover every vector width and the edges of
/// the paths by length (7 bytes, one block of 64, two to four blocks, longer).
fn chunk_lengths() -> impl Iterator<Item = usize> {
    (0..=9)
        .chain(15..=19)
        .chain(31..=35)
        .chain([47, 48])
        .chain(61..=67)
        .chain([100, 128, 192, usize::MAX])
}

/// The third byte after a carried state in [`chunk_continues_every_state`]: one
/// that finishes a 4-byte sequence at the edges of the continuation ranges, or not.
const THIRD: &[u8] = &[0x41, 0x80, 0x8F, 0x90, 0xBF, 0xC3];

/// Every carried state, continued by every 2-byte string over [`EDGES`], one of
/// [`THIRD`] and then valid text (ASCII, multibyte, or a block of ASCII and then
/// multibyte), cut to each of [`chunk_lengths`] (whole characters or not).
#[test]
fn chunk_continues_every_state() {
    let backends = all();
    let mut hosts = hosts();
    // A first block of ASCII, then multibyte text: a chunk of a few blocks that
    // starts like an ASCII one.
    let mut ascii_first = vec![b'a'; 70];
    ascii_first.extend_from_slice(&hosts[1]);
    hosts.push(ascii_first);
    // A prefix that leaves each state: nothing, and truncated sequences.
    let prefixes: &[&[u8]] = &[
        b"",
        b"\xC3",
        b"\xE2",
        b"\xE2\x82",
        b"\xE0",
        b"\xED",
        b"\xF1",
        b"\xF0",
        b"\xF4",
        b"\xF0\x9F",
        b"\xF0\x9F\x98",
        b"\x80",
    ];
    let cases = prefixes
        .iter()
        .flat_map(|prefix| hosts.iter().map(move |host| (prefix, host)))
        .flat_map(|(prefix, host)| EDGES.iter().map(move |&a| (prefix, host, a)))
        .flat_map(|(prefix, host, a)| EDGES.iter().map(move |&b| (prefix, host, a, b)))
        .flat_map(|(prefix, host, a, b)| THIRD.iter().map(move |&c| (prefix, host, a, b, c)));
    for (prefix, host, a, b, c) in cases {
        let mut rest = vec![a, b, c];
        rest.extend_from_slice(host);
        for n in chunk_lengths() {
            let chunk = &rest[..n.min(rest.len())];
            let mut whole = prefix.to_vec();
            whole.extend_from_slice(chunk);
            for backend in &backends {
                let s = backend.validate_chunk(State::Start, prefix);
                assert_eq!(s, expected_state(prefix));
                let end = backend.validate_chunk(s, chunk);
                assert_eq!(
                    end,
                    expected_state(&whole),
                    "{} {prefix:02X?} + {chunk:02X?}",
                    backend.name()
                );
            }
        }
    }
}

/// Long inputs: many whole blocks, errors far from the start.
#[test]
fn long_inputs_with_one_error() {
    let backends = all();
    let text = valid_multibyte_text(20_000);
    assert_backends(&backends, &text);
    for at in (0..text.len()).step_by(997).chain([text.len() - 1]) {
        for seq in ill_formed() {
            assert_with_sequence_at(&backends, &text, at, seq);
        }
    }
}

/// The blocks after the first are moved onto 64-byte aligned addresses, so the
/// second block overlaps the first by `start % 64` bytes: inputs at every start
/// alignment, with an error at every position around the first blocks.
#[test]
fn every_start_alignment() {
    let backends = all();
    let text = valid_multibyte_text(1100);
    let ascii: Vec<u8> = (0..1100u32).map(|i| b'a' + (i % 26) as u8).collect();
    let mut store = vec![0u8; 1200];
    for host in [&text, &ascii] {
        for shift in 0..64 {
            // Below 1024 bytes the blocks are not moved (the overlap would cost
            // more than it saves); from 1024 on they are.
            for len in [
                64, 65, 66, 67, 127, 128, 129, 191, 200, 300, 1023, 1024, 1090,
            ] {
                let len = len.min(host.len());
                store[shift..shift + len].copy_from_slice(&host[..len]);
                let bytes = &mut store[shift..shift + len];
                assert_backends(&backends, bytes);
                for seq in [&b"\x80"[..], b"\xE2\x82", b"\xED\xA0\x80", b"\xF0\x9F\x98"] {
                    for at in (56..len.min(140)).chain(len.saturating_sub(80).max(140)..len) {
                        let saved = bytes.to_vec();
                        let n = seq.len().min(len - at);
                        bytes[at..at + n].copy_from_slice(&seq[..n]);
                        assert_backends(&backends, bytes);
                        bytes.copy_from_slice(&saved);
                    }
                }
            }
        }
    }
}

/// Text of one- and two-byte characters (Latin, Greek, Cyrillic, Arabic), long
/// enough for the tiered loop, which checks blocks with no byte E0-FF in their own
/// way (comparisons rather than table lookups): every byte followed by every byte
/// of [`EDGES`], and every 3-byte string over [`EDGES`], written around the block
/// boundaries, in text whose first block is ASCII or not. The first block is
/// always checked in the highest tier, and bytes E0-FF written into a block move
/// it into a higher tier, so blocks of two tiers meet at these boundaries.
#[test]
fn two_byte_text_with_every_pair_and_edge_triple() {
    let backends = all();
    let two_byte: Vec<u8> = "Ölçü ΑΒΓ δεζ Жук щи اللغة é"
        .bytes()
        .cycle()
        .take(500)
        .collect();
    let mut latin_first = vec![b'a'; 64];
    latin_first.extend_from_slice(&two_byte);
    for mut text in [two_byte, latin_first] {
        while std::str::from_utf8(&text).is_err() {
            text.pop();
        }
        let check = |seq: &[u8], offsets: &[usize]| {
            for &at in offsets {
                assert_with_sequence_at(&backends, &text, at, seq);
            }
        };
        for a in 0..=255u8 {
            for &b in EDGES {
                check(&[a, b], &[63, 64, 127, 128, 300]);
            }
        }
        for &a in EDGES {
            for &b in EDGES {
                for &c in EDGES {
                    check(&[a, b, c], &[62, 63, 127]);
                }
            }
        }
    }
}

/// Runs of ASCII and of multibyte text of many lengths (around the 64-byte block
/// and the groups of blocks whose errors are tested together), with one error
/// written at every third position: the switch between the ASCII path and the
/// multibyte path, and an error reported for a whole run of blocks.
#[test]
fn runs_of_ascii_and_multibyte_text() {
    let backends = all();
    let multi = multibyte_text(2000);
    let mut text = Vec::new();
    let mut ascii = true;
    for run in [
        1, 70, 63, 64, 65, 130, 600, 3, 513, 128, 700, 1, 257, 2, 450,
    ] {
        if ascii {
            text.extend((0..run).map(|i| b'a' + (i % 26) as u8));
        } else {
            // `run` bytes of multibyte text, ending on a character boundary.
            let mut end = run.min(multi.len());
            while end < multi.len() && (multi[end] as i8) < -0x40 {
                end += 1;
            }
            text.extend_from_slice(&multi[..end]);
        }
        ascii = !ascii;
    }
    assert!(std::str::from_utf8(&text).is_ok());
    assert_backends(&backends, &text);
    for seq in [
        &b"\x80"[..],
        b"\xC2",
        b"\xE2\x82",
        b"\xED\xA0\x80",
        b"\xF0\x9F\x98\x41",
    ] {
        for at in (0..text.len()).step_by(3) {
            assert_with_sequence_at(&backends, &text, at, seq);
        }
    }
}

/// No byte outside the input changes an answer: every input is surrounded by 64
/// bytes of each poison (lead bytes that would demand continuation bytes, a
/// continuation byte, NUL), at every start alignment, in inputs short and long
/// enough for every path (the first block, the aligned blocks from 1 KiB, the tail),
/// in text that is multi-byte throughout and in text whose first block is ASCII
/// (which the paths for a few blocks take block by block). A read before or after the slice that fed the checks would flip a verdict here
/// (found by the C fuzz harness: a block read 2 bytes before inputs that start
/// 62-63 bytes past a 64-byte boundary).
#[test]
fn bytes_outside_the_input_never_matter() {
    let backends = all();
    let multibyte = valid_multibyte_text(2700);
    // 64 bytes of ASCII, then a 2-byte character that ends at byte 66.
    let mut ascii_first = [b'a'; 64].to_vec();
    ascii_first.extend_from_slice("é".as_bytes());
    ascii_first.extend_from_slice(&multibyte[..2700 - 66]);
    let mut store = vec![0u8; 64 + 64 + 2700 + 64];
    for (valid, len) in [&multibyte, &ascii_first].into_iter().flat_map(|text| {
        [
            16, 31, 33, 63, 64, 65, 66, 67, 100, 128, 129, 1023, 1024, 1025, 1100, 2600,
        ]
        .map(|len| (text, len))
    }) {
        // On a character boundary, so that the slice itself is well-formed; then
        // the same with an error at its start, middle and end.
        let mut len = len.min(valid.len());
        while len < valid.len() && (valid[len] as i8) < -0x40 {
            len -= 1;
        }
        let mut inputs = vec![valid[..len].to_vec()];
        for at in [0, len / 2, len - 1] {
            let mut bad = valid[..len].to_vec();
            bad[at] = 0xFF;
            inputs.push(bad);
        }
        for input in &inputs {
            for poison in [0xE0u8, 0xF0, 0xF4, 0x80, 0xC3, 0x00] {
                for shift in 0..64 {
                    let begin = 64 + shift;
                    store.fill(poison);
                    store[begin..begin + len].copy_from_slice(input);
                    let bytes = &store[begin..begin + len];
                    assert_backends(&backends, bytes);
                }
            }
        }
    }
}

/// Whole characters of `chars` in turn, as many as fit in `len` bytes.
fn text_of(chars: &[&str], len: usize) -> Vec<u8> {
    let mut text = Vec::new();
    for c in chars.iter().cycle() {
        if text.len() + c.len() > len {
            break;
        }
        text.extend_from_slice(c.as_bytes());
    }
    text
}

/// Blocks of text whose largest bytes are below E0 (1- and 2-byte characters) or
/// below F0 (no 4-byte characters) take cheaper checks than the rest, chosen per
/// block from its bytes and the three before it. Text of each width, and text that
/// changes width inside a run of non-ASCII blocks, with every ill-formed sequence
/// and a valid character of each width inserted at character boundaries around the
/// first blocks: a lead byte that the choice overlooked turns a valid input into a
/// rejected one, or an ill-formed one into an accepted one.
#[test]
fn text_of_each_width_and_changes_of_width() {
    let backends = all();
    let two = ["é", "\u{80}", "\u{7FF}", "ж", "ש", "ع"];
    let three = ["€", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "中"];
    let four = ["😀", "\u{10000}", "\u{10FFFF}"];
    let mut changes = Vec::new();
    for (chars, len) in [
        (&two[..], 130),
        (&three[..], 200),
        (&four[..], 70),
        (&two[..], 300),
    ] {
        changes.extend(text_of(chars, len));
    }
    changes.extend(text_of(&three, 200));
    let texts = [
        text_of(&two, 900),
        text_of(&three, 900),
        changes,
        [
            &b"abc"[..],
            &text_of(&two, 300),
            &[b'x'; 70],
            &text_of(&three, 300),
        ]
        .concat(),
    ];
    let valid: [&[u8]; 5] = [
        b"e",
        "é".as_bytes(),
        "€".as_bytes(),
        "\u{800}".as_bytes(),
        "😀".as_bytes(),
    ];
    let mut buf = Vec::new();
    let mut check = |bytes: &[u8]| assert_backends(&backends, bytes);
    for text in &texts {
        assert!(std::str::from_utf8(text).is_ok());
        check(text);
        let boundaries: Vec<usize> = (0..text.len().min(600))
            .filter(|&i| (text[i] as i8) >= -0x40)
            .collect();
        for seq in valid.iter().copied().chain(ill_formed().copied()) {
            embed_at(
                std::slice::from_ref(text),
                &boundaries,
                seq,
                &mut buf,
                &mut check,
            );
        }
    }
}
