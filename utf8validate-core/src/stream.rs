//! Checking data that arrives in chunks, with the same detail as [`crate::check`]:
//! the absolute offset, kind and maximal-subpart length of the first error of the
//! whole stream, however it was split.
//!
//! A [`Stream`] is a small, caller-owned value (no heap). It remembers how many bytes
//! it was fed, the last three of them (which hold the lead byte of a sequence the
//! input so far ends inside), the draft machine's state after them, and the first
//! error once one is seen. Each chunk is checked as [`crate::validate_chunk`] checks
//! it (the same mechanism), from the carried state: the same answers inline, and
//! for the rest a jump to the back end's hand-off: the same check, then the
//! bookkeeping, which this module compiles into each back end after its check (its
//! `ChunkEnd` for `crate::chunk::HandOff`); the back ends know the stream only as a
//! pointer. The bookkeeping is the same whether the chunk ends on a character
//! boundary or inside a sequence (for text in chunks, a coin toss that a branch
//! would mispredict). Only a chunk that holds an error is looked at again, to find
//! that error exactly; only an error or the end needs to know where the open
//! sequence starts.
//!
//! ```
//! use utf8validate_core::{ErrorKind, Stream};
//! let mut s = Stream::new();
//! assert!(s.feed(b"caf\xC3"));          // ends inside the 2-byte 'é'
//! assert!(s.feed(b"\xA9 ok \xED"));     // completes it; ED pending
//! assert!(!s.feed(b"\xA0\x80 more"));   // ED A0: a surrogate, at byte 9
//! assert!(!s.feed(b"ignored"));          // after an error, chunks are not read
//! let e = s.finish().unwrap_err();
//! assert_eq!((e.valid_up_to(), e.error_len()), (9, Some(1)));
//! assert_eq!(e.kind(), ErrorKind::Surrogate);
//! ```

use core::ffi::c_void;

use crate::chunk::{scalar_hand_off, ChunkEnd, HandOff};
use crate::diagnostics::{describe_sequence, ErrorKind, Utf8Error};
use crate::dispatch::backends::Backend;
use crate::hint::cold_path;
use crate::sequence::{is_lead, sequence_length};
use crate::state_machine::{run, State};

