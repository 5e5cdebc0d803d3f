//! The last bytes of an input that arrives in pieces, for C: `utf8_tail` with
//! `utf8_tail_init`, `utf8_tail_keep` and `utf8_tail_window`, so that a server that
//! checks a request body piece by piece (`utf8_stream`) can show the bytes around
//! the first error in its log line, cut at character boundaries, though the error
//! may start in an earlier piece.

use core::ffi::c_char;

use crate::args::{error_subpart, input};
use crate::error::CUtf8Error;
use crate::excerpt::Span;
use utf8validate_core::excerpt::around_subpart_so_far;

/// The widest context `utf8_tail_window` shows on each side of an error, in bytes.
pub const UTF8_TAIL_CONTEXT_MAX: usize = 64;

/// Bytes kept: before a piece, the error may start in the up to 3 bytes of a
/// sequence the earlier pieces ended inside; the window shows up to the context
/// before that, and `around_subpart` needs 3 bytes more to see whether a cut falls
/// inside a character.
const KEPT: usize = UTF8_TAIL_CONTEXT_MAX + 8;

// The header shows the array's length as a number.
const _: () = assert!(KEPT == 72);

/// Bytes gathered for a window: the kept bytes, then at most a maximal subpart (3
/// bytes), the context and 3 bytes after it, from the piece.
const GATHERED: usize = KEPT + 3 + UTF8_TAIL_CONTEXT_MAX + 3;

/// The last bytes of an input fed in pieces (a request body read from a socket),
/// and how many bytes were fed: what `utf8_tail_window` needs to show the bytes
/// around an error that `utf8_stream` found in a later piece (RFC 3629 section 4;
/// maximal subparts as Unicode section 3.9 defines them).
///
/// The caller allocates it (on the stack, inside its own structs); it holds no
/// pointers and owns no heap memory. Its fields are private. The all-zero value is
/// the empty input (`utf8_tail_init`). Thread safety: plain data, as `utf8_stream`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tail {
    /// Private. Bytes fed so far (saturates at `SIZE_MAX`).
    fed: usize,
    /// Private. How many of `bytes` hold the last bytes fed (at most 72).
    len: usize,
    /// Private. The last bytes fed, oldest first.
    bytes: [u8; 72],
}

impl Tail {
    /// The kept bytes (none for a struct a C caller wrote over).
    fn kept(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }

    /// Keeps the last `KEPT` bytes of the kept bytes followed by `piece`.
    fn keep(&mut self, piece: &[u8]) {
        self.fed = self.fed.saturating_add(piece.len());
        let from_piece = piece.len().min(KEPT);
        let from_kept = self.kept().len().min(KEPT - from_piece);
        self.bytes.copy_within(self.len - from_kept..self.len, 0);
        let new = piece.get(piece.len() - from_piece..).unwrap_or(&[]);
        if let Some(slot) = self.bytes.get_mut(from_kept..from_kept + from_piece) {
            slot.copy_from_slice(new);
        }
        self.len = from_kept + from_piece;
    }

    /// The window around `subpart` (absolute offsets) in the kept bytes followed by
    /// `piece`, `context` bytes on each side at most: its absolute range, and its
    /// bytes in `out` (at most `GATHERED`).
    fn window(
        &self,
        piece: &[u8],
        subpart: (usize, usize),
        context: usize,
        out: &mut [u8; GATHERED],
    ) -> Span {
        let kept = self.kept();
        let start = self.fed.saturating_sub(kept.len());
        let end = self.fed.saturating_add(piece.len());
        let (offset, length) = subpart;
        let empty = |at: usize| Span {
            start: at.min(end),
            end: at.min(end),
        };
        if offset < start || offset > end || length > end - offset {
            return empty(offset);
        }
        // From `context` + 3 bytes before the subpart (or the first byte kept) to
        // as many after it (or the end of the piece).
        let lo = offset.saturating_sub(context + 3).max(start);
        let hi = (offset + length)
            .saturating_add(context + 3)
            .min(end)
            .min(lo + GATHERED);
        // The bytes lo..hi: those of them kept, then those of the piece.
        let from_kept = kept.get(lo - start..).unwrap_or(&[]);
        let from_kept = from_kept.get(..hi - lo).unwrap_or(from_kept);
        let from_piece = piece
            .get(lo.max(self.fed) - self.fed..hi.max(self.fed) - self.fed)
            .unwrap_or(&[]);
        let n = from_kept.len() + from_piece.len();
        if let Some((a, b)) = out.get_mut(..n).map(|o| o.split_at_mut(from_kept.len())) {
            a.copy_from_slice(from_kept);
            b.copy_from_slice(from_piece);
        }
        let gathered = out.get(..n).unwrap_or(&[]);
        let local = offset - lo;
        let cut = around_subpart_so_far(gathered, local..local + length, context);
        out.copy_within(cut.clone(), 0);
        Span {
            start: lo + cut.start,
            end: lo + cut.end,
        }
    }
}

