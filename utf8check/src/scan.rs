//! Scanning one input: its bytes in blocks, each fed to the library's [`Stream`],
//! which checks data in chunks from the state the chunk before left.
//!
//! A regular file (named, or standard input redirected from one) is mapped into
//! memory a window at a time ([`Sizes::window`]), so its bytes are never copied and
//! memory use does not depend on its size; where mapping fails (an address-space
//! limit, say) it is read instead. A file that grows while it is checked is checked
//! to its new end, as a reader would; one that shrinks has no verdict (an error, or
//! `crate::shrink`'s message). Anything else (pipes, terminals, `/dev/stdin` on a
//! pipe) is read in blocks of at most [`Sizes::read`] bytes into one buffer reused
//! for every input.
//!
//! A valid input costs one check of its bytes and nothing else: lines and columns
//! are counted only when an error must be reported (in a mapped file, by mapping
//! the bytes before the error again; in a stream, which cannot go back, over each
//! block as it goes by, and only when positions are printed at all).
//!
//! After an error, `--all` starts a new stream right after its maximal subpart
//! (Unicode §3.9), so each error is reported as if the input began there.

use std::fs::File;
use std::io::{self, Read};

use utf8validate_core::{ErrorKind, Stream, Utf8Error};

use crate::file::{read_at, windows};
use crate::parallel;
use crate::sizes::Sizes;

/// Bytes of context kept before an error for the hex dump (as `isutf8 -v`).
pub const BEFORE: usize = 8;
/// Bytes of context shown from the first byte of an error on (as `isutf8 -v`).
pub const AFTER: usize = 8;
/// Bytes a stream keeps of what it fed: the context before an error that starts in
/// the sequence carried over from the previous block (1-3 bytes before it).
const TAIL: usize = BEFORE + 3;

/// One ill-formed sequence, with everything a report needs.
#[derive(Clone, Debug)]
pub struct Found {
    /// Absolute byte offset (0-based) of its first byte: `valid_up_to` for the first
    /// error of an input.
    pub byte: u64,
    /// Length of the maximal subpart (Unicode §3.9), 1-3 bytes.
    pub length: usize,
    /// Why it is ill-formed.
    pub kind: ErrorKind,
    /// 1-based line: newlines before `byte`, plus one. 0 when positions are off.
    pub line: u64,
    /// 1-based column in bytes within the line (what isutf8 calls "char"): bytes
    /// since the last newline before `byte`, plus one. 0 when positions are off.
    pub column: u64,
    /// Up to [`BEFORE`] bytes before the error and up to [`AFTER`] from its start.
    pub context: Vec<u8>,
    /// Index in `context` of the error's first byte.
    pub context_at: usize,
}

/// What to compute while scanning.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Count lines and columns (needed for reports, not for `-q`/`-l`/`-i`).
    pub positions: bool,
    /// Go on after an error (resynchronising after its maximal subpart) instead of
    /// stopping at the first one.
    pub all: bool,
}

/// Reusable state for scanning inputs: the sizes that cut them, and the block
/// buffer of streams.
pub struct Scanner {
    sizes: Sizes,
    buf: Vec<u8>,
}

/// Called with each error found, in order; an `Err` stops the scan.
pub type OnError<'a> = dyn FnMut(&Found) -> io::Result<()> + 'a;

impl Scanner {
    /// A scanner that cuts inputs by `sizes`, with its buffer allocated once: room
    /// for the bytes held back from the block before ([`AFTER`]), for reads until
    /// more than [`AFTER`] new bytes are in, and for one more read.
    pub fn new(sizes: Sizes) -> Scanner {
        Scanner {
            sizes,
            buf: vec![0; 2 * AFTER + sizes.read],
        }
    }

