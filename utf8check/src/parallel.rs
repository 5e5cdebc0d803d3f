//! The verdict on a large regular file from several cores at once
//! ([`valid_in_parallel`]).
//!
//! Checking a file that sits in the page cache is bound by how fast one core can
//! draw bytes from memory (about 12 GB/s on the machines BENCHMARKS.md names),
//! and a second core draws about as much again. So a large file is cut into one
//! part per core, each checked on its own thread from its own mapping. Only the
//! verdict comes from here: when a part is not valid (or cannot be mapped), the
//! caller scans the file in order as before, which finds and reports each error
//! exactly where a scan in one piece would.
//!
//! Each cut is moved forward past the continuation bytes at it (at most three),
//! which finish the character the part before holds: the parts then start on
//! character boundaries of a valid file, and a file is valid exactly when every
//! part, checked as a whole input, is. (Four continuation bytes at a cut are an
//! error of the file, which the part after it reports.)

use std::fs::File;
use std::thread;

use utf8validate_core::Stream;

use crate::scan::{read_at, windows};

/// Files shorter than twice this are checked on one core; longer ones in parts of
/// at least this many bytes. Below it the threads' start-up costs more than they
/// save.
pub const PART_FROM: u64 = 64 << 20;

/// True iff the `len` bytes of `file` (a regular file) are well-formed UTF-8, found
/// by checking parts of it on up to [`thread::available_parallelism`] threads.
/// False when they are not, and whenever it cannot tell (one core, a file shorter
/// than two parts, a part that cannot be mapped): the caller then scans the file.
pub fn valid_in_parallel(file: &File, len: u64) -> bool {
    let cores = thread::available_parallelism().map_or(1, usize::from) as u64;
    let parts = cores.min(len / PART_FROM);
    if parts < 2 {
        return false;
    }
    let cuts: Vec<u64> = (0..=parts).map(|i| len / parts * i).collect();
    parts_valid(file, len, &cuts)
}

/// True iff every part `cuts[i]..cuts[i + 1]` of the `len` bytes of `file` (each cut
/// moved past the continuation bytes at it) is well-formed UTF-8, each checked on a
/// thread of its own. `cuts` starts at 0, ends at `len` and does not decrease.
fn parts_valid(file: &File, len: u64, cuts: &[u64]) -> bool {
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
    thread::scope(|scope| {
        let checks: Vec<_> = starts
            .windows(2)
            .map(|part| {
                let (from, to) = (part[0], part[1].max(part[0]));
                // A thread the system cannot start (a limit on threads or address
                // space) is a part that cannot be told.
                thread::Builder::new().spawn_scoped(scope, move || range_valid(file, from, to))
            })
            .collect();
        // Every thread is joined before the answer; one that could not start or
        // panicked counts as "cannot tell".
        let answers: Vec<bool> = checks
            .into_iter()
            .map(|check| check.is_ok_and(|thread| thread.join().unwrap_or(false)))
            .collect();
        answers.into_iter().all(|valid| valid)
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
/// UTF-8: mapped a window at a time ([`windows`]) and fed to one [`Stream`].
fn range_valid(file: &File, from: u64, to: u64) -> bool {
    let mut stream = Stream::new();
    for window in windows(file, from, to) {
        let Ok((_, window)) = window else {
            return false;
        };
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

    /// Text with characters of every length, and with one ill-formed sequence of
    /// each kind put at each offset near a cut.
    #[test]
    fn every_cut_gives_the_verdict_of_std() {
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
                    parts_valid(&file.1, len, &[0, cut, len]),
                    want,
                    "cut at {cut} of {bytes:02X?}"
                );
            }
            for cut in (0..len).step_by(7) {
                let cuts = [0, cut, (cut + 5).min(len), (cut + 6).min(len), len];
                assert_eq!(parts_valid(&file.1, len, &cuts), want, "cuts {cuts:?}");
            }
        }
    }
}