/// Sets `*t` to the empty input (all zeros). `t == NULL` does nothing.
///
/// # Safety
/// Unless it is NULL, `t` must point to a writable `utf8_tail`.
#[no_mangle]
pub unsafe extern "C" fn utf8_tail_init(t: *mut Tail) {
    if !t.is_null() {
        // SAFETY: non-NULL and writable (caller contract); every field is an integer.
        unsafe {
            t.write(Tail {
                fed: 0,
                len: 0,
                bytes: [0; KEPT],
            })
        };
    }
}

/// Records the piece `buf[0..len)` as the next bytes of the input: keeps its last
/// bytes (at most the `UTF8_TAIL_CONTEXT_MAX` + 8 last bytes of the input) and
/// counts it. Call it after `utf8_stream_feed` accepted the piece, so that the
/// tail ends where the next piece starts.
///
/// - `t == NULL`, or `buf == NULL` (any `len`), does nothing.
/// - Copies at most `UTF8_TAIL_CONTEXT_MAX` + 8 bytes, whatever `len` is.
/// - Thread-safe for distinct tails; allocates nothing; reads only `buf[0..len)`
///   and `*t`, writes only `*t`.
///
/// # Safety
/// Unless they are NULL, `t` must point to a `utf8_tail` set up by `utf8_tail_init`
/// (or zero-filled) and `buf` to at least `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn utf8_tail_keep(t: *mut Tail, buf: *const c_char, len: usize) {
    // SAFETY: forwarded caller contract.
    let (Some(tail), Some(piece)) = (unsafe { t.as_mut() }, unsafe { input(buf, len) }) else {
        return;
    };
    tail.keep(piece);
}

/// The bytes around an error of an input fed in pieces, for a log line, when the
/// error was found in the piece `buf[0..len)` (the piece `utf8_stream_feed`
/// refused, not yet given to `utf8_tail_keep`) or at the end of the input (`len`
/// 0, when `utf8_stream_finish` refused it). Gives what `utf8_error_context` would
/// give over the whole input: the absolute range `[start, end)` of the input that
/// holds the maximal subpart `[err->offset, err->offset + err->length)` (Unicode
/// section 3.9), up to `context` bytes before and after it, and neither starts nor
/// ends inside a character; and writes those bytes to `out` (no NUL).
///
/// - `err`: the error `utf8_stream_finish` reported (absolute offsets). Only its
///   `offset` and `length` are read.
/// - `context`: bytes on each side, at most `UTF8_TAIL_CONTEXT_MAX` and at most
///   `(out_cap - 3) / 2`: a smaller `out_cap` gives a narrower window, never a cut
///   one. `out` then receives at most `2 * context + 3` bytes.
/// - The window is taken from the bytes the tail kept and the piece: the error
///   may start up to 3 bytes before the piece (a sequence an earlier piece ended
///   inside). An error outside them (not of this input, or before the bytes kept)
///   gives the empty range at `err->offset` (at most the input's end) and writes
///   nothing.
/// - `t == NULL` or `err == NULL` gives `{0, 0}`; `buf == NULL` with `len > 0` is
///   read as the empty piece; `out == NULL`, or an `out_cap` too small for the
///   maximal subpart, writes nothing and gives the empty range at `err->offset`.
/// - Thread-safe; allocates nothing; reads only `*t`, `*err` and `buf[0..len)`,
///   writes only `out[0..out_cap)`.
///
/// # Safety
/// Unless they are NULL, `t` must point to a `utf8_tail`, `err` to a readable
/// `utf8_error`, `buf` to at least `len` readable bytes, and `out` to at least
/// `out_cap` writable bytes that overlap none of them.
#[no_mangle]
pub unsafe extern "C" fn utf8_tail_window(
    t: *const Tail,
    buf: *const c_char,
    len: usize,
    err: *const CUtf8Error,
    context: usize,
    out: *mut c_char,
    out_cap: usize,
) -> Span {
    // SAFETY: forwarded caller contract.
    let (Some(tail), Some(subpart)) = (unsafe { t.as_ref() }, unsafe { error_subpart(err) }) else {
        return Span { start: 0, end: 0 };
    };
    // SAFETY: forwarded caller contract.
    let piece = unsafe { input(buf, len) }.unwrap_or(&[]);
    let context = context
        .min(UTF8_TAIL_CONTEXT_MAX)
        .min(out_cap.saturating_sub(3) / 2);
    let mut gathered = [0u8; GATHERED];
    let span = tail.window(piece, subpart, context, &mut gathered);
    let n = span.end - span.start;
    if out.is_null() || n > out_cap {
        let at = subpart.0.clamp(span.start, span.end);
        return Span { start: at, end: at };
    }
    // SAFETY: `out` is non-NULL with `out_cap >= n` writable bytes that overlap
    // nothing read here (caller contract); `gathered` holds at least `n` bytes.
    unsafe { core::ptr::copy_nonoverlapping(gathered.as_ptr(), out.cast::<u8>(), n) };
    span
}