/// Incremental checker for UTF-8 (RFC 3629 §4; Unicode §3.9) that arrives in
/// chunks; in C, `utf8_stream` with `utf8_stream_init`, `utf8_stream_feed` and
/// `utf8_stream_finish`. Feed the chunks in order; finishing then gives exactly what
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stream {
    /// Private. Bytes fed so far, up to the first error (saturates at `SIZE_MAX`).
    fed: usize,
    /// Private. Once `failed` is set, the absolute offset of the first error.
    error_offset: usize,
    /// Private. In its low 8 bits, the draft machine's state after the bytes fed
    /// (a `utf8_state`; START on a character boundary); above them, the last
    /// three bytes fed, the last one highest (zeros stand for bytes before the
    /// first), which hold the lead byte of the sequence the input so far ends
    /// inside, if any. On a character boundary they are not needed, and may be
    /// zeros instead. One field, so that a chunk writes it with one store. Once
    /// `failed` is set, ERROR.
    end: u32,
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

/// `a` followed by `b`, in an array (at most 6 bytes are ever joined) and its length.
fn joined(a: &[u8], b: &[u8]) -> ([u8; 6], usize) {
    let mut seq = [0u8; 6];
    let mut n = 0;
    for (slot, &byte) in seq.iter_mut().zip(a.iter().chain(b)) {
        *slot = byte;
        n += 1;
    }
    (seq, n)
}

/// `fed + len`, the count of bytes fed after a chunk. On 32-bit targets it
/// saturates at `usize::MAX` (4 GiB can be fed); a 64-bit count cannot overflow for
/// any input that can be fed (2^64 bytes), so there it is a plain addition, which
/// wraps only for a count a C caller wrote over.
#[inline(always)]
fn counted(fed: usize, len: usize) -> usize {
    if cfg!(target_pointer_width = "64") {
        fed.wrapping_add(len)
    } else {
        fed.saturating_add(len)
    }
}

/// The last three bytes of `last` followed by `bytes`.
#[inline(always)]
fn last_three(last: [u8; 3], bytes: &[u8]) -> [u8; 3] {
    let [_, b, c] = last;
    match *bytes {
        [] => last,
        [x] => [b, c, x],
        [x, y] => [c, x, y],
        [.., x, y, z] => [x, y, z],
    }
}

impl Stream {
    /// A stream at the start of its input (the all-zero value; the same as
    /// `Stream::default()`).
    pub const fn new() -> Stream {
        Stream {
            fed: 0,
            error_offset: 0,
            end: State::Start as u32,
            failed: 0,
            error_length: 0,
            error_kind: 0,
            reserved_byte: 0,
            reserved: 0,
        }
    }

    /// Feeds the next chunk of the input; returns `false` once an ill-formed
    /// sequence has been seen (in this chunk or an earlier one), `true` while the
    /// input so far is well-formed UTF-8 (RFC 3629 §4; Unicode §3.9, Table 3-7) or
    /// ends inside a sequence that may still be completed.
    ///
    /// After an error, further chunks are ignored (cheaply: not even read), and
    /// [`finish`](Self::finish) reports the first error. An empty chunk changes
    /// nothing. Allocation-free; reads only `bytes`.
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        self.feed_with(bytes, |state, bytes, to| {
            // SAFETY: `feed_with` calls this only with what `hand_off` needs.
            unsafe { crate::dispatch::hand_off(state, bytes, to) }
        })
    }

    /// [`feed`](Self::feed), with `back_end` for the chunks that need a vector
    /// check: it is called last, with the carried state (not ERROR), a chunk of at
    /// least 3 bytes and the stream as a pointer, and must check the chunk and hand
    /// its state on with the pointer (`HandOff`'s end, below: a back end's hand-off;
    /// `crate::dispatch` gives the cached back end's, tests each back end's).
    #[inline(always)]
    fn feed_with(
        &mut self,
        bytes: &[u8],
        back_end: impl FnOnce(State, &[u8], *mut c_void) -> bool,
    ) -> bool {
        // The state's byte alone (a load wider than the last chunk's store of
        // `end` would wait for that store to reach the cache).
        if self.end as u8 >= State::Error as u8 {
            // ERROR, which a failed stream keeps (`fail`), or a value that names
            // no state (in a struct a C caller wrote over): the exact path
            // decides, and answers a failed stream at once. Tested on the stored
            // byte, so that the conversion below needs no clamp.
            cold_path();
            return self.feed_exactly(bytes);
        }
        // The ladder of data in chunks (`validate_chunk`), inline: the answers
        // without a check end in `HandOff`'s `quick` below; the others go to the
        // back end's entry for a stream, reached by a jump, which checks the
        // chunk from the carried state and keeps the count, the last bytes and
        // the state it leaves (`HandOff`'s `end`).
        back_end(self.carried_state(), bytes, (self as *mut Stream).cast())
    }

    /// The bookkeeping for a chunk whose state after it, `next`, the ladder
    /// knew without a check.
    #[inline(always)]
    fn quick(&mut self, bytes: &[u8], next: State) -> bool {
        if next == State::Error {
            // Rare: find the first error exactly, with its offset and detail.
            cold_path();
            return self.feed_exactly(bytes);
        }
        if next == State::Start {
            // Short ASCII above all: on a character boundary, where the last bytes
            // are never read (`held`), only the count and the state. (Not through
            // `checked`: that order costs short ASCII chunks an instruction.)
            self.fed = counted(self.fed, bytes.len());
            self.end = State::Start as u32;
            return true;
        }
        self.advance(bytes, next);
        true
    }

    #[inline(always)]
    fn checked(&mut self, bytes: &[u8], next: State) -> bool {
        if next == State::Error {
            cold_path();
            return self.feed_exactly(bytes);
        }
        self.advance(bytes, next);
        true
    }

    /// Counts `bytes` (well-formed after what came before, the end aside) as fed;
    /// `state` is the machine's state after them.
    #[inline(always)]
    fn advance(&mut self, bytes: &[u8], state: State) {
        self.fed = counted(self.fed, bytes.len());
        let last = match bytes.last_chunk::<4>() {
            // The chunk's last four bytes, the fourth from the end to be replaced by
            // the state: one load.
            Some(&four) => u32::from_le_bytes(four),
            None => {
                // Chunks of 0-3 bytes, which keep some of the bytes before.
                cold_path();
                let [b3, b2, b1] = last_three(self.last(), bytes);
                u32::from_le_bytes([0, b3, b2, b1])
            }
        };
        self.end = last & !0xFF | state as u32;
    }

    /// The last three bytes fed (zeros stand for bytes before the first).
    #[inline(always)]
    fn last(&self) -> [u8; 3] {
        let [_, b3, b2, b1] = self.end.to_le_bytes();
        [b3, b2, b1]
    }

    /// The draft machine's state after the bytes fed, as kept beside them. Every
    /// byte value is some state (out of range reads as ERROR, which sends the next
    /// chunk to the exact path), so even a struct a C caller scribbled on is
    /// memory-safe.
    #[inline(always)]
    fn carried_state(&self) -> State {
        State::from_raw(self.end & 0xFF)
    }

    /// How many of the last bytes fed are the sequence the input so far ends inside:
    /// none on a character boundary, else those from the last lead byte among the
    /// last three (1-3).
    fn held(&self) -> usize {
        let [_, b2, b1] = self.last();
        if self.carried_state() == State::Start {
            0
        } else if is_lead(b1) {
            1
        } else if is_lead(b2) {
            2
        } else {
            3
        }
    }

    /// The absolute offset of the last character boundary: where the sequence the
    /// input so far ends inside starts, or the end.
    fn boundary(&self) -> usize {
        self.fed.saturating_sub(self.held())
    }

    /// [`feed`](Self::feed) for a chunk that holds an ill-formed sequence (or ends one
    /// the carried bytes started): finds the first error exactly, with the offset,
    /// kind and maximal-subpart length [`crate::check`] gives. Returns the verdict:
    /// at once for a stream that has already failed, whose chunks are not read.
    #[cold]
    #[inline(never)]
    fn feed_exactly(&mut self, bytes: &[u8]) -> bool {
        if self.failed != 0 {
            return false;
        }
        let rest = match self.complete_pending(bytes) {
            Some(rest) => rest,
            None => return self.failed == 0,
        };
        // `rest` starts on a character boundary at absolute offset `fed`. Its first
        // error, as `first_error` reports it, is either ill-formed or (at the end
        // only) a sequence the chunk cuts short, which the next chunk may finish.
        let Some(offset) = crate::dispatch::first_error(rest) else {
            self.advance(rest, State::Start);
            return true;
        };
        let tail = rest.get(offset..).unwrap_or(&[]);
        match describe_sequence(tail, false) {
            Some(error) => {
                self.fail(error.at(self.fed.saturating_add(offset)));
                false
            }
            None => {
                // Cut short by the end of the chunk: a proper prefix of one
                // sequence, 1-3 bytes, carried to the next chunk.
                self.advance(rest, run(State::Start, tail));
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
        let last = self.last();
        let carried = last.get(last.len() - held..).unwrap_or_default();
        let lead = carried.first().copied().unwrap_or(0);
        let length = sequence_length(lead);
        let needed = length.saturating_sub(held).min(bytes.len());
        let (more, rest) = bytes.split_at_checked(needed).unwrap_or((bytes, &[]));
        match run(run(State::Start, carried), more) {
            State::Error => {
                let (seq, n) = joined(carried, more);
                let fallback = Utf8Error {
                    offset: 0,
                    length: 1,
                    kind: ErrorKind::InvalidByte,
                };
                let error =
                    describe_sequence(seq.get(..n).unwrap_or_default(), false).unwrap_or(fallback);
                self.fail(error.at(self.boundary()));
                None
            }
            State::Start => {
                self.advance(more, State::Start);
                Some(rest)
            }
            state => {
                // `bytes` ran out first (`more` is all of it): still a proper
                // prefix of one sequence.
                self.advance(more, state);
                None
            }
        }
    }

    /// Records `error` as the stream's first error. The state becomes ERROR, so
    /// that [`feed_with`](Self::feed_with) tests one byte, not two, before the
    /// chunks that follow (and sends them to the exact path, which answers false);
    /// the last bytes are no longer needed.
    fn fail(&mut self, error: Utf8Error) {
        self.failed = 1;
        self.end = State::Error as u32;
        self.error_offset = error.offset;
        self.error_length = error.length.min(usize::from(u8::MAX)) as u8;
        self.error_kind = error.kind as u8;
    }

    /// Records that bytes the caller meant to feed could not be read (the C ABI's
    /// `NULL` buffer with a non-zero length): an error of length 0 and kind
    /// [`ErrorKind::InvalidByte`] at the start of the current sequence. Does nothing
    /// when the stream has already failed: the first error is kept. For the C
    /// library; not part of the Rust API.
    #[doc(hidden)]
    pub fn fail_unreadable(&mut self) {
        if self.failed == 0 {
            self.fail(Utf8Error {
                offset: self.boundary(),
                length: 0,
                kind: ErrorKind::InvalidByte,
            });
        }
    }

    /// The verdict for everything fed so far, taken as the whole input: exactly
    /// [`crate::check`] on the concatenation of the chunks.
    ///
    /// `Err` carries the absolute offset (from the first byte of the first chunk),
    /// the maximal-subpart length and the kind of the first ill-formed sequence;
    /// [`ErrorKind::Truncated`] when the input ends inside a sequence (`error_len`
    /// `None`; `subpart_len` the 1-3 bytes from its lead byte to the end).
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
        match self.held() {
            0 => Ok(()),
            held => Err(Utf8Error {
                offset: self.boundary(),
                length: held,
                kind: ErrorKind::Truncated,
            }),
        }
    }

    /// The number of bytes fed so far, up to the first error: the total length
    /// while the input is well-formed or ends inside a sequence; once an error was
    /// seen, its offset (later bytes are not counted). Saturates at `usize::MAX`.
    pub fn position(&self) -> usize {
        if self.failed != 0 {
            self.error_offset
        } else {
            self.fed
        }
    }

    /// Starts over: the stream becomes [`Stream::new`].
    pub fn reset(&mut self) {
        *self = Stream::new();
    }
}

/// The stream's end of a back end's hand-off: `to` is the stream being fed (as
/// [`Stream::feed_with`] hands it to the back end), and the chunk's state goes to
/// [`Stream::checked`], compiled into each back end after its check.
impl ChunkEnd for HandOff {
    type Output = bool;

    #[inline(always)]
    fn quick(self, bytes: &[u8], next: State) -> bool {
        // SAFETY: as in `end`.
        let stream = unsafe { &mut *self.to().cast::<Stream>() };
        stream.quick(bytes, next)
    }

    #[inline(always)]
    fn end(self, bytes: &[u8], next: State) -> bool {
        // SAFETY: `HandOff::new`'s caller guarantees that `to` is the stream
        // being fed, as `feed_with` handed it to the back end, in no other use.
        let stream = unsafe { &mut *self.to().cast::<Stream>() };
        stream.checked(bytes, next)
    }

    #[inline(always)]
    unsafe fn scalar(self, state: State, bytes: &[u8]) -> bool {
        // SAFETY: the slice's own pointer and length; the caller guarantees the
        // state, and `to` is the stream, as in `end`.
        unsafe { scalar_hand_off(state, bytes.as_ptr(), bytes.len(), self.to()) }
    }
}

impl Backend {
    /// [`Stream::feed`] through this back end (short chunks included, exactly as
    /// the stream runs them): the same answer and the same stream afterwards. For
    /// tests and benchmarks, like the rest of `Backend`; defined here, beside the
    /// stream's bookkeeping, which the back ends know nothing of.
    pub fn feed(&self, stream: &mut Stream, bytes: &[u8]) -> bool {
        stream.feed_with(bytes, |state, bytes, to| {
            // SAFETY: `feed_with` gives a state other than ERROR, 3 bytes or
            // more, and the stream as `to`.
            unsafe { self.hand_off(state, bytes, to) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever a C caller left in the private bytes, feeding and finishing answer
    /// without panicking (a panic would abort the C program), and a well-formed
    /// input fed to a stream started over is valid again.
    #[test]
    fn any_private_bytes_give_an_answer() {
        let chunks: [&[u8]; 4] = [b"\x80", b"ab\xE2\x82", b"\xAC\xF0\x9F", b"\x98\x80"];
        for carried in 0..=u8::MAX {
            for last in [[0, 0, 0], [0xFF; 3], [0xE2, 0x82, 0x80], [0x80, 0xF4, 0x8F]] {
                let [b3, b2, b1] = last;
                let mut s = Stream {
                    fed: usize::MAX - 1,
                    end: u32::from_le_bytes([carried, b3, b2, b1]),
                    ..Stream::new()
                };
                for chunk in chunks {
                    s.feed(chunk);
                    let _ = s.finish();
                    let _ = s.position();
                }
                s.reset();
                assert!(chunks.iter().skip(1).all(|p| s.feed(p)));
                assert_eq!(s.finish(), Ok(()));
            }
        }
    }
}
