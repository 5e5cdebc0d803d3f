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

use std::ffi::{CStr, CString};
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::thread;

use oracle::inputs::{cases, text, Rng};
use oracle::render::unescape;
use oracle::{std_error, SAMPLES};
use support::c_api::*;

/// Threads per test; more than this machine's cores, so they interleave.
const THREADS: usize = 8;
/// `UTF8_STATE_START`.
const START: u32 = 0;

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
        let err: utf8validate_core::Utf8Error = err.assume_init();
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
        let err: utf8validate_core::Utf8Error = err.assume_init();
        assert_eq!(err.offset, offset.unwrap_or(len));
        let cap = out.len();
        let needed = utf8_replace(ptr, len, out.as_mut_ptr().cast(), cap);
        assert_eq!(&out[..needed], lossy.as_bytes());
        assert_eq!(out[needed], 0);
        let needed = utf8_escape(ptr, len, out.as_mut_ptr().cast(), cap);
        assert_eq!(unescape(&out[..needed]), bytes);
        for &b in bytes.iter().take(8) {
            assert_eq!(utf8_byte_class(b), class_of(b));
        }
        let kind = usize::from(bytes.first().copied().unwrap_or(0)) % 9;
        let name = CStr::from_ptr(utf8_error_kind_name(kind as u32));
        assert_eq!(name.to_str().unwrap(), KIND_NAMES[kind]);
        let message = CStr::from_ptr(utf8_error_kind_message(kind as u32));
        assert!(message.to_bytes().ends_with(b"."));
        let version = CStr::from_ptr(utf8validate_version());
        assert_eq!(version.to_str().unwrap(), VERSION.as_str());
    }
}

/// The names the header documents for `utf8_error_kind` 0-7, and "unknown" after.
const KIND_NAMES: [&str; 9] = [
    "none",
    "unexpected_continuation",
    "missing_continuation",
    "truncated",
    "overlong",
    "surrogate",
    "too_large",
    "invalid_byte",
    "unknown",
];

/// The draft's byte classes, as the header lists them.
fn class_of(b: u8) -> u8 {
    match b {
        0x00..=0x7F => 0,
        0x80..=0x8F => 1,
        0x90..=0x9F => 2,
        0xA0..=0xBF => 3,
        0xC0..=0xC1 | 0xF5..=0xFF => 4,
        0xC2..=0xDF => 5,
        0xE0 => 6,
        0xED => 8,
        0xE1..=0xEF => 7,
        0xF0 => 9,
        0xF1..=0xF3 => 10,
        0xF4 => 11,
    }
}

#[test]
fn every_function_from_many_threads_on_shared_buffers() {
    let cases = cases(1);
    let start = Barrier::new(THREADS);
    thread::scope(|scope| {
        for t in 0..THREADS {
            let (cases, start) = (&cases, &start);
            scope.spawn(move || {
                start.wait();
                // Each thread walks the same buffers from a different place.
                for i in 0..cases.len() {
                    let bytes = &cases[(i + t * 7) % cases.len()];
                    check_everything(bytes, i * 31 + t);
                }
            });
        }
    });
}

#[test]
fn every_function_from_many_threads_on_their_own_changing_buffers() {
    let start = Barrier::new(THREADS);
    thread::scope(|scope| {
        for t in 0..THREADS {
            let start = &start;
            scope.spawn(move || {
                let mut rng = Rng(100 + t as u64);
                let mut bytes = text(&mut rng, 300 + 40 * t, 2);
                start.wait();
                for round in 0..150 {
                    // Overwrite, insert or delete a byte, then check again.
                    let at = rng.below(bytes.len());
                    match rng.below(3) {
                        0 if !bytes.is_empty() => bytes[at] = rng.next() as u8,
                        1 => bytes.insert(at, rng.next() as u8),
                        _ if !bytes.is_empty() => {
                            bytes.remove(at);
                        }
                        _ => bytes.push(b'x'),
                    }
                    if round % 50 == 0 {
                        // Back to valid text now and then, so both verdicts occur.
                        bytes = text(&mut rng, 300 + 40 * t, 0);
                    }
                    check_everything(&bytes, rng.below(bytes.len() + 1));
                }
            });
        }
    });
}

