//! Checking data that arrives in pieces, with the same detail as [`crate::check`]:
//! the absolute offset, kind and maximal-subpart length of the first error of the
//! whole stream, however it was split.
//!
//! A [`Stream`] is a small, caller-owned value (no heap). It remembers how many bytes
//! came before the current sequence, the at most 3 bytes of a sequence that a piece
//! ended inside, and the first error once one is seen. Each piece is checked as
//! [`crate::validate_chunk`] checks it (the same mechanism), from the state the
//! carried bytes leave, in one call to the fast validator; only a piece that holds
//! an error is looked at again, to find that error exactly.
//!
//! ```
//! use utf8validate_core::{ErrorKind, Stream, Utf8Error};
//! let mut s = Stream::new();
//! assert!(s.feed(b"caf\xC3"));          // ends inside the 2-byte 'é'
//! assert!(s.feed(b"\xA9 ok \xED"));     // completes it; ED pending
//! assert!(!s.feed(b"\xA0\x80 more"));   // ED A0: a surrogate, at byte 9
//! assert!(!s.feed(b"ignored"));          // after an error, pieces are not read
//! assert_eq!(
//!     s.finish(),
//!     Err(Utf8Error { offset: 9, length: 1, kind: ErrorKind::Surrogate })
//! );
//! ```

use crate::diagnostics::{describe_sequence, ErrorKind, Utf8Error};
use crate::hint::cold_path;
use crate::sequence::{is_lead, open_state, sequence_length};
use crate::state_machine::{run, State};

/// Incremental checker for UTF-8 (RFC 3629 §4; Unicode §3.9) that arrives in
/// pieces; in C, `utf8_stream` with `utf8_stream_init`, `utf8_stream_feed` and
/// `utf8_stream_finish`. Feed the pieces in order; finishing then gives exactly what
/// a one-shot check (`utf8_check`; in Rust `check`) gives for their concatenation:
/// absolute offset, kind and maximal-subpart length of the first error, including
/// `UTF8_ERROR_TRUNCATED` when the data ends inside a sequence. In Rust:
/// `Stream::new`, `Stream::feed`, `Stream::finish`.
///
/// The caller allocates it (on the stack, inside its own structs); it holds no
/// pointers and owns no heap memory, so it needs no cleanup and can be copied (the
/// copy continues independently). Its fields are an implementation detail: do not
/// read or write them. Its size and alignment are part of the ABI: three `size_t`
/// and eight bytes (32 bytes on 64-bit targets, 20 on 32-bit ones), of which a
/// byte and a `size_t` are reserved for future versions. The all-zero value is the
/// initial state. Offsets saturate at `SIZE_MAX` (only reachable on 32-bit targets,
/// after 4 GiB).
///
/// Thread safety: a stream is plain data. Different streams can be used from
/// different threads at once; one stream must not be fed from two threads at once.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stream {
    /// Private. Bytes accepted before the pending sequence: the absolute offset of
    /// `pending[0]` (saturates at `SIZE_MAX`).
    consumed: usize,
    /// Private. Once `failed` is set, the absolute offset of the first error.
    error_offset: usize,
    /// Private. The bytes of the sequence the last chunk ended inside.
    pending: [u8; 3],
    /// Private. How many bytes of `pending` are in use (0-3).
    pending_len: u8,
    /// Private. 1 once an ill-formed sequence was seen, else 0.
    failed: u8,
    /// Private. Once `failed` is set, the maximal-subpart length of the first error.
    error_length: u8,
    /// Private. Once `failed` is set, the `utf8_error_kind` of the first error.
    error_kind: u8,
    /// Reserved for future versions; zero.
    reserved_byte: u8,
    /// Reserved for future versions; zero.
    reserved: usize,
}

// The layout promised above (and relied on by C code compiled against the header).
const _: () = assert!(
    core::mem::size_of::<Stream>() == 3 * core::mem::size_of::<usize>() + 8
        && core::mem::align_of::<Stream>() == core::mem::align_of::<usize>()
);

/// `a` followed by `b`, as the first `n` bytes of the array (at most 6 in all).
fn joined(a: &[u8], b: &[u8]) -> ([u8; 6], usize) {
    let mut seq = [0u8; 6];
    let mut n = 0;
    for (slot, &byte) in seq.iter_mut().zip(a.iter().chain(b)) {
        *slot = byte;
        n += 1;
    }
    (seq, n)
}

impl Stream {
    /// A stream at the start of its input (the all-zero value).
    pub const fn new() -> Stream {
        Stream {
            consumed: 0,
            error_offset: 0,
            pending: [0; 3],
            pending_len: 0,
            failed: 0,
            error_length: 0,
            error_kind: 0,
            reserved_byte: 0,
            reserved: 0,
        }
    }