    /// Scans `file` to its end (or to its first error unless `opts.all`), mapped
    /// when it is a regular file that can be mapped, else read. Returns whether it
    /// is valid.
    pub fn scan_file(
        &mut self,
        file: &mut File,
        opts: Options,
        on_error: &mut OnError<'_>,
    ) -> io::Result<bool> {
        let meta = file.metadata()?;
        // A regular file that reports size 0 may still have bytes (/proc, sysfs):
        // only a non-empty size is trusted for mapping; the rest is read.
        if meta.is_file() && meta.len() > 0 {
            let len = meta.len();
            // A large file that is valid is answered by all cores at once, which
            // leaves only what was added to it meanwhile; any other is scanned in
            // order, which reports where and why it is not valid.
            let checked = if parallel::valid_in_parallel(file, len, &self.sizes) {
                len
            } else {
                0
            };
            let mapped = scan_mapped(file, checked, len, self.sizes, opts, on_error)?;
            if let Some(valid) = mapped {
                return Ok(valid);
            }
        }
        self.scan_stream(file, opts, on_error)
    }

    /// Scans a stream read in blocks.
    pub fn scan_stream(
        &mut self,
        input: &mut dyn Read,
        opts: Options,
        on_error: &mut OnError<'_>,
    ) -> io::Result<bool> {
        let mut run = Run::new(opts, 0);
        let mut seen = Seen::new(opts.positions);
        // buf[..held] is the last AFTER bytes of the previous block, not yet fed: a
        // report of an error right before them shows them in its dump.
        let mut held = 0usize;
        loop {
            // One read, checked at once: a pipe's writer goes on filling it
            // meanwhile (waiting for a whole block would stall the writer). More
            // reads only while no more than the bytes held back are in; the buffer
            // has room for `sizes.read` more bytes until then.
            let mut filled = held;
            let mut eof = false;
            while filled <= held + AFTER && !eof {
                let room = (filled + self.sizes.read).min(self.buf.len());
                debug_assert!(room > filled, "no room to read into");
                match input.read(&mut self.buf[filled..room]) {
                    Ok(0) => eof = true,
                    Ok(n) => {
                        self.sizes.trace(format_args!("read {n}"));
                        filled += n;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            let feed = if eof { filled } else { filled - AFTER };
            let block = &self.buf[..filled];
            let start = seen.fed;
            let mut lookup = StreamBytes {
                seen: &seen,
                block,
                start,
                counted_to: 0,
                newlines: seen.newlines,
                line_start: seen.line_start,
            };
            run.feed(&block[..feed], start, &mut lookup, on_error)?;
            if !run.going() {
                return Ok(false);
            }
            if eof {
                return run.finish(&mut lookup, on_error);
            }
            seen.advance(&block[..feed]);
            self.buf.copy_within(feed..filled, 0);
            held = filled - feed;
        }
    }
}

/// Scans a regular file of `len` bytes whose first `checked` bytes are known to be
/// well-formed (0, or all of them), mapped `sizes.window` bytes at a time, and then
/// what was added to it meanwhile. `Ok(None)` when nothing could be mapped (the
/// caller then reads it); an error when it lost bytes while it was checked.
fn scan_mapped(
    file: &File,
    checked: u64,
    len: u64,
    sizes: Sizes,
    opts: Options,
    on_error: &mut OnError<'_>,
) -> io::Result<Option<bool>> {
    // A well-formed beginning ends on a character boundary: a new stream goes on
    // from there.
    let mut run = Run::new(opts, checked);
    let mut lookup = FileBytes {
        file,
        len,
        window: sizes.window,
        newlines: 0,
        line_start: 0,
        counted_to: 0,
    };
    let (mut checked, mut mapped_any) = (checked, false);
    loop {
        for window in windows(file, checked, lookup.len, sizes.window) {
            let (start, window) = match window {
                Ok(window) => window,
                Err(_) if !mapped_any => return Ok(None),
                Err(e) => return Err(e),
            };
            mapped_any = true;
            sizes.trace(format_args!("window {start} {}", window.len()));
            run.feed(&window, start, &mut lookup, on_error)?;
            if !run.going() {
                return Ok(Some(false));
            }
        }
        checked = lookup.len;
        // The size it had when it was measured is not the size it has now when
        // another process writes to it.
        let Some(grown) = measured_again(checked, file.metadata()?.len())? else {
            break;
        };
        sizes.trace(format_args!("grew to {grown}"));
        lookup.len = grown;
    }
    run.finish(&mut lookup, on_error).map(Some)
}

/// What the size of a regular file, measured again (`now`) after its first
/// `checked` bytes were checked, says: `None` when it is the same, `Some(now)` when
/// it grew (the bytes added are checked next, as a reader to its end would check
/// them), an error when it shrank (the bytes checked are no longer the file's).
fn measured_again(checked: u64, now: u64) -> io::Result<Option<u64>> {
    match now.cmp(&checked) {
        std::cmp::Ordering::Equal => Ok(None),
        std::cmp::Ordering::Greater => Ok(Some(now)),
        std::cmp::Ordering::Less => Err(io::Error::other(crate::shrink::MESSAGE)),
    }
}

/// The bytes around an error and its position, as each kind of input can give them.
trait Lookup {
    /// The bytes `[from, to)` (absolute offsets; fewer where the input holds fewer).
    fn bytes(&mut self, from: u64, to: u64) -> io::Result<Vec<u8>>;
    /// Newlines before `byte`, and the offset of the first byte of its line.
    fn line_of(&mut self, byte: u64) -> io::Result<(u64, u64)>;
}

/// The checking of one input, block after block: the stream and what it found.
struct Run {
    opts: Options,
    stream: Stream,
    /// Absolute offset of the first byte the current stream was fed (it restarts
    /// after each error with `--all`).
    base: u64,
    valid: bool,
}

impl Run {
    /// The checking of an input from its byte `base` on (a character boundary).
    fn new(opts: Options, base: u64) -> Run {
        Run {
            opts,
            stream: Stream::new(),
            base,
            valid: true,
        }
    }

    /// False once the first error was found without `--all`: nothing more is fed.
    fn going(&self) -> bool {
        self.valid || self.opts.all
    }

    /// Feeds `block`, whose first byte is at absolute offset `start`, reporting every
    /// error found in it (or the first one).
    fn feed(
        &mut self,
        block: &[u8],
        start: u64,
        lookup: &mut dyn Lookup,
        on_error: &mut OnError<'_>,
    ) -> io::Result<()> {
        let mut from = 0usize;
        while self.going() && !self.stream.feed(block.get(from..).unwrap_or_default()) {
            let Err(e) = self.stream.finish() else {
                break;
            };
            self.report(e, lookup, on_error)?;
            if self.going() {
                // Resume after the maximal subpart, which ends in this block (the
                // carried bytes before the block were a well-formed prefix that it
                // takes in whole).
                let resume = self.base + (e.valid_up_to() + e.subpart_len()) as u64;
                self.stream = Stream::new();
                self.base = resume;
                from = resume.saturating_sub(start) as usize;
            }
        }
        Ok(())
    }

    /// At the end of the input: reports a sequence it cuts short, and answers
    /// whether the input was valid.
    fn finish(&mut self, lookup: &mut dyn Lookup, on_error: &mut OnError<'_>) -> io::Result<bool> {
        if self.going() {
            if let Err(e) = self.stream.finish() {
                self.report(e, lookup, on_error)?;
            }
        }
        Ok(self.valid)
    }

    fn report(
        &mut self,
        e: Utf8Error,
        lookup: &mut dyn Lookup,
        on_error: &mut OnError<'_>,
    ) -> io::Result<()> {
        let byte = self.base + e.valid_up_to() as u64;
        let from = byte.saturating_sub(BEFORE as u64);
        let context = lookup.bytes(from, byte + AFTER.max(e.subpart_len()) as u64)?;
        let (line, column) = if self.opts.positions {
            let (newlines, line_start) = lookup.line_of(byte)?;
            (newlines + 1, byte - line_start + 1)
        } else {
            (0, 0)
        };
        self.valid = false;
        on_error(&Found {
            byte,
            length: e.subpart_len(),
            kind: e.kind(),
            line,
            column,
            context,
            context_at: (byte - from) as usize,
        })
    }
}

/// A mapped file: bytes read back with `pread`, lines counted on demand over mapped
/// windows, from where the last count stopped.
struct FileBytes<'a> {
    file: &'a File,
    len: u64,
    /// Bytes mapped at a time to count lines.
    window: usize,
    newlines: u64,
    line_start: u64,
    counted_to: u64,
}

impl Lookup for FileBytes<'_> {
    fn bytes(&mut self, from: u64, to: u64) -> io::Result<Vec<u8>> {
        let to = to.min(self.len);
        let mut out = vec![0; to.saturating_sub(from) as usize];
        read_at(self.file, &mut out, from)?;
        Ok(out)
    }

    fn line_of(&mut self, byte: u64) -> io::Result<(u64, u64)> {
        for window in windows(self.file, self.counted_to, byte, self.window) {
            let (start, window) = window?;
            count_lines(&window, start, &mut self.newlines, &mut self.line_start);
            self.counted_to = start + window.len() as u64;
        }
        Ok((self.newlines, self.line_start))
    }
}

/// Adds the newlines of `bytes` (whose first byte is at `start`) to `newlines`, and
/// moves `line_start` after the last one.
fn count_lines(bytes: &[u8], start: u64, newlines: &mut u64, line_start: &mut u64) {
    *newlines += bytecount::count(bytes, b'\n') as u64;
    if let Some(i) = memchr::memrchr(b'\n', bytes) {
        *line_start = start + i as u64 + 1;
    }
}

/// What a stream has already gone by: the count of bytes fed, lines counted over
/// them (when positions are on), and the last few bytes, for a dump.
struct Seen {
    positions: bool,
    fed: u64,
    newlines: u64,
    line_start: u64,
    /// The last [`TAIL`] bytes fed (fewer at the start), oldest first.
    tail: Vec<u8>,
}

impl Seen {
    fn new(positions: bool) -> Seen {
        Seen {
            positions,
            fed: 0,
            newlines: 0,
            line_start: 0,
            tail: Vec::with_capacity(TAIL),
        }
    }

