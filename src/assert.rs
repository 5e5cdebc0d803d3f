//! The library side of the header's debug macros `UTF8_ASSERT_VALID`,
//! `UTF8_ASSERT_VALID_CSTR`, `UTF8_CHECK_OR_RETURN` and `UTF8_CHECK_OR_RETURN_VOID`
//! (defined in the header's trailer, see `cbindgen.toml`).
//!
//! The macros pass the call site (`__FILE__`, `__LINE__`, `__func__`) and the text of
//! the buffer expression (`#buf`); these functions validate and, on ill-formed input,
//! write one line to stderr:
//!
//! `FILE:LINE: FUNCTION: invalid UTF-8 at byte B of EXPR: MESSAGE`
//!
//! where `B` is the offset of the first ill-formed sequence (`utf8_first_error`) and
//! `MESSAGE` is `utf8_error_kind_message` of its kind: the same sentence `utf8check`
//! and the gdb command `utf8-check` print.
//!
//! Like the rest of the C ABI they allocate nothing: the line is assembled in a
//! buffer on the stack so that it reaches stderr in one `write` (lines from several
//! threads do not interleave); only a line longer than that buffer (a very long
//! path or expression) is written in chunks. Valid input costs one validation.

use core::ffi::{c_char, c_int, c_void, CStr};
use core::fmt::Write as _;

use crate::args::input;
use utf8validate_core::{check, ErrorKind};

/// What is wrong with a buffer, for the report line.
enum Failure {
    /// The first ill-formed sequence starts at `offset`.
    Invalid { offset: usize, kind: ErrorKind },
    /// `buf` is NULL with this non-zero length.
    NullBuffer { len: usize },
    /// The string pointer is NULL.
    NullString,
}

/// The bytes of a NUL-terminated string, or `fallback` when it is NULL.
///
/// # Safety
/// Unless it is NULL, `s` must point to a NUL-terminated string.
unsafe fn text_or(s: *const c_char, fallback: &[u8]) -> &[u8] {
    if s.is_null() {
        return fallback;
    }
    // SAFETY: `s` is non-NULL and the caller guarantees it is NUL-terminated.
    unsafe { CStr::from_ptr(s) }.to_bytes()
}

/// Writes `FILE:LINE: FUNCTION: invalid UTF-8 at byte B of EXPR: MESSAGE` and a
/// newline to stderr, in one write when it fits in [`Line`]'s buffer. Write errors
/// are ignored: there is nowhere else to report them, and the caller goes on to
/// abort or return either way.
///
/// # Safety
/// Each of `expr`, `file` and `func` must be NULL or point to a NUL-terminated string.
unsafe fn write_report(
    failure: Failure,
    expr: *const c_char,
    file: *const c_char,
    line: c_int,
    func: *const c_char,
) {
    let mut out = Line::new(Stderr);
    // SAFETY: forwarded caller contract (`file` is NULL or NUL-terminated).
    out.push(unsafe { text_or(file, b"?") });
    let _ = write!(out, ":{line}: ");
    // SAFETY: forwarded caller contract (`func` is NULL or NUL-terminated).
    out.push(unsafe { text_or(func, b"?") });
    let offset = match failure {
        Failure::Invalid { offset, .. } => offset,
        Failure::NullBuffer { .. } | Failure::NullString => 0,
    };
    let _ = write!(out, ": invalid UTF-8 at byte {offset} of ");
    // SAFETY: forwarded caller contract (`expr` is NULL or NUL-terminated).
    out.push(unsafe { text_or(expr, b"?") });
    let _ = match failure {
        Failure::Invalid { kind, .. } => writeln!(out, ": {}", kind.message()),
        Failure::NullBuffer { len } => {
            writeln!(out, ": the buffer is NULL but its length is {len}")
        }
        Failure::NullString => writeln!(out, ": the string is NULL"),
    };
    out.flush();
}

/// Room for the longest report line expected (long paths and expressions included).
const LINE_CAPACITY: usize = 1024;

/// Where a report line goes: stderr, or a recorder in the tests.
trait Sink {
    /// Writes all of `bytes`, or as much as can be written; errors are ignored.
    fn write_all(&mut self, bytes: &[u8]);
}

/// The process's standard error, file descriptor 2, written with `write(2)`.
struct Stderr;

impl Sink for Stderr {
    fn write_all(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            // SAFETY: `bytes` is readable for its length; `write` reads no more.
            let n = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len() as _) };
            match usize::try_from(n) {
                Ok(written) if written > 0 => bytes = bytes.get(written..).unwrap_or_default(),
                // Interrupted before anything was written: try again.
                _ if n < 0 && interrupted() => {}
                // Any other error (or nothing written): give up, as the line is
                // only a report and the caller goes on either way.
                _ => return,
            }
        }
    }
}