    /// Feeds the next piece of the input; returns `false` once an ill-formed
    /// sequence has been seen (in this piece or an earlier one), `true` while the
    /// input so far is well-formed or ends inside a sequence that may still be
    /// completed.
    ///
    /// After an error, further pieces are ignored (cheaply: not even read), and
    /// [`finish`](Self::finish) reports the first error. An empty piece changes
    /// nothing. Allocation-free; reads only `bytes`.
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        if self.failed != 0 {
            return false;
        }
        let held = self.held();
        // The check itself is the one of data in pieces (`validate_chunk`), from the
        // state the carried bytes leave; the stream only keeps the count and the
        // bytes of the sequence left open.
        match crate::dispatch::validate_chunk(self.carried_state(), bytes) {
            State::Start => {
                self.consumed = self.consumed.saturating_add(held + bytes.len());
                self.pending_len = 0;
                true
            }
            State::Error => {
                // Rare: find the first error exactly, with its offset and detail.
                cold_path();
                self.feed_exactly(bytes)
            }
            _ => {
                self.hold_open_sequence(bytes, held);
                true
            }
        }
    }

    /// How many bytes of `pending` are in use (0-3).
    #[inline(always)]
    fn held(&self) -> usize {
        usize::from(self.pending_len).min(self.pending.len())
    }

    /// The draft machine's state after the carried bytes (START when there are
    /// none), read off them as the state at the end of a piece is (the carried bytes
    /// are a well-formed proper prefix of one sequence).
    #[inline(always)]
    fn carried_state(&self) -> State {
        let [a, b, c] = self.pending;
        // Right-aligned, after zeros (ASCII).
        let last = match self.held() {
            0 => return State::Start,
            1 => [0, 0, a],
            2 => [0, a, b],
            _ => [a, b, c],
        };
        open_state(&last)
    }

    /// After a piece that leaves a sequence open: holds the bytes of that sequence
    /// (1-3, from its lead byte: the last lead byte among the last three bytes fed,
    /// carried ones included) and counts the bytes before it.
    #[inline(always)]
    fn hold_open_sequence(&mut self, bytes: &[u8], held: usize) {
        let Some(&[b3, b2, b1]) = bytes.last_chunk::<3>() else {
            // A piece of 1-2 bytes: the sequence may have begun in the carried bytes.
            return self.hold_open_sequence_short(bytes, held);
        };
        let seq = if is_lead(b1) {
            [b1, 0, 0]
        } else if is_lead(b2) {
            [b2, b1, 0]
        } else {
            [b3, b2, b1]
        };
        let open = if is_lead(b1) {
            1
        } else if is_lead(b2) {
            2
        } else {
            3
        };
        self.consumed = self.consumed.saturating_add(held + bytes.len() - open);
        self.pending = seq;
        self.pending_len = open as u8;
    }

    /// [`hold_open_sequence`](Self::hold_open_sequence) for a piece shorter than 3
    /// bytes: the open sequence is the carried bytes and the piece, from the last lead
    /// byte among their last three.
    #[cold]
    fn hold_open_sequence_short(&mut self, bytes: &[u8], held: usize) {
        let carried = self.pending.get(..held).unwrap_or_default();
        let (all, n) = joined(carried, bytes);
        let last = all.get(n.saturating_sub(3)..n).unwrap_or_default();
        let from = last.iter().rposition(|&b| is_lead(b)).unwrap_or(0);
        let seq = last.get(from..).unwrap_or_default();
        self.consumed = self.consumed.saturating_add(n - seq.len());
        self.set_pending(seq);
    }

    /// [`feed`](Self::feed) for a piece that holds an ill-formed sequence (or ends one
    /// the carried bytes started): finds the first error exactly, with the offset,
    /// kind and maximal-subpart length [`crate::check`] gives. Returns the verdict.
    #[cold]
    #[inline(never)]
    fn feed_exactly(&mut self, bytes: &[u8]) -> bool {
        let rest = match self.complete_pending(bytes) {
            Some(rest) => rest,
            None => return self.failed == 0,
        };
        // `rest` starts on a character boundary at absolute offset `consumed`. Its
        // first error, as `first_error` reports it, is either ill-formed or (at the
        // end only) a sequence the piece cuts short, which the next piece may finish.
        let Some(offset) = crate::dispatch::first_error(rest) else {
            self.consumed = self.consumed.saturating_add(rest.len());
            return true;
        };
        let tail = rest.get(offset..).unwrap_or(&[]);
        match describe_sequence(tail, false) {
            Some(error) => {
                self.fail(error.at(self.consumed.saturating_add(offset)));
                false
            }
            None => {
                // Cut short by the end of the piece: a proper prefix of one
                // sequence, 1-3 bytes, carried to the next piece.
                self.consumed = self.consumed.saturating_add(offset);
                self.set_pending(tail);
                true
            }
        }
    }

    /// Continues the carried sequence (if any) with the first bytes of `bytes`.
    /// Returns the bytes after it, or `None` when `bytes` is used up (the sequence
    /// is still incomplete) or the sequence turned out ill-formed (then the stream
    /// has failed).
    fn complete_pending<'a>(&mut self, bytes: &'a [u8]) -> Option<&'a [u8]> {
        let held = self.held();
        if held == 0 {
            return Some(bytes);
        }
        // The carried bytes are a proper prefix of one sequence; it needs as many
        // more bytes as its lead byte says it has, less those. The machine then runs
        // over the whole sequence and decides.
        let carried = self.pending.get(..held).unwrap_or_default();
        let [lead, ..] = self.pending;
        let length = sequence_length(lead);
        let needed = length.saturating_sub(held).min(bytes.len());
        let (more, rest) = bytes.split_at_checked(needed).unwrap_or((bytes, &[]));
        match run(run(State::Start, carried), more) {
            State::Start => {
                self.consumed = self.consumed.saturating_add(held + more.len());
                self.pending_len = 0;
                Some(rest)
            }
            State::Error => {
                let (seq, n) = joined(carried, more);
                let fallback = Utf8Error {
                    offset: 0,
                    length: 1,
                    kind: ErrorKind::InvalidByte,
                };
                let error =
                    describe_sequence(seq.get(..n).unwrap_or_default(), false).unwrap_or(fallback);
                self.fail(error.at(self.consumed));
                None
            }
            _ => {
                // `bytes` ran out first (`more` is all of it): still a proper
                // prefix of one sequence, so at most 3 bytes.
                let (seq, n) = joined(carried, more);
                self.set_pending(seq.get(..n).unwrap_or_default());
                None
            }
        }
    }

    /// Holds `seq` (at most 3 bytes; the rest of the array zero) as the sequence
    /// carried to the next piece.
    fn set_pending(&mut self, seq: &[u8]) {
        let byte = |i: usize| seq.get(i).copied().unwrap_or(0);
        self.pending = [byte(0), byte(1), byte(2)];
        self.pending_len = seq.len().min(self.pending.len()) as u8;
    }

    fn fail(&mut self, error: Utf8Error) {
        self.failed = 1;
        self.error_offset = error.offset;
        self.error_length = error.length.min(usize::from(u8::MAX)) as u8;
        self.error_kind = error.kind as u8;
        self.pending_len = 0;
    }

    /// Records that bytes the caller meant to feed could not be read (the C ABI's
    /// `NULL` buffer with a non-zero length): an error of length 0 and kind
    /// [`ErrorKind::InvalidByte`] at the start of the current sequence. For the C
    /// library; not part of the Rust API.
    #[doc(hidden)]
    pub fn fail_unreadable(&mut self) {
        if self.failed == 0 {
            self.fail(Utf8Error {
                offset: self.consumed,
                length: 0,
                kind: ErrorKind::InvalidByte,
            });
        }
    }

    /// The verdict for everything fed so far, taken as the whole input: exactly
    /// [`crate::check`] on the concatenation of the pieces.
    ///
    /// `Err` carries the absolute offset (from the first byte of the first piece),
    /// the maximal-subpart length and the kind of the first ill-formed sequence;
    /// [`ErrorKind::Truncated`] when the input ends inside a sequence (length: the
    /// 1-3 bytes from its lead byte to the end).
    ///
    /// Does not change the stream: feeding more and finishing again gives the
    /// verdict for the longer input. Use [`Stream::new`] (or `reset`) to start a new
    /// input.
    pub fn finish(&self) -> Result<(), Utf8Error> {
        if self.failed != 0 {
            return Err(Utf8Error {
                offset: self.error_offset,
                length: usize::from(self.error_length),
                kind: ErrorKind::from_raw(u32::from(self.error_kind))
                    .unwrap_or(ErrorKind::InvalidByte),
            });
        }
        let held = usize::from(self.pending_len).min(self.pending.len());
        if held > 0 {
            return Err(Utf8Error {
                offset: self.consumed,
                length: held,
                kind: ErrorKind::Truncated,
            });
        }
        Ok(())
    }

    /// The number of bytes fed so far, up to the first error: the total length
    /// while the input is well-formed or ends inside a sequence; once an error was
    /// seen, its offset (later bytes are not counted). Saturates at `usize::MAX`.
    pub fn position(&self) -> usize {
        if self.failed != 0 {
            self.error_offset
        } else {
            self.consumed
                .saturating_add(usize::from(self.pending_len).min(self.pending.len()))
        }
    }

    /// Starts over: the stream becomes [`Stream::new`].
    pub fn reset(&mut self) {
        *self = Stream::new();
    }
}
