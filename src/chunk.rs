//! Data in chunks for C, without the offset of the first error: `utf8_validate_chunk`.

use core::ffi::c_char;

use crate::args::input;
use crate::state_machine::StateArg;
use utf8validate_core::State;

/// Runs the draft's state machine over the `len` bytes at `buf` from `state` and
/// returns the state it ends in: validation of data that arrives in chunks.
///
/// - Start with `UTF8_STATE_START` and pass each result to the next call. Whatever
///   the split, the final result is `UTF8_STATE_START` iff the concatenation is
///   well-formed UTF-8 (RFC 3629 section 4).
/// - `UTF8_STATE_ERROR`: an ill-formed sequence was seen; absorbing.
/// - Any other result: the data so far ends inside a sequence (more continuation
///   bytes are needed); if the input ends there, it is truncated, hence invalid.
/// - A `state` outside `UTF8_STATE_START..UTF8_STATE_ERROR` is treated as
///   `UTF8_STATE_ERROR`.
/// - `len == 0` returns `state` unchanged (any `buf`, including NULL), or
///   `UTF8_STATE_ERROR` when `state` is out of range.
/// - `buf == NULL` with `len > 0` returns `UTF8_STATE_ERROR`; `buf` is not
///   dereferenced.
/// - Thread-safe (the state lives with the caller); allocates nothing; reads only
///   `buf[0..len)`.
///
/// # Safety
/// Unless it is NULL, `buf` must point to at least `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn utf8_validate_chunk(
    state: StateArg,
    buf: *const c_char,
    len: usize,
) -> State {
    // ERROR, and any value that names no state, stays ERROR whatever the chunk.
    // Tested here on the raw value, so that the conversion below and the core's
    // own test for ERROR compile to nothing.
    if state.0 >= State::Error as u32 {
        return State::Error;
    }
    // SAFETY: forwarded caller contract.
    match unsafe { input(buf, len) } {
        Some(bytes) => utf8validate_core::validate_chunk(state.get(), bytes),
        None => State::Error,
    }
}
