//! `escape_into`, `replace_into`, `utf8_escape` and `utf8_replace` against results
//! built from std (`String::from_utf8_lossy`, `<[u8]>::utf8_chunks`), with a full
//! and a too-small output buffer. Layout: bytes 0-1 (little-endian) size the small
//! buffer; the rest is the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let (cap, data) = match input {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])), rest),
        _ => (0, input),
    };
    utf8validate_fuzz::check_render(data, cap);
});
