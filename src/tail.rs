//! The last bytes of an input that arrives in pieces, for C: `utf8_tail` with
//! `utf8_tail_init`, `utf8_tail_keep` and `utf8_tail_window`, so that a server that
//! checks a request body piece by piece (`utf8_stream`) can show the bytes around
//! the first error in its log line, cut at character boundaries, though the error
//! may start in an earlier piece.

use core::ffi::c_char;
use core::ops::Range;

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

/// Bytes gathered for a window: the context and 3 bytes before the subpart (3, so
/// that `around_subpart` sees whether its cut falls inside a character), the
/// subpart (at most 3 bytes) and the context after it.
const GATHERED: usize = 2 * UTF8_TAIL_CONTEXT_MAX + 6;

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

    /// Keeps the last `KEPT` bytes of the kept bytes followed by `piece`. (Copies
    /// by iterators, which cannot fail, so that no panic path is compiled in.)
    fn keep(&mut self, piece: &[u8]) {
        self.fed = self.fed.saturating_add(piece.len());
        let kept = self.kept();
        let from_piece = piece.len().min(KEPT);
        let from_kept = kept.len().min(KEPT - from_piece);
        let mut next = [0u8; KEPT];
        let older = kept.get(kept.len() - from_kept..).unwrap_or_default();
        let newer = piece.get(piece.len() - from_piece..).unwrap_or_default();
        for (slot, &byte) in next.iter_mut().zip(older.iter().chain(newer)) {
            *slot = byte;
        }
        self.bytes = next;
        self.len = from_kept + from_piece;
    }

    /// The window around `subpart` (absolute offsets) in the kept bytes followed by
    /// `piece`, `context` bytes on each side at most: its absolute range, and where
    /// its bytes are in `gathered`, into which this gathers the bytes around it.
    fn window(
        &self,
        piece: &[u8],
        subpart: (usize, usize),
        context: usize,
        gathered: &mut [u8; GATHERED],
    ) -> (Span, Range<usize>) {
        let kept = self.kept();
        let start = self.fed.saturating_sub(kept.len());
        let end = self.fed.saturating_add(piece.len());
        let (offset, length) = subpart;
        if offset < start || offset > end || length > end - offset {
            let at = offset.min(end);
            return (Span { start: at, end: at }, 0..0);
        }
        // From `context` + 3 bytes before the subpart (or the first byte kept) on,
        // as many as `gathered` holds, which the window ends within.
        let lo = offset.saturating_sub(context + 3).max(start);
        let from_kept = kept.get(lo - start..).unwrap_or_default();
        let from_piece = piece.get(lo.saturating_sub(self.fed)..).unwrap_or_default();
        let mut n = 0;
        for (slot, &byte) in gathered.iter_mut().zip(from_kept.iter().chain(from_piece)) {
            *slot = byte;
            n += 1;
        }
        let local = offset - lo;
        let cut = around_subpart_so_far(
            gathered.get(..n).unwrap_or_default(),
            local..local + length,
            context,
        );
        let span = Span {
            start: lo + cut.start,
            end: lo + cut.end,
        };
        (span, cut)
    }
}

