//! Concurrency of the C library: every function of the header called from many
//! threads at once, on buffers the threads share and on buffers each thread owns and
//! keeps changing; and the library's CPU-feature dispatch raced on its very first
//! use, in fresh processes. Through the shared library `cargo build` made.
//!
//! Every answer is checked against `std::str::from_utf8` (through `oracle`), or
//! against the header's documented constants, never against another call of the
//! library.

use utf8validate_c_tests as support;
#[path = "../../utf8validate-core/tests/oracle/mod.rs"]
mod oracle;
#[path = "../../utf8validate-core/tests/threads/mod.rs"]
mod threads;

use std::ffi::{CStr, CString};

use oracle::render::unescape;
use oracle::{draft_class, std_error, KIND_MESSAGES, KIND_NAMES};
use support::c_api::*;
use threads::RaceInputs;

/// `UTF8_STATE_START`.
const START: u32 = 0;
/// `UTF8_STATE_ERROR`.
const ERROR: u32 = 8;

/// The C library's version, from Cargo.toml.
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(support::library_version);

/// Every function of the header on `bytes`, each answer against
/// `std::str::from_utf8`; chunked forms cut at `cut` (taken modulo the length).
fn check_everything(bytes: &[u8], cut: usize) {
    let want = std_error(bytes);
    let valid = want.is_none();
    let offset = want.map(|(offset, _)| offset);
    let length = want.map_or(0, |(at, len)| len.unwrap_or(bytes.len() - at));
    let cut = cut % (bytes.len() + 1);
    let (head, tail) = bytes.split_at(cut);
    let lossy = String::from_utf8_lossy(bytes);
    let mut out = vec![0u8; 4 * bytes.len() + 1];
    let (ptr, len) = (bytes.as_ptr().cast(), bytes.len());
    let before_nul = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
    let c_string = CString::new(before_nul).unwrap();
    let want_c = std_error(before_nul);
    // SAFETY: every pointer points to a live slice of the given length, a live
    // NUL-terminated string, or a local; `utf8_error_kind` and `utf8_state` take any value.
    unsafe {
        assert_eq!(utf8_validate(ptr, len), valid);
        assert_eq!(utf8_first_error(ptr, len), offset.unwrap_or(len));
        let mut err = std::mem::MaybeUninit::uninit();
        assert_eq!(utf8_check(ptr, len, err.as_mut_ptr()), valid);
        let err: CError = err.assume_init();
        assert_eq!(err.offset, offset.unwrap_or(len));
        assert_eq!(err.length, length);
        let s = utf8_validate_chunk(0, head.as_ptr().cast(), head.len());
        let s = utf8_validate_chunk(s, tail.as_ptr().cast(), tail.len());
        assert_eq!(s == START, valid);
        assert_eq!(utf8_validate_cstr(c_string.as_ptr()), want_c.is_none());
        let first_c = want_c.map_or(before_nul.len(), |(offset, _)| offset);
        assert_eq!(utf8_first_error_cstr(c_string.as_ptr()), first_c);
        if valid {
            // Return without a word on valid input (they print and abort/return
            // false otherwise, which is not what this test is about).
            let site = c"concurrency.rs".as_ptr();
            utf8_assert_valid(ptr.cast(), len, site, site, 1, site);
            assert!(utf8_check_or_log(ptr.cast(), len, site, site, 1, site));
        }
        let mut c_stream = std::mem::MaybeUninit::uninit();
        utf8_stream_init(c_stream.as_mut_ptr());
        utf8_stream_feed(c_stream.as_mut_ptr(), head.as_ptr().cast(), head.len());
        utf8_stream_feed(c_stream.as_mut_ptr(), tail.as_ptr().cast(), tail.len());
        let mut err = std::mem::MaybeUninit::uninit();
        assert_eq!(
            utf8_stream_finish(c_stream.as_ptr(), err.as_mut_ptr()),
            valid
        );
        let err: CError = err.assume_init();
        assert_eq!(err.offset, offset.unwrap_or(len));
        let cap = out.len();
        let needed = utf8_replace(ptr, len, out.as_mut_ptr().cast(), cap);
        assert_eq!(&out[..needed], lossy.as_bytes());
        assert_eq!(out[needed], 0);
        let needed = utf8_escape(ptr, len, out.as_mut_ptr().cast(), cap);
        assert_eq!(unescape(&out[..needed]), bytes);
        for &b in bytes.iter().take(8) {
            assert_eq!(utf8_byte_class(b), draft_class(b));
        }
        let kind = usize::from(bytes.first().copied().unwrap_or(0)) % 9;
        let name = CStr::from_ptr(utf8_error_kind_name(kind as u32));
        let want_name = KIND_NAMES.get(kind).copied().unwrap_or("unknown");
        assert_eq!(name.to_str().unwrap(), want_name);
        let message = CStr::from_ptr(utf8_error_kind_message(kind as u32));
        let want_message = KIND_MESSAGES
            .get(kind)
            .copied()
            .unwrap_or("The value is not a utf8_error_kind.");
        assert_eq!(message.to_str().unwrap(), want_message);
        let version = CStr::from_ptr(utf8validate_version());
        assert_eq!(version.to_str().unwrap(), VERSION.as_str());
    }
}

#[test]
fn every_function_from_many_threads_on_shared_buffers() {
    threads::on_shared_buffers(check_everything);
}

#[test]
fn every_function_from_many_threads_on_their_own_changing_buffers() {
    threads::on_changing_buffers(check_everything);
}

#[test]
fn dispatch_is_race_free_on_first_use() {
    threads::race_first_call_in_children("racing_first_call_child");
}

/// The body of the race, run only in a child process by
/// `dispatch_is_race_free_on_first_use`. The library is loaded before the threads
/// start; its first call is made by all of them at once.
#[test]
#[ignore = "run in a fresh child process by dispatch_is_race_free_on_first_use"]
fn racing_first_call_child() {
    // Loads the library (a call that does not dispatch).
    // SAFETY: the version is a static string.
    assert!(!unsafe { utf8validate_version() }.is_null());
    let slice = |b: &Vec<u8>| (b.as_ptr().cast(), b.len());
    threads::race_in_child(
        |t, RaceInputs { valid, invalid, at }| {
            let (v, i) = (slice(valid), slice(invalid));
            // Each thread's first call is one of the entry points that dispatch.
            // SAFETY: every pointer is a live slice of the given length.
            unsafe {
                match t % 4 {
                    0 => assert!(utf8_validate(v.0, v.1)),
                    1 => assert!(!utf8_validate(i.0, i.1)),
                    2 => assert_eq!(utf8_first_error(i.0, i.1), *at),
                    _ => assert_eq!(utf8_validate_chunk(START, i.0, i.1), ERROR),
                }
            }
        },
        |RaceInputs { valid, invalid, at }| {
            let (v, i) = (slice(valid), slice(invalid));
            // SAFETY: every pointer is a live slice of the given length.
            unsafe {
                assert!(utf8_validate(v.0, v.1));
                assert_eq!(utf8_first_error(i.0, i.1), *at);
                assert_eq!(utf8_first_error(v.0, v.1), valid.len());
            }
        },
    );
}