    /// Accounts for `block`, just fed.
    fn advance(&mut self, block: &[u8]) {
        if self.positions {
            count_lines(block, self.fed, &mut self.newlines, &mut self.line_start);
        }
        let keep = block.len().min(TAIL);
        let drop = (self.tail.len() + keep).saturating_sub(TAIL);
        self.tail.drain(..drop);
        self.tail.extend_from_slice(&block[block.len() - keep..]);
        self.fed += block.len() as u64;
    }
}

/// A stream's bytes around an error in the block at `start`: the last bytes before
/// the block, and the block itself (with the bytes held back after what was fed);
/// and lines counted over the block up to the last error asked about.
struct StreamBytes<'a> {
    seen: &'a Seen,
    block: &'a [u8],
    start: u64,
    /// Bytes of the block counted so far (errors come in order).
    counted_to: usize,
    newlines: u64,
    line_start: u64,
}

impl Lookup for StreamBytes<'_> {
    fn bytes(&mut self, from: u64, to: u64) -> io::Result<Vec<u8>> {
        let tail_start = self.start - self.seen.tail.len() as u64;
        let mut out = Vec::with_capacity(to.saturating_sub(from) as usize);
        for at in from.max(tail_start)..to.min(self.start + self.block.len() as u64) {
            out.push(if at < self.start {
                self.seen.tail[(at - tail_start) as usize]
            } else {
                self.block[(at - self.start) as usize]
            });
        }
        Ok(out)
    }

    fn line_of(&mut self, byte: u64) -> io::Result<(u64, u64)> {
        let upto = (byte.saturating_sub(self.start) as usize).min(self.block.len());
        if upto > self.counted_to {
            let part = &self.block[self.counted_to..upto];
            let at = self.start + self.counted_to as u64;
            count_lines(part, at, &mut self.newlines, &mut self.line_start);
            self.counted_to = upto;
        }
        Ok((self.newlines, self.line_start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_measured_again_is_the_same_grown_or_shrunk() {
        assert_eq!(measured_again(10, 10).unwrap(), None);
        assert_eq!(measured_again(10, 11).unwrap(), Some(11));
        assert_eq!(measured_again(0, 1 << 40).unwrap(), Some(1 << 40));
        let shrunk = measured_again(10, 9).unwrap_err();
        assert_eq!(shrunk.to_string(), crate::shrink::MESSAGE);
        assert!(measured_again(1, 0).is_err());
    }
}
