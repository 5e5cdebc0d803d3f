//! The verdict on a large regular file from several cores at once
//! ([`valid_in_parallel`]).
//!
//! Checking a file that sits in the page cache is bound by how fast one core can
//! draw bytes from memory (about 12 GB/s on the machines BENCHMARKS.md names),
//! and a second core draws about as much again. So a large file is cut into one
//! part per core ([`cuts`]: the parts cover the file exactly, whatever its length
//! and the number of cores), each checked on its own thread from its own mapping.
//! Only the verdict comes from here: when a part is not valid (or cannot be
//! mapped), the caller scans the file in order as before, which finds and reports
//! each error exactly where one scan of the whole file would.
//!
//! Each cut is moved forward past the continuation bytes at it (at most three),
//! which finish the character the part before holds: the parts then start on
//! character boundaries of a valid file, and a file is valid exactly when every
//! part, checked as a whole input, is. (Four continuation bytes at a cut are an
//! error of the file, which the part after it reports.)

use std::fs::File;
use std::thread;

use utf8validate_core::Stream;

use crate::file::{read_at, windows};
use crate::sizes::Sizes;

/// True iff the `len` bytes of `file` (a regular file) are well-formed UTF-8, found
/// by checking parts of at least `sizes.part` bytes on up to `sizes.threads`
/// threads. False when they are not, and whenever it cannot tell (one thread, a
/// file shorter than two parts, a part that cannot be mapped): the caller then
/// scans the file.
pub fn valid_in_parallel(file: &File, len: u64, sizes: &Sizes) -> bool {
    let parts = (sizes.threads as u64).min(len / sizes.part);
    if parts < 2 {
        return false;
    }
    parts_valid(file, len, &cuts(len, parts), sizes)
}

/// Where `parts` parts of a file of `len` bytes begin, and `len` last: `parts + 1`
/// offsets from 0 to `len`, the parts' lengths differing by at most one byte, so
/// that the parts cover `[0, len)` exactly.
fn cuts(len: u64, parts: u64) -> Vec<u64> {
    // In u128: `len * i` does not fit in u64 for files over 2^64 / parts bytes.
    let cuts: Vec<u64> = (0..=parts)
        .map(|i| (u128::from(len) * u128::from(i) / u128::from(parts)) as u64)
        .collect();
    debug_assert!(
        cuts.first() == Some(&0)
            && cuts.last() == Some(&len)
            && cuts.windows(2).all(|p| p[0] <= p[1]),
        "the parts of {len} bytes do not cover it: {cuts:?}"
    );
    cuts
}

/// True iff every part `cuts[i]..cuts[i + 1]` of the `len` bytes of `file` (each cut
/// moved past the continuation bytes at it) is well-formed UTF-8: the first checked
/// on this thread, each other one on a thread of its own. `cuts` starts at 0, ends
/// at `len` and does not decrease.
fn parts_valid(file: &File, len: u64, cuts: &[u64], sizes: &Sizes) -> bool {
    let Some(starts) = cuts
        .iter()
        // (The start of the file has nothing before it to finish.)
        .map(|&cut| match cut {
            0 => Some(0),
            _ => Some(cut + continuation_run(file, cut, len)?),
        })
        .collect::<Option<Vec<u64>>>()
    else {
        return false;
    };
    debug_assert!(
        starts.first() == Some(&0) && starts.last() == Some(&len),
        "the parts do not cover [0, {len}): {starts:?}"
    );
    sizes.trace(format_args!("parts {starts:?}"));
    let parts: Vec<(u64, u64)> = starts
        .windows(2)
        .map(|part| (part[0], part[1].max(part[0])))
        .collect();
    let Some((&(from, to), others)) = parts.split_first() else {
        return true;
    };
    thread::scope(|scope| {
        let checks: Vec<_> = others
            .iter()
            .map(|&(from, to)| {
                // A thread the system cannot start (a limit on threads or address
                // space) is a part that cannot be told.
                thread::Builder::new()
                    .spawn_scoped(scope, move || range_valid(file, from, to, sizes))
            })
            .collect();
        let first = range_valid(file, from, to, sizes);
        // Every thread is joined before the answer; one that could not start or
        // panicked counts as "cannot tell".
        let answers: Vec<bool> = checks
            .into_iter()
            .map(|check| check.is_ok_and(|thread| thread.join().unwrap_or(false)))
            .collect();
        first && answers.into_iter().all(|valid| valid)
    })
}

/// The number of continuation bytes (80-BF) at offset `at` of the `len` bytes of
/// `file`, at most three; `None` when they cannot be read.
fn continuation_run(file: &File, at: u64, len: u64) -> Option<u64> {
    let mut bytes = [0u8; 3];
    let bytes = bytes.get_mut(..(len - at).min(3) as usize)?;
    read_at(file, bytes, at).ok()?;
    Some(
        bytes
            .iter()
            .take_while(|&&b| (0x80..0xC0).contains(&b))
            .count() as u64,
    )
}

