//! The fields of a log line about an error, for C: `utf8_log_fields`, the part of
//! an entry check's log line that says where the first ill-formed sequence is, why,
//! and which bytes are around it, rendered so that the line stays one line of valid
//! UTF-8.

use core::ffi::c_char;
use core::fmt::Write;
use core::mem::MaybeUninit;

use crate::args::{error_kind_raw, error_subpart, input};
use crate::error::{CErrorKind, CUtf8Error};
use utf8validate_core::escape::{render, Mode};
use utf8validate_core::excerpt::around_subpart;

/// The most bytes the fields take besides the value: the names, three quotes,
/// five numbers of 20 digits, the longest kind name and message.
pub const UTF8_LOG_FIELDS_FIXED: usize = 256;

/// A buffer that takes what fits and counts what the whole text needs.
struct Out<'a> {
    out: &'a mut [MaybeUninit<u8>],
    written: usize,
    needed: usize,
}

impl Out<'_> {
    /// Appends `text` if all of it fits and everything before it did (a piece is
    /// never cut inside).
    fn push(&mut self, text: &[u8]) {
        self.needed = self.needed.saturating_add(text.len());
        if self.written + text.len() > self.out.len() || self.needed != self.written + text.len() {
            return;
        }
        if let Some(slot) = self.out.get_mut(self.written..self.written + text.len()) {
            for (s, &b) in slot.iter_mut().zip(text) {
                s.write(b);
            }
            self.written += text.len();
        }
    }

    /// Appends `bytes` rendered as `utf8_escape_quoted` renders them.
    fn push_quoted(&mut self, bytes: &[u8]) {
        if self.needed != self.written {
            self.needed = self
                .needed
                .saturating_add(render(bytes, &mut [], Mode::Quoted).needed);
            return;
        }
        let rest = self.out.get_mut(self.written..).unwrap_or_default();
        let done = render(bytes, rest, Mode::Quoted);
        self.written += done.written;
        self.needed = self.needed.saturating_add(done.needed);
    }
}

impl Write for Out<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

/// Everything but the text's NUL: `kind`'s name and message (the C strings
/// without their NUL).
fn text(kind: Option<CErrorKind>) -> (&'static [u8], &'static [u8]) {
    let strip = |s: &'static [u8]| s.strip_suffix(b"\0").unwrap_or(s);
    match kind {
        Some(k) => (strip(k.name()), strip(k.message())),
        None => (b"unknown", b"The value is not a utf8_error_kind."),
    }
}

/// Writes the fields of a log line that describe the error `err` of a part of a
/// request (a URI, an argument, a header, a body) whose bytes from offset `base` on
/// are `buf[0..len)`:
///
/// `offset=O length=L kind=K message="M" bytes=A..B value="V"`
///
/// O and L are `err->offset` and `err->length` (the maximal subpart, Unicode
/// section 3.9), K and M what `utf8_error_kind_name` and `utf8_error_kind_message`
/// give for `err->kind`; V is the part's bytes A to B - 1, the window that
/// `utf8_error_context` cuts around the maximal subpart with `context` bytes on
/// each side (whole characters), rendered by `utf8_escape_quoted`, so that the
/// fields are valid UTF-8 on one line with their quotes where they belong.
///
/// - `err`: an error of the part (offsets from the part's first byte), as
///   `utf8_check`, `utf8_check_percent` (with the decoded bytes) or
///   `utf8_stream_finish` reported it. `buf`, `len`, `base`: the bytes at hand,
///   the whole part (`base` 0) or a window of it (`utf8_tail_window`'s bytes,
///   `base` its start). A subpart not within them shows an empty value, at
///   `min(err->offset, base + len)` (at `base + len` when `err->offset < base`).
/// - Returns the length of the whole text, without its NUL; writes as much of it
///   as fits in `out_cap - 1` bytes, cut between its pieces (a name, a number, a
///   whole character or escape of the value), and a NUL after it, like
///   `snprintf`: the text is complete iff the result is less than `out_cap`. At
///   most `UTF8_LOG_FIELDS_FIXED + 4 * (2 * context + 3)` bytes.
/// - `err == NULL` writes the empty text and returns 0. `buf == NULL` with
///   `len > 0` is read as no bytes. `out == NULL` or `out_cap == 0` writes nothing
///   and returns the length.
/// - Thread-safe; allocates nothing; reads only `*err` and the bytes of
///   `buf[0..len)` in the window, writes only `out[0..out_cap)`.
///
/// # Safety
/// Unless they are NULL, `err` must point to a readable `utf8_error`, `buf` to at
/// least `len` readable bytes, and `out` to at least `out_cap` writable bytes that
/// do not overlap them.
#[no_mangle]
pub unsafe extern "C" fn utf8_log_fields(
    err: *const CUtf8Error,
    buf: *const c_char,
    len: usize,
    base: usize,
    context: usize,
    out: *mut c_char,
    out_cap: usize,
) -> usize {
    let dst: &mut [MaybeUninit<u8>] = if out.is_null() {
        &mut []
    } else {
        // SAFETY: `out` is non-NULL with `out_cap` writable bytes that overlap
        // nothing read here (caller contract); only initialised bytes are written.
        unsafe { core::slice::from_raw_parts_mut(out.cast::<MaybeUninit<u8>>(), out_cap) }
    };
    let Some((nul, room)) = dst.split_last_mut() else {
        // SAFETY: forwarded caller contract.
        return unsafe { fields(err, buf, len, base, context, &mut []) }.needed;
    };
    // SAFETY: forwarded caller contract.
    let (written, needed) = {
        let done = unsafe { fields(err, buf, len, base, context, room) };
        (done.written, done.needed)
    };
    room.get_mut(written).unwrap_or(nul).write(0);
    needed
}

/// [`utf8_log_fields`] into `room`, with no NUL.
///
/// # Safety
/// As for [`utf8_log_fields`], for `err` and `buf`.
unsafe fn fields<'a>(
    err: *const CUtf8Error,
    buf: *const c_char,
    len: usize,
    base: usize,
    context: usize,
    room: &'a mut [MaybeUninit<u8>],
) -> Out<'a> {
    let mut out = Out {
        out: room,
        written: 0,
        needed: 0,
    };
    // SAFETY: forwarded caller contract.
    let (Some((offset, length)), Some(raw_kind)) = (unsafe { error_subpart(err) }, unsafe {
        error_kind_raw(err)
    }) else {
        return out;
    };
    // SAFETY: forwarded caller contract.
    let bytes = unsafe { input(buf, len) }.unwrap_or(&[]);
    let local = offset
        .checked_sub(base)
        .unwrap_or(bytes.len().saturating_add(1));
    let window = around_subpart(bytes, local..local.saturating_add(length), context);
    let (name, message) = text(CErrorKind::from_raw(raw_kind));
    let _ = write!(out, "offset={offset} length={length} kind=");
    out.push(name);
    out.push(b" message=\"");
    out.push(message);
    let _ = write!(
        out,
        "\" bytes={}..{} value=\"",
        base.saturating_add(window.start),
        base.saturating_add(window.end)
    );
    out.push_quoted(bytes.get(window).unwrap_or(&[]));
    out.push(b"\"");
    out
}