/// True iff the last failed call was interrupted by a signal before it did anything
/// (`errno == EINTR`). Where the C library's `errno` is not known here, false: the
/// write is then not retried.
fn interrupted() -> bool {
    // SAFETY: the C library returns this thread's `errno`, always readable.
    errno_location().is_some_and(|errno| unsafe { *errno } == libc::EINTR)
}

/// Where the C library keeps this thread's `errno`, on the systems whose C library
/// this crate knows; `None` elsewhere.
fn errno_location() -> Option<*mut c_int> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: `__errno_location` has no preconditions.
    return Some(unsafe { libc::__errno_location() });
    #[cfg(target_vendor = "apple")]
    // SAFETY: `__error` has no preconditions.
    return Some(unsafe { libc::__error() });
    #[allow(unreachable_code)]
    None
}

/// A report line assembled on the stack and written to `sink` (stderr) by `flush`;
/// a line longer than the buffer is written in chunks as the buffer fills.
struct Line<W: Sink> {
    buf: [u8; LINE_CAPACITY],
    len: usize,
    sink: W,
}

impl<W: Sink> Line<W> {
    fn new(sink: W) -> Self {
        Line {
            buf: [0; LINE_CAPACITY],
            len: 0,
            sink,
        }
    }

    /// Appends `bytes`, writing out what is held whenever the buffer is full.
    fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let free = self.buf.get_mut(self.len..).unwrap_or_default();
            let n = free.len().min(bytes.len());
            let (now, later) = bytes.split_at_checked(n).unwrap_or((bytes, &[]));
            for (slot, &byte) in free.iter_mut().zip(now) {
                *slot = byte;
            }
            self.len += n;
            bytes = later;
            if !bytes.is_empty() {
                self.flush();
            }
        }
    }

    /// Writes out what is held, in one call, and empties the buffer.
    fn flush(&mut self) {
        let held = self.buf.get(..self.len).unwrap_or_default();
        self.sink.write_all(held);
        self.len = 0;
    }
}

impl<W: Sink> core::fmt::Write for Line<W> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

/// Why `buf[0..len)` is not valid UTF-8, or `None` when it is.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes.
unsafe fn failure_of(buf: *const c_void, len: usize) -> Option<Failure> {
    // SAFETY: forwarded caller contract.
    match unsafe { input(buf.cast::<c_char>(), len) } {
        None => Some(Failure::NullBuffer { len }),
        Some(bytes) => check(bytes).err().map(|e| Failure::Invalid {
            offset: e.valid_up_to(),
            kind: e.kind(),
        }),
    }
}

/// Why the NUL-terminated string `s` is not valid UTF-8, or `None` when it is.
///
/// # Safety
/// Unless it is NULL, `s` must point to a NUL-terminated string.
unsafe fn failure_of_cstr(s: *const c_char) -> Option<Failure> {
    if s.is_null() {
        return Some(Failure::NullString);
    }
    // SAFETY: `s` is non-NULL and the caller guarantees it is NUL-terminated.
    let bytes = unsafe { CStr::from_ptr(s) }.to_bytes();
    check(bytes).err().map(|e| Failure::Invalid {
        offset: e.valid_up_to(),
        kind: e.kind(),
    })
}

/// The function behind `UTF8_ASSERT_VALID(buf, len)`: returns when `buf[0..len)` is
/// well-formed UTF-8; otherwise writes
/// `FILE:LINE: FUNCTION: invalid UTF-8 at byte B of EXPR: MESSAGE` to stderr and
/// calls `abort()` (the process dies with SIGABRT, like a failed `assert`).
///
/// - `buf`, `len`: the bytes to check, `len` of them (any object pointer converts to
///   `const void *`, so `char *`, `unsigned char *` and `uint8_t *` buffers need no
///   cast). Valid means well-formed UTF-8 as RFC 3629 section 4 defines it (Unicode
///   §3.9, Table 3-7); B in the line is the byte offset of the first ill-formed
///   sequence and MESSAGE says why it is ill-formed (`utf8_error_kind_message`).
/// - `expr`, `file`, `line`, `func`: the call site, as the macro passes them
///   (`#buf`, `__FILE__`, `__LINE__`, `__func__`); each string may be NULL (printed
///   as `?`).
/// - `buf == NULL` with `len > 0` fails with "the buffer is NULL but its length is
///   LEN" at byte 0; `len == 0` always passes.
/// - Allocates nothing; on failure the line is written in one call (lines over
///   1 KiB in chunks).
/// - Thread-safe: it reads only `buf[0..len)` and the call-site strings; reports
///   from two threads at once may interleave only when a line exceeds 1 KiB.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes; each of
/// `expr`, `file` and `func` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn utf8_assert_valid(
    buf: *const c_void,
    len: usize,
    expr: *const c_char,
    file: *const c_char,
    line: c_int,
    func: *const c_char,
) {
    // SAFETY: forwarded caller contract.
    if let Some(failure) = unsafe { failure_of(buf, len) } {
        // SAFETY: forwarded caller contract.
        unsafe { write_report(failure, expr, file, line, func) };
        // SAFETY: abort(3) has no preconditions and never returns.
        unsafe { libc::abort() };
    }
}

