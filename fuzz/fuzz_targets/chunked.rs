//! Data in chunks, on split points taken from the input (see
//! `utf8validate_fuzz::split_input`):
//! - `validate_chunk`, through the Rust API, the C ABI and each back end: after every
//!   chunk, the state must be the one the draft's table gives for the prefix read so
//!   far, and the final verdict must be the one-shot one;
//! - `Stream`, through the Rust API and each back end, and the C `utf8_stream`:
//!   after every chunk, the return of `feed`, the position, and `finish`, which
//!   must equal std's one-shot answer (offset, maximal-subpart length, kind) for
//!   the prefix read so far.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8validate_core::State;
use utf8validate_fuzz::{check_chunked, check_stream, split_input};

fuzz_target!(|input: &[u8]| {
    let (cuts, data) = split_input(input);
    check_chunked(
        "validate_chunk",
        data,
        &cuts,
        utf8validate_core::validate_chunk,
    );
    for backend in utf8validate_core::backends::available() {
        check_chunked(backend.name(), data, &cuts, |state, chunk| {
            backend.validate_chunk(state, chunk)
        });
    }
    check_stream(data, &cuts);
    // ERROR is absorbing.
    assert_eq!(
        utf8validate_core::validate_chunk(State::Error, data),
        State::Error
    );
});
