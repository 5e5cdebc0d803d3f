//! The inputs of the benchmarks: generated ones, the same in every run, and where
//! the shared corpus is.

use std::path::{Path, PathBuf};

/// The corpus folder: `$UTF8VALIDATE_CORPUS`, else `../shared/corpus` beside the
/// repository.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("UTF8VALIDATE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

/// A small deterministic generator (xorshift64), so runs see the same inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `len` bytes of printable ASCII words.
pub fn ascii_text(len: usize) -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..len)
        .map(|_| match rng.next() % 7 {
            0 => b' ',
            n => b'a' + ((rng.next() % 26) as u8).wrapping_add(n as u8) % 26,
        })
        .collect()
}

/// `len` bytes of valid text mixing 1-, 2-, 3- and 4-byte characters (about half the
/// characters ASCII), ending on a character boundary (padded with ASCII).
pub fn mixed_text(len: usize) -> Vec<u8> {
    const CHARS: &[&str] = &[
        "a", "e", " ", "t", "é", "ж", "ع", "€", "中", "한", "क", "😀",
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut text = Vec::with_capacity(len + 4);
    loop {
        let c = CHARS[(rng.next() % CHARS.len() as u64) as usize].as_bytes();
        if text.len() + c.len() > len {
            break;
        }
        text.extend_from_slice(c);
    }
    text.resize(len, b'.');
    text
}
