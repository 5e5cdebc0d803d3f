//! Every one-shot entry point (Rust API, each back end this CPU supports, and the
//! `extern "C"` functions including the NUL-terminated forms) against
//! `std::str::from_utf8`: validity, `valid_up_to`, `error_len`, and the error kind.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| utf8validate_fuzz::check_one_shot(data));
