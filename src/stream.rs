//! Streaming checks for C: `utf8_stream` and its three functions.

use core::ffi::c_char;

use crate::args::{input, store_outcome};
use crate::error::CUtf8Error;
use utf8validate_core::Stream;

/// Prepares `*s` to check a new input that will arrive in chunks: the stream is at
/// offset 0 with nothing pending and no error. Call it before the first
/// `utf8_stream_feed`, and again to reuse the struct for another input.
///
/// - `s`: a caller-allocated `utf8_stream` (on the stack, in a struct, anywhere);
///   its previous contents are ignored. The all-zero struct is also a freshly
///   initialised stream (`memset(s, 0, sizeof *s)` is equivalent).
/// - `s == NULL`: nothing happens.
/// - Thread-safe for distinct streams; allocates nothing; writes only `*s`.
///
/// # Safety
/// Unless it is NULL, `s` must point to writable memory for one `utf8_stream`.
#[no_mangle]
pub unsafe extern "C" fn utf8_stream_init(s: *mut Stream) {
    if !s.is_null() {
        // SAFETY: `s` is non-NULL and the caller guarantees it is writable for one
        // `Stream`; `write` does not read the old (possibly uninitialised) contents.
        unsafe { s.write(Stream::new()) };
    }
}

/// Feeds the next chunk of the input, the `len` bytes at `buf`, to the stream `s`.
///
/// - Chunks may be split anywhere, even inside a multi-byte sequence: the stream
///   keeps the at most 3 bytes of an unfinished sequence and continues it with the
///   next chunk. Offsets count from the first byte of the first chunk.
/// - Returns true while everything fed so far is well-formed UTF-8 (RFC 3629
///   section 4), possibly ending inside a sequence that later chunks may complete.
/// - Returns false once an ill-formed sequence has been seen, in this chunk or an
///   earlier one. Feeding after that is allowed and cheap: the chunk is not read and
///   false is returned again. `utf8_stream_finish` reports the first error.
/// - `len == 0` changes nothing (any `buf`, including NULL) and returns the
///   current verdict: true unless the stream has failed.
/// - `buf == NULL` with `len > 0`: the bytes cannot be read, so the stream fails
///   (returns false) with the error `{ .offset = ` the start of the current
///   sequence `, .length = 0, .kind = UTF8_ERROR_INVALID_BYTE }` (length 0 marks
///   that no byte was read), unless it had already failed; `buf` is not
///   dereferenced.
/// - `s == NULL` returns false and does nothing.
/// - Allocates nothing; reads only `buf[0..len)` and `*s`, writes only `*s`. A
///   stream must not be used by two threads at once; distinct streams may.
///
/// # Safety
/// Unless it is NULL, `s` must point to a `utf8_stream` set up by
/// `utf8_stream_init` (or zero-filled) and not used concurrently; unless it is
/// NULL, `buf` must point to at least `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn utf8_stream_feed(s: *mut Stream, buf: *const c_char, len: usize) -> bool {
    // SAFETY: when non-NULL, the caller guarantees `s` points to an initialised
    // `Stream` that nothing else accesses during this call (every bit pattern of
    // its integer fields is a valid `Stream`).
    let Some(stream) = (unsafe { s.as_mut() }) else {
        return false;
    };
    // SAFETY: forwarded caller contract.
    match unsafe { input(buf, len) } {
        Some(bytes) => stream.feed(bytes),
        None => {
            stream.fail_unreadable();
            false
        }
    }
}

/// Ends the input: reports whether everything fed to `s` so far is well-formed
/// UTF-8, with exactly the result `utf8_check` gives for the concatenation of the
/// chunks.
///
/// - Returns true iff the input is well-formed; then `*err` (if given) is set to
///   `{ .offset = ` total bytes fed `, .length = 0, .kind = UTF8_ERROR_NONE }`.
/// - Returns false otherwise, with `err->offset` the absolute offset (from the
///   first byte of the first chunk) of the first ill-formed sequence,
///   `err->length` its maximal subpart (Unicode section 3.9; 1-3 bytes) and
///   `err->kind` why. When the input ends inside a sequence, the kind is
///   `UTF8_ERROR_TRUNCATED` and the length is the 1-3 bytes from its lead byte to
///   the end (those bytes may have come in different chunks). After a
///   `utf8_stream_feed` with `buf == NULL` and `len > 0`, the error is
///   `{ .offset = ` the start of the sequence then current `, .length = 0,
///   .kind = UTF8_ERROR_INVALID_BYTE }`.
/// - Does not change the stream: calling it again gives the same answer, and
///   feeding more chunks and finishing again gives the answer for the longer input.
///   Call `utf8_stream_init` to start a new input.
/// - `err == NULL`: only the verdict is returned.
/// - `s == NULL` returns false and, if `err` is given, stores
///   `{ .offset = 0, .length = 0, .kind = UTF8_ERROR_INVALID_BYTE }`.
/// - Allocates nothing; reads only `*s`, writes only `*err`. Safe to call from
///   several threads at once on the same stream as long as none of them feeds it.
///
/// # Safety
/// Unless it is NULL, `s` must point to a `utf8_stream` set up by
/// `utf8_stream_init` (or zero-filled) and not being fed concurrently; unless it is
/// NULL, `err` must point to a writable `utf8_error`.
#[no_mangle]
pub unsafe extern "C" fn utf8_stream_finish(s: *const Stream, err: *mut CUtf8Error) -> bool {
    // SAFETY: when non-NULL, the caller guarantees `s` points to an initialised
    // `Stream` that no one writes during this call, and `err` is writable.
    unsafe {
        let stream = s.as_ref();
        let end = stream.map_or(0, Stream::position);
        store_outcome(stream.map(Stream::finish), end, err)
    }
}
