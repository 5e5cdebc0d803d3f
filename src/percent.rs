//! Percent-encoded text for C: `utf8_check_percent` and `utf8_percent_decode`.

use core::ffi::c_char;
use core::mem::MaybeUninit;

use crate::args::input;
use crate::error::CUtf8Error;
use crate::excerpt::Span;
use utf8validate_core::percent::{check_percent, decode_uninit};

/// Checks whether percent-encoded text (a URL path or query argument, a form field:
/// RFC 3986 section 2.1) decodes to well-formed UTF-8 (RFC 3629 section 4), without
/// writing the decoded bytes anywhere, and when it does not, says where the first
/// ill-formed sequence is in the decoded bytes and in the raw text.
///
/// - Decoding: "%" followed by two hexadecimal digits (either case) is the byte they
///   give; any other "%" is itself; every other byte is itself ("+" too: it is ASCII
///   either way). A "%" that starts no escape is kept, so the byte after it is
///   still checked: "%4" followed by the raw byte FF is ill-formed.
/// - `buf`: the raw text; `len`: its length in bytes. `err` and `raw`: where to store
///   the detail; either may be NULL.
/// - Returns true iff the decoded bytes are well-formed; then `*err` (if given) is
///   `{ .offset = D, .length = 0, .kind = UTF8_ERROR_NONE }`, where D is the length
///   of the decoded bytes, and `*raw` (if given) is `{ len, len }`.
/// - Returns false otherwise: `*err` is what `utf8_check` reports for the decoded
///   bytes (offset and maximal-subpart length counted in decoded bytes, and the
///   kind), and `*raw` the raw bytes that decode to that maximal subpart. For
///   "q=%C0%AF": `err` is `{ 2, 1, UTF8_ERROR_OVERLONG }` and `raw` `{ 2, 5 }`.
/// - `buf == NULL` with `len > 0` returns false with `*err` =
///   `{ 0, 0, UTF8_ERROR_INVALID_BYTE }` and `*raw` = `{ 0, 0 }`; `buf` is not
///   dereferenced.
/// - Thread-safe; allocates nothing (it decodes only to locate an error, 256 bytes at
///   a time on the stack); reads only `buf[0..len)`; writes only `*err` and `*raw`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes; unless they
/// are NULL, `err` must point to a writable `utf8_error` and `raw` to a writable
/// `utf8_span`.
#[no_mangle]
pub unsafe extern "C" fn utf8_check_percent(
    buf: *const c_char,
    len: usize,
    err: *mut CUtf8Error,
    raw: *mut Span,
) -> bool {
    // SAFETY: forwarded caller contract.
    let outcome = unsafe { input(buf, len) }.map(check_percent);
    let (ok, detail, span) = match outcome {
        Some(Ok(decoded)) => (
            true,
            CUtf8Error::none(decoded),
            Span {
                start: len,
                end: len,
            },
        ),
        Some(Err(e)) => (
            false,
            CUtf8Error::from(e.utf8_error()),
            Span {
                start: e.raw_offset(),
                end: e.raw_offset() + e.raw_len(),
            },
        ),
        None => (false, CUtf8Error::UNREADABLE, Span { start: 0, end: 0 }),
    };
    if !err.is_null() {
        // SAFETY: `err` is non-NULL and the caller guarantees it points to a writable
        // `utf8_error`; `write` does not read the old value.
        unsafe { err.write(detail) };
    }
    if !raw.is_null() {
        // SAFETY: as for `err`, for a `utf8_span`.
        unsafe { raw.write(span) };
    }
    ok
}