/// True iff the bytes `from..to` of `file`, as a whole input, are well-formed
/// UTF-8: mapped `sizes.window` bytes at a time ([`windows`]) and fed to one
/// [`Stream`].
fn range_valid(file: &File, from: u64, to: u64, sizes: &Sizes) -> bool {
    let mut stream = Stream::new();
    for window in windows(file, from, to, sizes.window) {
        let Ok((start, window)) = window else {
            return false;
        };
        sizes.trace(format_args!("part window {start} {}", window.len()));
        if !stream.feed(&window) {
            return false;
        }
    }
    stream.finish().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file holding `bytes`, removed when dropped.
    struct TempFile(std::path::PathBuf, File);

    impl TempFile {
        fn new(bytes: &[u8]) -> TempFile {
            use std::sync::atomic::{AtomicUsize, Ordering};
            static N: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "utf8check-parallel-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            File::create(&path).unwrap().write_all(bytes).unwrap();
            let file = File::open(&path).unwrap();
            TempFile(path, file)
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// Small windows, so that parts span several.
    fn small() -> Sizes {
        Sizes {
            window: 5,
            ..Sizes::defaults()
        }
    }

    #[test]
    fn the_parts_cover_every_byte_exactly_once() {
        for len in (0..200).chain([u64::MAX / 3, u64::MAX - 1, u64::MAX]) {
            for parts in 1..=17 {
                let cuts = cuts(len, parts);
                assert_eq!(cuts.len() as u64, parts + 1);
                assert_eq!((cuts[0], cuts[parts as usize]), (0, len), "{len} {parts}");
                for part in cuts.windows(2) {
                    // As even as can be: len / parts or one byte more.
                    assert!(part[1] - part[0] >= len / parts, "{len} {parts}: {cuts:?}");
                    assert!(
                        part[1] - part[0] - len / parts <= 1,
                        "{len} {parts}: {cuts:?}"
                    );
                }
            }
        }
    }

    /// Every length from 0 to 60 bytes, cut into parts of 3 bytes or more on 1 to 16
    /// threads, with an ill-formed sequence in the last bytes or none: the verdict
    /// of std (an invalid file is false; so is a valid one that is not cut, for
    /// the caller to scan).
    #[test]
    fn the_verdict_of_std_at_every_length_and_thread_count() {
        let text = "a\u{e9}\u{20ac}\u{1F600}".repeat(6).into_bytes();
        let tails: &[&[u8]] = &[b"", b"\xFF", b"\xED\xA0"];
        for len in 0..=text.len() {
            for tail in tails {
                let mut bytes = text[..len].to_vec();
                bytes.extend_from_slice(tail);
                let file = TempFile::new(&bytes);
                let whole = std::str::from_utf8(&bytes).is_ok();
                for threads in [1, 2, 3, 16] {
                    let sizes = Sizes {
                        threads,
                        part: 3,
                        ..Sizes::defaults()
                    };
                    let len = bytes.len() as u64;
                    let cut = threads >= 2 && len >= 6;
                    assert_eq!(
                        valid_in_parallel(&file.1, len, &sizes),
                        whole && cut,
                        "{threads} threads, {bytes:02X?}"
                    );
                }
            }
        }
    }

    /// Text with characters of every length, and with one ill-formed sequence of
    /// each kind put at each offset near a cut.
    #[test]
    fn every_cut_gives_the_verdict_of_std() {
        let sizes = small();
        let text = "ab\u{e9}\u{20ac}\u{1F600}cd\u{436}\u{4e2d}"
            .repeat(8)
            .into_bytes();
        let bad: &[&[u8]] = &[
            b"\x80",
            b"\xC3",
            b"\xE2\x82",
            b"\xF0\x9F\x98",
            b"\xED\xA0\x80",
            b"\xC0\xAF",
        ];
        let mut inputs = vec![text.clone()];
        for seq in bad {
            for at in [0, 1, 2, 30, 31, 32, 33, 34, 35, text.len()] {
                let mut broken = text.clone();
                broken.splice(at..at, seq.iter().copied());
                inputs.push(broken);
            }
        }
        for bytes in &inputs {
            let want = std::str::from_utf8(bytes).is_ok();
            let file = TempFile::new(bytes);
            let len = bytes.len() as u64;
            for cut in 0..=len {
                assert_eq!(
                    parts_valid(&file.1, len, &[0, cut, len], &sizes),
                    want,
                    "cut at {cut} of {bytes:02X?}"
                );
            }
            for cut in (0..len).step_by(7) {
                let cuts = [0, cut, (cut + 5).min(len), (cut + 6).min(len), len];
                assert_eq!(
                    parts_valid(&file.1, len, &cuts, &sizes),
                    want,
                    "cuts {cuts:?}"
                );
            }
        }
    }
}
