//! Streaming scan of one input: the library on blocks, positions counted on the side.
//!
//! The input is read in blocks of [`BLOCK`] bytes into one buffer that is reused for
//! the whole input (and across inputs), so memory use does not depend on the input's
//! size, and pipes, terminals and `/dev/stdin` work like regular files.
//!
//! Each block is given to [`utf8validate_core::check`]. Until the end of the input is
//! known, the last [`TAIL`] bytes of the buffer are held back and scanned with the
//! next block, for two reasons: a sequence cut by the block end (at most 3 bytes) must
//! be judged with the bytes that complete it, and the hex dump of `-v` wants up to
//! [`AFTER`] bytes after an error. A [`ErrorKind::Truncated`] error before the end of
//! the input therefore only means "continue at this lead byte with more data"; every
//! other error is final, because the bytes that decide it lie inside the block.
//!
//! Line and column are needed only at an error, but the scan cannot go back, so for
//! every valid stretch it keeps two numbers: how many newlines it held
//! ([`bytecount`]) and where the last one was ([`memchr::memrchr`]). Both run at many
//! bytes per cycle, and are skipped entirely when no position is printed (`-q`, `-l`,
//! `-i`).

use std::io::{self, Read};

use utf8validate_core::{check, ErrorKind};

/// Bytes read per block.
pub const BLOCK: usize = 256 * 1024;
/// Bytes of context kept before an error for the hex dump (as `isutf8 -v`).
pub const BEFORE: usize = 8;
/// Bytes of context shown from the first byte of an error on (as `isutf8 -v`).
pub const AFTER: usize = 8;
/// Bytes held back from the end of a block until more data or the end is known:
/// at least 3 (the longest incomplete sequence) and at least [`AFTER`].
const TAIL: usize = 16;
/// Size of the one buffer: a block, plus what is carried over from the last one
/// (held-back tail, a cut sequence, the context before the next scan position).
const BUFFER: usize = BLOCK + TAIL + BEFORE + 4;

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

/// Reusable state for scanning inputs: the block buffer.
pub struct Scanner {
    buf: Vec<u8>,
}

impl Scanner {
    /// A scanner with its buffer allocated once.
    pub fn new() -> Scanner {
        Scanner {
            buf: vec![0; BUFFER],
        }
    }

    /// Scans `input` to its end (or to its first error unless `opts.all`), calling
    /// `on_error` for every ill-formed sequence in order. Returns whether the input is
    /// valid. Read errors are returned as they are; `on_error` errors (output
    /// failures) too.
    pub fn scan(
        &mut self,
        input: &mut dyn Read,
        opts: Options,
        on_error: &mut dyn FnMut(&Found) -> io::Result<()>,
    ) -> io::Result<bool> {
        let buf = &mut self.buf[..];
        let mut pos = Position::new(opts.positions);
        let mut valid = true;
        // buf[..filled] holds data; buf[at..filled] is not scanned yet; buf[0] is at
        // absolute offset `base`.
        let mut filled = 0usize;
        let mut at = 0usize;
        let mut base = 0u64;
        let mut eof = false;
        loop {
            while !eof && filled < buf.len() {
                match input.read(&mut buf[filled..]) {
                    Ok(0) => eof = true,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            // Not at the end: the buffer is full, and BUFFER > TAIL.
            let end = if eof { filled } else { filled - TAIL };
            while at < end {
                match check(&buf[at..end]) {
                    Ok(()) => {
                        pos.advance(base, buf, at, end);
                        at = end;
                    }
                    Err(e) if e.kind == ErrorKind::Truncated && !eof => {
                        // Cut by the held-back boundary, not by the end of the input:
                        // judge this sequence again with the next block.
                        pos.advance(base, buf, at, at + e.offset);
                        at += e.offset;
                        break;
                    }
                    Err(e) => {
                        let start = at + e.offset;
                        pos.advance(base, buf, at, start);
                        let from = start - start.min(BEFORE);
                        let to = filled.min(start + AFTER.max(e.length));
                        let byte = base + start as u64;
                        let found = Found {
                            byte,
                            length: e.length,
                            kind: e.kind,
                            line: pos.line(),
                            column: pos.column(byte),
                            context: buf[from..to].to_vec(),
                            context_at: start - from,
                        };
                        valid = false;
                        on_error(&found)?;
                        if !opts.all {
                            return Ok(false);
                        }
                        // Resynchronise after the maximal subpart (no newline in it:
                        // all its bytes are 80-FF).
                        let next = (start + e.length).min(end);
                        pos.advance(base, buf, start, next);
                        at = next;
                    }
                }
            }
            if eof {
                return Ok(valid);
            }
            // Keep the unscanned bytes and up to BEFORE bytes of context before them.
            let keep = at - at.min(BEFORE);
            buf.copy_within(keep..filled, 0);
            base += keep as u64;
            filled -= keep;
            at -= keep;
        }
    }
}

/// Line and column bookkeeping over the scanned (valid) stretches.
struct Position {
    enabled: bool,
    /// Newlines seen so far.
    newlines: u64,
    /// Absolute offset of the first byte of the current line.
    line_start: u64,
}

impl Position {
    fn new(enabled: bool) -> Position {
        Position {
            enabled,
            newlines: 0,
            line_start: 0,
        }
    }

    /// Accounts for `buf[from..to]`, whose first byte is at `base + from`.
    #[inline]
    fn advance(&mut self, base: u64, buf: &[u8], from: usize, to: usize) {
        if !self.enabled || from >= to {
            return;
        }
        let stretch = &buf[from..to];
        self.newlines += bytecount::count(stretch, b'\n') as u64;
        if let Some(i) = memchr::memrchr(b'\n', stretch) {
            self.line_start = base + (from + i + 1) as u64;
        }
    }

    fn line(&self) -> u64 {
        if self.enabled {
            self.newlines + 1
        } else {
            0
        }
    }

    fn column(&self, byte: u64) -> u64 {
        if self.enabled {
            byte - self.line_start + 1
        } else {
            0
        }
    }
}