/// The function behind `UTF8_ASSERT_VALID_CSTR(s)`: as `utf8_assert_valid` for the
/// NUL-terminated string `s` (the bytes before the first NUL; the NUL is not part
/// of the input), with the same rules (RFC 3629 section 4), report line, abort and
/// thread safety.
///
/// - `expr`, `file`, `line`, `func`: as for `utf8_assert_valid` (what the report
///   line names; each string may be NULL).
/// - A NULL `s` fails with "the string is NULL" at byte 0.
/// - Allocates nothing.
///
/// # Safety
/// Unless it is NULL, `s` must point to a NUL-terminated string; each of `expr`,
/// `file` and `func` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn utf8_assert_valid_cstr(
    s: *const c_char,
    expr: *const c_char,
    file: *const c_char,
    line: c_int,
    func: *const c_char,
) {
    // SAFETY: forwarded caller contract.
    if let Some(failure) = unsafe { failure_of_cstr(s) } {
        // SAFETY: forwarded caller contract.
        unsafe { write_report(failure, expr, file, line, func) };
        // SAFETY: abort(3) has no preconditions and never returns.
        unsafe { libc::abort() };
    }
}

/// The function behind `UTF8_CHECK_OR_RETURN(buf, len, retval)` and
/// `UTF8_CHECK_OR_RETURN_VOID(buf, len)`: returns true when the `len` bytes at `buf`
/// are well-formed UTF-8 (RFC 3629 section 4; Unicode §3.9, Table 3-7); otherwise
/// writes the same line as `utf8_assert_valid` to stderr and returns false (it
/// never aborts).
///
/// - `len == 0` returns true (any `buf`, including NULL).
/// - `buf == NULL` with `len > 0` returns false and logs "the buffer is NULL but its
///   length is LEN" at byte 0; `buf` is not dereferenced.
/// - `expr`, `file`, `line`, `func`: the call site, as for `utf8_assert_valid`;
///   each string may be NULL (printed as `?`).
/// - Thread-safe, as `utf8_assert_valid`; allocates nothing.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes; each of
/// `expr`, `file` and `func` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn utf8_check_or_log(
    buf: *const c_void,
    len: usize,
    expr: *const c_char,
    file: *const c_char,
    line: c_int,
    func: *const c_char,
) -> bool {
    // SAFETY: forwarded caller contract.
    match unsafe { failure_of(buf, len) } {
        None => true,
        Some(failure) => {
            // SAFETY: forwarded caller contract.
            unsafe { write_report(failure, expr, file, line, func) };
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// Records each write separately.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Sink for &mut Writes {
        fn write_all(&mut self, bytes: &[u8]) {
            self.0.push(bytes.to_vec());
        }
    }

    /// Chunks of every size around the buffer's, pushed and formatted in turns:
    /// the writes put together are exactly the chunks put together, a line that
    /// fits goes out in one write, and no write is longer than the buffer.
    #[test]
    fn line_is_written_whole_or_in_buffer_sized_chunks() {
        for size in [
            0,
            1,
            100,
            LINE_CAPACITY - 1,
            LINE_CAPACITY,
            LINE_CAPACITY + 1,
            5000,
        ] {
            let chunk: Vec<u8> = (0..size).map(|i| b'a' + (i % 26) as u8).collect();
            let mut writes = Writes::default();
            let mut line = Line::new(&mut writes);
            line.push(b"x.c");
            let _ = write!(line, ":{}: ", 42);
            line.push(&chunk);
            let _ = writeln!(line, ": {} end", 7);
            line.flush();
            let mut expected = b"x.c:42: ".to_vec();
            expected.extend_from_slice(&chunk);
            expected.extend_from_slice(b": 7 end\n");
            assert_eq!(writes.0.concat(), expected, "size {size}");
            assert!(
                writes.0.iter().all(|w| w.len() <= LINE_CAPACITY),
                "size {size}"
            );
            if expected.len() <= LINE_CAPACITY {
                assert_eq!(writes.0.len(), 1, "size {size}: one write");
            }
        }
    }

    /// `errno` as the C library sets it: a `close(-1)` fails with EBADF, which is
    /// not an interruption.
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    #[test]
    fn errno_is_the_c_library_s() {
        // SAFETY: closing an invalid descriptor only fails.
        assert_eq!(unsafe { libc::close(-1) }, -1);
        let errno = errno_location().expect("errno is known on this system");
        // SAFETY: the C library's errno location, readable by this thread.
        assert_eq!(unsafe { *errno }, libc::EBADF);
        assert!(!interrupted());
        // SAFETY: as above, and writable by this thread.
        unsafe { *errno = libc::EINTR };
        assert!(interrupted());
    }
}