/// Sets `*t` to the empty input: no byte fed, none kept (all zeros, as a
/// zero-filled `utf8_tail` already is). Call it before the first piece of each
/// input, beside `utf8_stream_init`; the tail then serves `utf8_tail_window` for
/// the errors `utf8_stream` reports (RFC 3629 section 4; maximal subparts as
/// Unicode section 3.9 defines them).
///
/// - `t == NULL` does nothing. No result, no error case.
/// - Thread-safe for distinct tails; allocates nothing; writes only `*t`.
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
    let (span, at) = tail.window(piece, subpart, context, &mut gathered);
    let bytes = gathered.get(at).unwrap_or_default();
    if out.is_null() || bytes.len() > out_cap {
        let at = subpart.0.max(span.start).min(span.end);
        return Span { start: at, end: at };
    }
    // SAFETY: `out` is non-NULL with `out_cap >= bytes.len()` writable bytes that
    // overlap nothing read here (caller contract).
    unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), out.cast::<u8>(), bytes.len()) };
    span
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_oracle::{boundaries, first_error};
    use std::vec::Vec;
    use utf8validate_core::Stream;

    /// The window the units of the bytes that have arrived, `so_far`, give around
    /// the error: widest between boundaries, and not ending in a sequence cut short
    /// by the end of `so_far` after the subpart (the rest may complete it).
    fn expected(so_far: &[u8], (offset, length): (usize, usize), context: usize) -> (usize, usize) {
        let mut cuts = boundaries(so_far);
        if let [.., last_start, _] = cuts[..] {
            let cut_short =
                core::str::from_utf8(&so_far[last_start..]).is_err_and(|e| e.error_len().is_none());
            if last_start >= offset + length && cut_short {
                cuts.pop();
            }
        }
        let lo = offset.saturating_sub(context);
        let hi = (offset + length + context).min(so_far.len());
        let start = cuts.iter().copied().filter(|&c| c >= lo).min().unwrap();
        let end = cuts.iter().copied().filter(|&c| c <= hi).max().unwrap();
        (start, end)
    }

    /// `bytes` fed in the pieces that `ends` ends: the window where the stream
    /// refuses, through the C functions, against [`expected`].
    fn check(bytes: &[u8], ends: &[usize], context: usize) {
        let Some(error) = first_error(bytes) else {
            return;
        };
        let mut stream = Stream::new();
        let mut tail = Tail {
            fed: 1,
            len: 5,
            bytes: [7; 72],
        };
        // SAFETY: a live, writable tail.
        unsafe { utf8_tail_init(&mut tail) };
        let mut at = 0;
        let mut refused: &[u8] = &[];
        for &end in ends {
            let piece = &bytes[at..end];
            if !stream.feed(piece) {
                refused = piece;
                break;
            }
            // SAFETY: a live tail and piece.
            unsafe { utf8_tail_keep(&mut tail, piece.as_ptr().cast(), piece.len()) };
            at = end;
        }
        let arrived = at + refused.len();
        let e = stream.finish().expect_err("the input is ill-formed");
        assert_eq!((e.valid_up_to(), e.subpart_len()), error, "{bytes:02X?}");
        let err = CUtf8Error::from(e);
        let mut out = [0x5Au8; 2 * UTF8_TAIL_CONTEXT_MAX + 3 + 1];
        let cap = 2 * context + 3;
        // SAFETY: live tail, piece and error; `out` has `cap` + 1 writable bytes.
        let span = unsafe {
            utf8_tail_window(
                &tail,
                refused.as_ptr().cast(),
                refused.len(),
                &err,
                context,
                out.as_mut_ptr().cast(),
                cap,
            )
        };
        let (start, end) = expected(&bytes[..arrived], error, context);
        assert_eq!(
            (span.start, span.end),
            (start, end),
            "{bytes:02X?} {ends:?} context {context}"
        );
        assert_eq!(&out[..end - start], &bytes[start..end]);
        assert_eq!(out[end - start], 0x5A, "one byte too many");
    }

    fn inputs() -> Vec<Vec<u8>> {
        let mut all = Vec::new();
        for filler in ["ab", "é", "😀"] {
            for error in [
                &b"\x80"[..],
                b"\xED\xA0\x80",
                b"\xE2\x82",
                b"\xF0\x9F\x98",
                b"\xC3",
            ] {
                for after in [
                    "",
                    "€x",
                    "cd😀",
                    "0123456789😀ab€cdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!",
                ] {
                    let mut bytes = filler.repeat(90 / filler.len()).into_bytes();
                    bytes.extend_from_slice(error);
                    bytes.extend_from_slice(after.as_bytes());
                    all.push(bytes);
                }
            }
        }
        all
    }

    #[test]
    fn the_window_is_the_one_the_bytes_so_far_give_in_any_pieces() {
        for bytes in inputs() {
            for context in [0, 1, 3, UTF8_TAIL_CONTEXT_MAX] {
                for size in [1, 2, 3, 5, 70, 71, 72, 73] {
                    let ends: Vec<usize> = (1..=bytes.len().div_ceil(size))
                        .map(|i| (i * size).min(bytes.len()))
                        .collect();
                    check(&bytes, &ends, context);
                }
                for cut in 0..=bytes.len() {
                    check(&bytes, &[cut, bytes.len()], context);
                }
            }
        }
    }

    #[test]
    fn out_of_range_and_null_arguments_give_empty_windows() {
        let mut tail = Tail {
            fed: 0,
            len: 0,
            bytes: [0; 72],
        };
        let piece = b"g\xFFh";
        let mut out = [0u8; 16];
        let err = |offset| CUtf8Error {
            offset,
            length: 1,
            ..CUtf8Error::UNREADABLE
        };
        // SAFETY: live arguments throughout; `out` has 16 bytes.
        unsafe {
            utf8_tail_keep(&mut tail, b"abcdef".as_ptr().cast(), 6);
            utf8_tail_keep(&mut tail, core::ptr::null(), 3);
            let window = |e: &CUtf8Error, out: *mut c_char, cap| {
                let s = utf8_tail_window(&tail, piece.as_ptr().cast(), 3, e, 2, out, cap);
                (s.start, s.end)
            };
            assert_eq!(window(&err(7), out.as_mut_ptr().cast(), 16), (5, 9));
            assert_eq!(&out[..4], b"fg\xFFh");
            assert_eq!(window(&err(7), out.as_mut_ptr().cast(), 5), (6, 9));
            assert_eq!(window(&err(7), core::ptr::null_mut(), 16), (7, 7));
            assert_eq!(window(&err(7), out.as_mut_ptr().cast(), 0), (7, 7));
            assert_eq!(window(&err(1000), out.as_mut_ptr().cast(), 16), (9, 9));
            // An empty subpart at the end (what the stream reports for a piece it
            // could not read): the context before it.
            let at_end = CUtf8Error {
                offset: 6,
                length: 0,
                ..CUtf8Error::UNREADABLE
            };
            let s = utf8_tail_window(
                &tail,
                core::ptr::null(),
                0,
                &at_end,
                2,
                out.as_mut_ptr().cast(),
                16,
            );
            assert_eq!((s.start, s.end), (4, 6));
            // An error in the kept bytes: its context from them.
            assert_eq!(window(&err(0), out.as_mut_ptr().cast(), 16), (0, 3));
            let s = utf8_tail_window(
                core::ptr::null(),
                piece.as_ptr().cast(),
                3,
                &err(7),
                2,
                out.as_mut_ptr().cast(),
                16,
            );
            assert_eq!((s.start, s.end), (0, 0));
            let s = utf8_tail_window(
                &tail,
                piece.as_ptr().cast(),
                3,
                core::ptr::null(),
                2,
                out.as_mut_ptr().cast(),
                16,
            );
            assert_eq!((s.start, s.end), (0, 0));
            utf8_tail_init(core::ptr::null_mut());
            utf8_tail_keep(core::ptr::null_mut(), piece.as_ptr().cast(), 3);
        }
        // Whatever a C caller left in the private fields, no panic.
        for len in [0, 72, 73, usize::MAX] {
            let t = Tail {
                fed: usize::MAX,
                len,
                bytes: [0x80; 72],
            };
            // SAFETY: live arguments.
            unsafe {
                utf8_tail_window(
                    &t,
                    piece.as_ptr().cast(),
                    3,
                    &err(usize::MAX),
                    64,
                    out.as_mut_ptr().cast(),
                    16,
                );
                let mut t2 = t;
                utf8_tail_keep(&mut t2, piece.as_ptr().cast(), 3);
            }
        }
    }
}
