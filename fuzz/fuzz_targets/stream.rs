//! `Stream` and the C `utf8_stream` on split points taken from the input (the
//! `chunked` layout, see `utf8validate_fuzz::split_input`): after every piece, the
//! return of `feed`, the position, and `finish`, which must equal the one-shot
//! answer of std (offset, maximal-subpart length, kind) for the prefix read so far.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8validate_fuzz::{check_stream, split_input};

fuzz_target!(|input: &[u8]| {
    let (cuts, data) = split_input(input);
    check_stream(data, &cuts);
});
