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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_oracle::{boundaries, first_error, quoted};
    use std::string::String;
    use std::vec::Vec;

    /// The fields written from `std` alone: the error as `from_utf8` reports it, the
    /// widest window between its units, [`quoted`]'s rendering.
    fn expected(bytes: &[u8], kind: CErrorKind, context: usize) -> (String, usize) {
        let (offset, length) = first_error(bytes).expect("ill-formed");
        let cuts = boundaries(bytes);
        let lo = offset.saturating_sub(context);
        let hi = (offset + length + context).min(bytes.len());
        let a = cuts.iter().copied().filter(|&c| c >= lo).min().unwrap();
        let b = cuts.iter().copied().filter(|&c| c <= hi).max().unwrap();
        let (name, message) = text(Some(kind));
        let text = std::format!(
            "offset={offset} length={length} kind={} message=\"{}\" bytes={a}..{b} value=\"{}\"",
            core::str::from_utf8(name).unwrap(),
            core::str::from_utf8(message).unwrap(),
            quoted(&bytes[a..b])
        );
        (text, a)
    }

    /// `utf8_log_fields` into `cap` bytes: what it wrote, up to its NUL, and what it
    /// returned; nothing is written past `cap`.
    fn fields_into(
        err: &CUtf8Error,
        bytes: &[u8],
        base: usize,
        context: usize,
        cap: usize,
    ) -> (Vec<u8>, usize) {
        let mut out = std::vec![0x5Au8; cap + 4];
        // SAFETY: live error and bytes; `out` has `cap` + 4 writable bytes.
        let n = unsafe {
            utf8_log_fields(
                err,
                bytes.as_ptr().cast(),
                bytes.len(),
                base,
                context,
                out.as_mut_ptr().cast(),
                cap,
            )
        };
        assert!(
            out[cap..].iter().all(|&b| b == 0x5A),
            "written past out_cap {cap}"
        );
        let text = match out[..cap].iter().position(|&b| b == 0) {
            Some(nul) => out[..nul].to_vec(),
            None => {
                assert_eq!(cap, 0, "no NUL in {cap} bytes");
                Vec::new()
            }
        };
        (text, n)
    }

    #[test]
    fn the_fields_are_those_std_gives_and_cut_like_snprintf() {
        let pieces: [&[u8]; 10] = [
            b"a",
            b"\"",
            b"\\",
            "é".as_bytes(),
            b"\x80",
            b"\xC0\xAF",
            b"\xE2\x82",
            b"\xED\xA0\x80",
            b"\n",
            "\u{2028}".as_bytes(),
        ];
        let mut checked = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let bytes = [a, b, c, b"xyz"].concat();
                    let Err(e) = utf8validate_core::check(&bytes) else {
                        continue;
                    };
                    let err = CUtf8Error::from(e);
                    for context in [0, 1, 3] {
                        let (want, window_start) = expected(&bytes, err.kind, context);
                        let (text, n) = fields_into(&err, &bytes, 0, context, want.len() + 1);
                        assert_eq!(
                            (String::from_utf8(text).unwrap(), n),
                            (want.clone(), want.len())
                        );
                        // From the window's start on (as `utf8_tail_window` gives the
                        // bytes): the same text.
                        let from = window_start;
                        let (text, _) =
                            fields_into(&err, &bytes[from..], from, context, want.len() + 1);
                        assert_eq!(String::from_utf8(text).unwrap(), want, "from {from}");
                        if checked % 7 == 0 {
                            for cap in 0..=want.len() {
                                let (text, n) = fields_into(&err, &bytes, 0, context, cap);
                                assert_eq!(n, want.len());
                                assert!(want.as_bytes().starts_with(&text), "{cap}: {text:?}");
                            }
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn odd_arguments_give_an_answer() {
        let e = |offset, length, kind| CUtf8Error {
            offset,
            length,
            kind,
        };
        let (text, n) = fields_into(
            &e(usize::MAX - 3, 3, CErrorKind::Overlong),
            &[0xFF; 16],
            usize::MAX - 16,
            3,
            400,
        );
        assert_eq!(text.len(), n);
        assert!(n <= UTF8_LOG_FIELDS_FIXED + 4 * (2 * 3 + 3));
        // SAFETY: NULL error and output; a live input.
        unsafe {
            assert_eq!(
                utf8_log_fields(
                    core::ptr::null(),
                    b"a".as_ptr().cast(),
                    1,
                    0,
                    3,
                    core::ptr::null_mut(),
                    0
                ),
                0
            );
            let err = e(1, 1, CErrorKind::InvalidByte);
            let mut out = [0u8; 300];
            let n = utf8_log_fields(
                &err,
                core::ptr::null(),
                3,
                0,
                3,
                out.as_mut_ptr().cast(),
                out.len(),
            );
            let text = core::str::from_utf8(&out[..n]).unwrap();
            assert!(text.ends_with("bytes=0..0 value=\"\""), "{text}");
            // An error before the bytes at hand: an empty value at their end.
            let err = e(1, 1, CErrorKind::InvalidByte);
            let n = utf8_log_fields(
                &err,
                b"abcd".as_ptr().cast(),
                4,
                10,
                3,
                out.as_mut_ptr().cast(),
                out.len(),
            );
            assert!(core::str::from_utf8(&out[..n])
                .unwrap()
                .ends_with("bytes=14..14 value=\"\""));
        }
        // A kind a C caller made up.
        let mut err = e(0, 1, CErrorKind::InvalidByte);
        // SAFETY: the field is an int in C; any value may be stored there.
        unsafe { core::ptr::addr_of_mut!(err.kind).cast::<u32>().write(99) };
        let (text, _) = fields_into(&err, b"\xFF", 0, 3, 400);
        assert!(String::from_utf8(text)
            .unwrap()
            .contains("kind=unknown message=\"The value is not a utf8_error_kind.\""));
    }
}
