//! Cutting untrusted bytes for a log line, for C: `utf8_truncate` and
//! `utf8_error_context`.

use core::ffi::c_char;

use crate::args::{error_subpart, input};
use crate::error::CUtf8Error;
use utf8validate_core::excerpt::{around_subpart, prefix};

/// A range of byte offsets, `[start, end)`: the bytes `buf + start` up to but not
/// including `buf + end`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first offset in the range.
    pub start: usize,
    /// The offset just past the range (`start` for an empty range).
    pub end: usize,
}

/// The length of the longest prefix of `buf[0..len)` that is at most `max` bytes
/// long and does not end inside a character or inside the maximal subpart of an
/// ill-formed sequence (Unicode section 3.9): for cutting a header name or a request
/// line to length in a log line, so that the rendered cut (`utf8_escape_quoted`)
/// shows whole characters.
///
/// - Returns `len` when `len <= max`; otherwise `max` moved back by 0-3 bytes to the
///   start of the character it would split (for "añb" and `max` 2: 1).
/// - Looks only at the bytes just before and after `buf + max`.
/// - `buf == NULL` with `len > 0` returns 0; `buf` is not dereferenced.
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn utf8_truncate(buf: *const c_char, len: usize, max: usize) -> usize {
    // SAFETY: forwarded caller contract.
    unsafe { input(buf, len) }.map_or(0, |bytes| prefix(bytes, max))
}

/// The bytes around an error to show in a log line: a range of `buf[0..len)` that
/// holds the maximal subpart `[err->offset, err->offset + err->length)`, up to
/// `context` bytes before it and `context` bytes after it, and neither starts nor
/// ends inside a character or a maximal subpart (Unicode section 3.9), so that the
/// rendered window (`utf8_escape_quoted`) shows whole characters; each side may be
/// up to 3 bytes shorter than `context` for that.
///
/// - `err`: an error of these bytes, as `utf8_check` or `utf8_stream_finish`
///   reported it (for percent-encoded text, `utf8_percent_error.error` with the
///   decoded bytes).
/// - An `err` that does not lie within `buf[0..len)` gives the empty range at
///   `min(err->offset, len)`. `err == NULL`, or `buf == NULL` with `len > 0`, gives
///   `{0, 0}`; neither is dereferenced.
/// - Thread-safe; allocates nothing; reads only `*err` and the few bytes of
///   `buf[0..len)` at the two ends of the window.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes, and unless
/// it is NULL, `err` must point to a readable `utf8_error`.
#[no_mangle]
pub unsafe extern "C" fn utf8_error_context(
    buf: *const c_char,
    len: usize,
    err: *const CUtf8Error,
    context: usize,
) -> Span {
    // SAFETY: forwarded caller contract.
    let Some(bytes) = (unsafe { input(buf, len) }) else {
        return Span { start: 0, end: 0 };
    };
    // SAFETY: forwarded caller contract.
    let Some((offset, length)) = (unsafe { error_subpart(err) }) else {
        return Span { start: 0, end: 0 };
    };
    let window = around_subpart(bytes, offset..offset.saturating_add(length), context);
    Span {
        start: window.start,
        end: window.end,
    }
}