/// Writes the decoded form of percent-encoded text into `out`, by the rule of
/// `utf8_check_percent`, and returns how many bytes it wrote. No check is made:
/// use `utf8_check_percent` for the verdict (for a log line, decode the text and
/// show the window that `utf8_error_context` gives for the decoded error).
///
/// - The decoded text is never longer than the raw text: `out_cap >= len` always
///   holds all of it. A smaller `out_cap` receives the first `out_cap` decoded
///   bytes.
/// - No NUL is written. `out == NULL` or `out_cap == 0` writes nothing and returns 0.
/// - `buf == NULL` with `len > 0` is decoded as the empty text (returns 0).
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`, writes only
///   `out[0..out_cap)`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes; unless it
/// is NULL, `out` must point to at least `out_cap` writable bytes; the two ranges
/// must not overlap.
#[no_mangle]
pub unsafe extern "C" fn utf8_percent_decode(
    buf: *const c_char,
    len: usize,
    out: *mut c_char,
    out_cap: usize,
) -> usize {
    // SAFETY: forwarded caller contract.
    let raw = unsafe { input(buf, len) }.unwrap_or(&[]);
    if out.is_null() {
        return 0;
    }
    // SAFETY: `out` is non-NULL and the caller guarantees `out_cap` writable bytes
    // there that do not overlap `buf[0..len)`; only initialised bytes are written.
    let dst = unsafe { core::slice::from_raw_parts_mut(out.cast::<MaybeUninit<u8>>(), out_cap) };
    decode_uninit(raw, dst)
}

/// Where the first ill-formed argument of a query is (`utf8_check_query`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryError {
    /// Which argument, counted from 1 in the order of the query; 0 when no argument
    /// is ill-formed (and for an unreadable query).
    pub index: usize,
    /// The argument's raw bytes in the query, `[start, end)`, without the
    /// separators around it.
    pub argument: Span,
    /// The raw bytes that decode to the maximal subpart, as offsets in the query
    /// (`utf8_check_percent`'s `raw`, moved by the argument's start).
    pub raw: Span,
    /// The first ill-formed sequence of the argument's decoded bytes, as
    /// `utf8_check_percent` reports it for the argument: offset and maximal-subpart
    /// length in decoded bytes of the argument, and the kind.
    pub error: CUtf8Error,
}

/// Checks a query string (or a form body, `application/x-www-form-urlencoded`)
/// argument by argument: splits `buf[0..len)` at each `separator` byte (usually
/// '&') and checks whether each argument decodes to well-formed UTF-8 by the rule of
/// `utf8_check_percent` (RFC 3986 section 2.1; RFC 3629 section 4), and when one
/// does not, says which is the first and where its first ill-formed sequence is,
/// in the argument's decoded bytes and in the raw query.
///
/// - `separator` must be an ASCII byte (with one that is not, the query is checked
///   as a whole, separators included, and an ill-formed one is reported as below
///   with index 0, the whole query as its argument).
/// - Returns true iff every argument decodes to well-formed UTF-8 (the decoded
///   query as a whole is then well-formed too, the separator being ASCII); `*err`
///   (if given) is then
///   `{ .index = 0, .argument = { len, len }, .raw = { len, len }, .error = { D, 0,
///   UTF8_ERROR_NONE } }`, D the decoded length of the query.
/// - Returns false otherwise, with `*err` the first ill-formed argument: its index
///   (from 1), its raw span, and `utf8_check_percent`'s error and raw span for it.
///   To show it in a log line, decode `buf[argument.start .. argument.end)` with
///   `utf8_percent_decode` and give `err.error` and those bytes to `utf8_log_fields`.
///   For "a=1&b=%C0%AF" and '&': index 2, argument {4, 12}, raw {6, 9}, error
///   {2, 1, UTF8_ERROR_OVERLONG}.
/// - The common case costs one `utf8_check_percent` over the whole query; only an
///   ill-formed query is checked again, argument by argument.
/// - `buf == NULL` with `len > 0` returns false with `*err` = `{ 0, {0, 0},
///   {0, 0}, { 0, 0, UTF8_ERROR_INVALID_BYTE } }`; `buf` is not dereferenced.
///   `err == NULL`: only the verdict.
/// - Thread-safe; allocates nothing; reads only `buf[0..len)`, writes only `*err`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes; unless it
/// is NULL, `err` must point to a writable `utf8_query_error`.
#[no_mangle]
pub unsafe extern "C" fn utf8_check_query(
    buf: *const c_char,
    len: usize,
    separator: c_char,
    err: *mut QueryError,
) -> bool {
    let at_end = |decoded| QueryError {
        index: 0,
        argument: Span {
            start: len,
            end: len,
        },
        raw: Span {
            start: len,
            end: len,
        },
        error: CUtf8Error::none(decoded),
    };
    // SAFETY: forwarded caller contract.
    let (ok, detail) = match unsafe { input(buf, len) } {
        None => (
            false,
            QueryError {
                index: 0,
                argument: Span { start: 0, end: 0 },
                raw: Span { start: 0, end: 0 },
                error: CUtf8Error::UNREADABLE,
            },
        ),
        Some(query) => match check_percent(query) {
            Ok(decoded) => (true, at_end(decoded)),
            Err(whole) => (
                false,
                first_bad_argument(query, separator as u8).unwrap_or(QueryError {
                    // Not reached (an ill-formed query has an ill-formed argument when
                    // the separator is ASCII): the query's own error.
                    index: 0,
                    argument: Span { start: 0, end: len },
                    raw: Span {
                        start: whole.raw_offset(),
                        end: whole.raw_offset() + whole.raw_len(),
                    },
                    error: CUtf8Error::from(whole.utf8_error()),
                }),
            ),
        },
    };
    if !err.is_null() {
        // SAFETY: non-NULL, and writable (caller contract); `write` does not read
        // the old value.
        unsafe { err.write(detail) };
    }
    ok
}

/// The first argument of `query` (split at `separator`) whose decoded bytes are
/// ill-formed, if any.
fn first_bad_argument(query: &[u8], separator: u8) -> Option<QueryError> {
    let mut start = 0;
    for (i, argument) in query.split(|&b| b == separator).enumerate() {
        let end = start + argument.len();
        if let Err(e) = check_percent(argument) {
            return Some(QueryError {
                index: i + 1,
                argument: Span { start, end },
                raw: Span {
                    start: start + e.raw_offset(),
                    end: start + e.raw_offset() + e.raw_len(),
                },
                error: CUtf8Error::from(e.utf8_error()),
            });
        }
        start = end + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::CErrorKind;
    use crate::test_oracle::{first_error, percent_decode};
    use std::vec::Vec;

    /// The first ill-formed argument from `std` alone: split at '&', decoded by the
    /// rule, `from_utf8`.
    /// Index, argument's span, raw span, and error (offset, length) in decoded bytes.
    type Expected = (usize, (usize, usize), (usize, usize), (usize, usize));

    fn expected(query: &[u8]) -> Option<Expected> {
        let mut start = 0;
        for (i, argument) in query.split(|&b| b == b'&').enumerate() {
            let (decoded, starts) = percent_decode(argument);
            if let Some((offset, length)) = first_error(&decoded) {
                let raw = (start + starts[offset], start + starts[offset + length]);
                return Some((
                    i + 1,
                    (start, start + argument.len()),
                    raw,
                    (offset, length),
                ));
            }
            start += argument.len() + 1;
        }
        None
    }

    fn check(query: &[u8]) {
        let mut err = QueryError {
            index: 99,
            argument: Span { start: 99, end: 99 },
            raw: Span { start: 99, end: 99 },
            error: CUtf8Error::UNREADABLE,
        };
        // SAFETY: a live query and output.
        let ok = unsafe {
            utf8_check_query(query.as_ptr().cast(), query.len(), b'&' as c_char, &mut err)
        };
        match expected(query) {
            None => {
                assert!(ok, "{query:02X?}");
                let decoded = percent_decode(query).0.len();
                assert_eq!(err.index, 0);
                assert_eq!(
                    (err.argument, err.raw),
                    (
                        Span {
                            start: query.len(),
                            end: query.len()
                        },
                        Span {
                            start: query.len(),
                            end: query.len()
                        }
                    )
                );
                assert_eq!(
                    (err.error.offset, err.error.length, err.error.kind),
                    (decoded, 0, CErrorKind::None)
                );
            }
            Some((index, argument, raw, (offset, length))) => {
                assert!(!ok, "{query:02X?}");
                assert_eq!(
                    (
                        err.index,
                        (err.argument.start, err.argument.end),
                        (err.raw.start, err.raw.end),
                        (err.error.offset, err.error.length)
                    ),
                    (index, argument, raw, (offset, length)),
                    "{query:02X?}"
                );
            }
        }
        // SAFETY: a live query; no output.
        let verdict = unsafe {
            utf8_check_query(
                query.as_ptr().cast(),
                query.len(),
                b'&' as c_char,
                core::ptr::null_mut(),
            )
        };
        assert_eq!(verdict, ok);
    }

    #[test]
    fn the_first_ill_formed_argument_is_the_one_std_finds() {
        let pieces: [&[u8]; 12] = [
            b"a=1",
            b"",
            b"%4",
            b"%C3",
            b"%A9",
            b"\xC3",
            b"\xA9",
            b"%E2%82",
            b"%ED%A0%80",
            b"\xF0\x9F",
            b"b=%C3%A9",
            b"\xFF",
        ];
        let mut queries: Vec<Vec<u8>> = Vec::new();
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    queries.push([a, b"&", b, b"&", c].concat());
                    queries.push([a, b, c].concat());
                }
            }
        }
        for q in &queries {
            check(q);
        }
    }

    #[test]
    fn odd_arguments_give_an_answer() {
        let mut err = QueryError {
            index: 9,
            argument: Span { start: 9, end: 9 },
            raw: Span { start: 9, end: 9 },
            error: CUtf8Error::none(9),
        };
        // SAFETY: NULL with a length is not read; the output is live.
        unsafe {
            assert!(!utf8_check_query(
                core::ptr::null(),
                3,
                b'&' as c_char,
                &mut err
            ));
            assert_eq!(
                (err.index, err.argument, err.error),
                (0, Span { start: 0, end: 0 }, CUtf8Error::UNREADABLE)
            );
            assert!(utf8_check_query(
                core::ptr::null(),
                0,
                b'&' as c_char,
                &mut err
            ));
            // A separator that is not ASCII: the whole query, index 0.
            assert!(!utf8_check_query(
                b"a\xFFb".as_ptr().cast(),
                3,
                0xFFu8 as c_char,
                &mut err
            ));
            assert_eq!(
                (err.index, err.argument, err.raw, err.error.offset),
                (0, Span { start: 0, end: 3 }, Span { start: 1, end: 2 }, 1)
            );
        }
    }
}
