//! Log-safe rendering for C: `utf8_escape` (reversible), `utf8_escape_quoted` (the
//! same, kept on one line inside quotes) and `utf8_replace` (U+FFFD).

use core::ffi::c_char;
use core::mem::MaybeUninit;

use crate::args::input;
use utf8validate_core::escape::{render, Mode};

/// The snprintf-style contract shared by `utf8_escape` and `utf8_replace`.
///
/// # Safety
/// As for those functions: `buf` readable for `len` bytes unless NULL, `out`
/// writable for `out_cap` bytes unless NULL, and the two do not overlap.
unsafe fn render_c(
    buf: *const c_char,
    len: usize,
    out: *mut c_char,
    out_cap: usize,
    mode: Mode,
) -> usize {
    // SAFETY: forwarded caller contract. An unreadable input (NULL with len > 0)
    // renders as the empty input.
    let bytes = unsafe { input(buf, len) }.unwrap_or(&[]);
    let dst: &mut [MaybeUninit<u8>] = if out.is_null() {
        &mut []
    } else {
        // SAFETY: `out` is non-NULL and the caller guarantees `out_cap` writable
        // bytes there that do not overlap `buf[0..len)`; `MaybeUninit<u8>` allows
        // them to be uninitialised, and only initialised bytes are written.
        unsafe { core::slice::from_raw_parts_mut(out.cast::<MaybeUninit<u8>>(), out_cap) }
    };
    // The text goes into all but the last byte, so that the NUL always fits; with
    // no byte at all (NULL or `out_cap == 0`) only the length is computed.
    let Some((last, text)) = dst.split_last_mut() else {
        return render(bytes, &mut [], mode).needed;
    };
    let done = render(bytes, text, mode);
    // The NUL goes right after the result: into `text` when the result is shorter,
    // else into the last byte.
    text.get_mut(done.written).unwrap_or(last).write(0);
    done.needed
}

/// Writes `buf[0..len)` into `out` as valid UTF-8 from which the input can be
/// recovered exactly, for logging untrusted bytes: well-formed characters (RFC 3629
/// section 4) are copied as they are, except a backslash (5C), written as two
/// backslashes `\\`, and U+0000, written as the four characters "\x00"; each byte of
/// each ill-formed sequence is written as the four characters "\xHH", with two
/// uppercase hexadecimal digits (e.g. the bytes C0 AF become "\xC0\xAF").
///
/// - Decoding the result: `\\` is a backslash, "\xHH" is the byte 0xHH, every other
///   byte is itself. The result contains no 00 byte, so it is a proper C string.
///   Other control characters (newline, ESC...) are well-formed and copied as they
///   are.
/// - snprintf-style: returns the length in bytes of the whole result, not counting
///   the terminating NUL (at most `4 * len`; saturates at SIZE_MAX). The result fit
///   iff the return value is less than `out_cap`.
/// - When `out_cap > 0`, always writes a NUL-terminated string and never more than
///   `out_cap` bytes in all. If the whole result does not fit, it writes the longest
///   prefix of it that fits in `out_cap - 1` bytes and ends between two units (a
///   whole copied character, a whole `\\`, "\x00" or "\xHH" escape), then the NUL:
///   what is written is still valid UTF-8 and decodes to a prefix of the input.
/// - `out_cap == 0` or `out == NULL`: nothing is written; the return value gives
///   the size to allocate (plus 1 for the NUL).
/// - `buf == NULL` with `len > 0` is rendered as the empty input (returns 0; `buf`
///   is not dereferenced). `len == 0` returns 0.
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`, writes only
///   `out[0..out_cap)`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes; unless it
/// is NULL, `out` must point to at least `out_cap` writable bytes; the two ranges
/// must not overlap.
#[no_mangle]
pub unsafe extern "C" fn utf8_escape(
    buf: *const c_char,
    len: usize,
    out: *mut c_char,
    out_cap: usize,
) -> usize {
    // SAFETY: forwarded caller contract.
    unsafe { render_c(buf, len, out, out_cap, Mode::Escape) }
}

/// Writes `buf[0..len)` into `out` with each maximal subpart of each ill-formed
/// sequence (Unicode section 3.9) replaced by U+FFFD REPLACEMENT CHARACTER
/// (EF BF BD) and every well-formed character copied as it is: the same bytes as
/// the WHATWG Encoding Standard's UTF-8 decoder and Rust's
/// `String::from_utf8_lossy` produce.
///
/// - One U+FFFD per maximal subpart: `E2 82 41` gives `EF BF BD 41`; `C0 AF` gives
///   two U+FFFD (C0 is never a lead byte); a truncated `F0 9F 98` at the end gives
///   one.
/// - snprintf-style: returns the length in bytes of the whole result, not counting
///   the terminating NUL (at most `3 * len`; saturates at SIZE_MAX). The result fit
///   iff the return value is less than `out_cap`.
/// - When `out_cap > 0`, always writes a NUL-terminated string and never more than
///   `out_cap` bytes in all. If the whole result does not fit, it writes the longest
///   prefix of it that fits in `out_cap - 1` bytes and ends between two units (a
///   whole copied character or a whole U+FFFD), then the NUL: what is written is
///   still valid UTF-8.
/// - U+0000 in the input is copied, so the result can contain 00 bytes before the
///   terminating NUL; use the return value (when it is less than `out_cap`) rather
///   than `strlen` if the input may contain them, or use `utf8_escape`.
/// - `out_cap == 0` or `out == NULL`: nothing is written; the return value gives
///   the size to allocate (plus 1 for the NUL).
/// - `buf == NULL` with `len > 0` is rendered as the empty input (returns 0; `buf`
///   is not dereferenced). `len == 0` returns 0.
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`, writes only
///   `out[0..out_cap)`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes; unless it
/// is NULL, `out` must point to at least `out_cap` writable bytes; the two ranges
/// must not overlap.
#[no_mangle]
pub unsafe extern "C" fn utf8_replace(
    buf: *const c_char,
    len: usize,
    out: *mut c_char,
    out_cap: usize,
) -> usize {
    // SAFETY: forwarded caller contract.
    unsafe { render_c(buf, len, out, out_cap, Mode::Replace) }
}

/// Writes `buf[0..len)` into `out` as `utf8_escape` does, and also writes as "\xHH"
/// each byte of a double quote ("\x22"), of a C0 control character (U+0000-U+001F:
/// a newline is "\x0A"), of DEL (U+007F), of a C1 control character (U+0080-U+009F:
/// two escapes) and of U+2028 and U+2029 (three escapes each): the result stays on
/// one line and inside double quotes, for a log line such as
/// `value="..."` that a reader splits on quotes and newlines.
///
/// - Decoding the result is the same as for `utf8_escape`: `\\` is a backslash,
///   "\xHH" is the byte 0xHH, every other byte is itself.
/// - Return value, truncation, `out_cap == 0`, `out == NULL` and `buf == NULL`: as
///   for `utf8_escape` (the result is at most `4 * len` bytes; a cut falls between
///   two units, and the three escapes of U+2028 are three units).
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`, writes only
///   `out[0..out_cap)`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes; unless it
/// is NULL, `out` must point to at least `out_cap` writable bytes; the two ranges
/// must not overlap.
#[no_mangle]
pub unsafe extern "C" fn utf8_escape_quoted(
    buf: *const c_char,
    len: usize,
    out: *mut c_char,
    out_cap: usize,
) -> usize {
    // SAFETY: forwarded caller contract.
    unsafe { render_c(buf, len, out, out_cap, Mode::Quoted) }
}