/// Set in the child processes of `dispatch_is_race_free_on_first_use`.
const CHILD_ENV: &str = "UTF8VALIDATE_RACE_CHILD";
/// Threads racing on the first call in each child.
const RACERS: usize = 32;

/// Runs [`racing_first_call_child`] alone in fresh processes (this test binary,
/// filtered to that one test), so that in each the library's first call ever is
/// made by many threads at once, released together by a barrier.
#[test]
fn dispatch_is_race_free_on_first_use() {
    let exe = std::env::current_exe().unwrap();
    for run in 0..6 {
        let out = Command::new(&exe)
            .args([
                "--exact",
                "racing_first_call_child",
                "--ignored",
                "--nocapture",
            ])
            .args(["--test-threads", "1"])
            .env(CHILD_ENV, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "child {run} failed ({}):\n{stdout}\n{stderr}",
            out.status
        );
        assert!(
            stdout.contains(&format!("{RACERS} threads agreed on the first call")),
            "child {run} did not race:\n{stdout}\n{stderr}"
        );
    }
}

/// The body of the race, run only in a child process (see above). The library is
/// loaded before the threads start; its first call is made by all of them at once.
#[test]
#[ignore = "run in a fresh child process by dispatch_is_race_free_on_first_use"]
fn racing_first_call_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    // Longer than a SIMD block, so every call goes through the dispatch. The
    // expected answers come from std, before any thread touches the library.
    let text = SAMPLES.concat();
    let at = (150..).find(|&i| text.is_char_boundary(i)).unwrap();
    let valid = text.into_bytes();
    let mut invalid = valid.clone();
    invalid.splice(at..at, *b"\xED\xA0\x80"); // a surrogate
    assert!(valid.len() > 256 && std_error(&valid).is_none());
    assert_eq!(std_error(&invalid), Some((at, Some(1))));
    // Loads the library (a call that does not dispatch).
    // SAFETY: the version is a static string.
    assert!(!unsafe { utf8validate_version() }.is_null());
    let inputs = Arc::new((valid, invalid));
    let barrier = Arc::new(Barrier::new(RACERS));
    let racers: Vec<thread::JoinHandle<()>> = (0..RACERS)
        .map(|t| {
            let (inputs, barrier) = (Arc::clone(&inputs), Arc::clone(&barrier));
            thread::spawn(move || {
                let (valid, invalid) = (&inputs.0, &inputs.1);
                let (v, i) = (
                    (valid.as_ptr().cast(), valid.len()),
                    (invalid.as_ptr().cast(), invalid.len()),
                );
                barrier.wait();
                // SAFETY: every pointer is a live slice of the given length.
                unsafe {
                    // Each thread's first call is one of the entry points that dispatch.
                    match t % 4 {
                        0 => assert!(utf8_validate(v.0, v.1)),
                        1 => assert!(!utf8_validate(i.0, i.1)),
                        2 => assert_eq!(utf8_first_error(i.0, i.1), at),
                        _ => assert_eq!(utf8_validate_chunk(START, i.0, i.1), 8),
                    }
                    // And the rest of them, right after.
                    for _ in 0..50 {
                        assert!(utf8_validate(v.0, v.1));
                        assert_eq!(utf8_first_error(i.0, i.1), at);
                        assert_eq!(utf8_first_error(v.0, v.1), valid.len());
                    }
                }
            })
        })
        .collect();
    let panicked = racers
        .into_iter()
        .map(|r| r.join())
        .filter(Result::is_err)
        .count();
    assert_eq!(
        panicked, 0,
        "threads whose answer was wrong (their panics are above)"
    );
    println!("{RACERS} threads agreed on the first call");
}
