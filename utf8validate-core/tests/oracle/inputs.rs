//! Inputs for the tests that run many calls: reproducible multilingual text with
//! ill-formed sequences inserted.

use super::SAMPLES;

/// A small deterministic generator (SplitMix64): reproducible inputs without a
/// dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Ill-formed sequences of every kind, and a NUL (for the C-string functions).
pub const BAD: &[&[u8]] = &[
    b"\x80",
    b"\xBF",
    b"\xC0\xAF",
    b"\xC3\x41",
    b"\xE0\x9F\xBF",
    b"\xED\xA0\x80",
    b"\xF0\x8F\xBF\xBF",
    b"\xF4\x90\x80\x80",
    b"\xF5",
    b"\xFF",
    b"\xE2\x82",
    b"\xF0\x9F\x98",
    b"\x00",
];

/// Multilingual text of about `len` bytes, with up to `edits` ill-formed sequences
/// inserted at random places and, sometimes, cut at a random byte.
pub fn text(rng: &mut Rng, len: usize, edits: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(len + 16);
    while bytes.len() < len {
        bytes.extend_from_slice(SAMPLES[rng.below(SAMPLES.len())].as_bytes());
    }
    for _ in 0..rng.below(edits + 1) {
        let at = rng.below(bytes.len() + 1);
        let bad = BAD[rng.below(BAD.len())];
        bytes.splice(at..at, bad.iter().copied());
    }
    if rng.below(3) == 0 {
        bytes.truncate(rng.below(bytes.len() + 1));
    }
    bytes
}

/// Inputs from empty to several SIMD blocks long, valid and not.
pub fn cases(seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng(seed);
    let mut all = vec![Vec::new(), b"a".to_vec(), "é".as_bytes().to_vec()];
    for len in (1..200).step_by(7).chain([255, 256, 511, 1000, 4096]) {
        all.push(text(&mut rng, len, 0));
        all.push(text(&mut rng, len, 3));
    }
    all
}

/// Inputs where escape and replacement units of every width (an ASCII byte, a
/// backslash, a NUL, 2-4 byte characters, `\xHH` escapes, U+FFFD for maximal
/// subparts of 1-3 bytes) meet the end of a too-small output buffer.
pub const RENDER_SAMPLES: &[&[u8]] = &[
    b"",
    b"a",
    b"\xFF",
    b"\\",
    b"\0",
    "é€😀".as_bytes(),
    b"ab\xC3\xA9\\\xE2\x82\xAC\xF0\x9F\x98\x80\xC0\xAF\x00x\xED\xA0\x80\xF0\x9F\x98",
    b"\xE2\x82A\xF4\x90\x80\x80\xFE tail \\ \xCE\xB1",
];

/// The ways to cut `bytes` into chunks that data-in-chunks tests try, each with a
/// label for failure messages: whole, at every point, at every pair of points (for
/// inputs of up to 24 bytes) and into 1-byte chunks.
pub fn splits(bytes: &[u8]) -> Vec<(String, Vec<&[u8]>)> {
    let mut all = vec![("one chunk".to_string(), vec![bytes])];
    for i in 0..=bytes.len() {
        let (a, b) = bytes.split_at(i);
        all.push((format!("split at {i}"), vec![a, b]));
    }
    if bytes.len() <= 24 {
        for i in 0..=bytes.len() {
            for j in i..=bytes.len() {
                let chunks = vec![&bytes[..i], &bytes[i..j], &bytes[j..]];
                all.push((format!("split at {i},{j}"), chunks));
            }
        }
    }
    all.push(("1-byte chunks".to_string(), bytes.chunks(1).collect()));
    all
}
