//! A regular file's bytes without copying the file: mapped into memory a window at a
//! time ([`windows`]), or read at an offset ([`read_at`]), for the scan in order
//! (`crate::scan`) and the parts checked on several cores (`crate::parallel`).

use std::fs::File;
use std::io;

use memmap2::MmapOptions;

/// The bytes `from..to` of `file`, mapped `window` bytes at a time, in order, each
/// with the offset of its first byte.
pub fn windows(
    file: &File,
    from: u64,
    to: u64,
    window: usize,
) -> impl Iterator<Item = io::Result<(u64, memmap2::Mmap)>> + '_ {
    (from..to).step_by(window).map(move |start| {
        let size = (to - start).min(window as u64) as usize;
        map(file, start, size).map(|window| (start, window))
    })
}

/// `size` bytes of `file` from `offset`, mapped read-only, to be read once from start
/// to end.
fn map(file: &File, offset: u64, size: usize) -> io::Result<memmap2::Mmap> {
    // SAFETY: the mapping is read-only and private to this process. Another process
    // that truncates the file while it is mapped makes reads past the new end fault
    // (SIGBUS, which `crate::shrink` turns into an error message and exit status
    // 2); nothing here keeps references into the mapping beyond this window.
    let window = unsafe { MmapOptions::new().offset(offset).len(size).map(file)? };
    #[cfg(unix)]
    let _ = window.advise(memmap2::Advice::Sequential);
    Ok(window)
}

/// Reads exactly `buf.len()` bytes of `file` at `offset`.
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            match std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
}
