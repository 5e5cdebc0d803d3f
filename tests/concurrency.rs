//! Concurrency: every public function, Rust and C, called from many threads at once,
//! on buffers the threads share and on buffers each thread owns and keeps changing;
//! and the CPU-feature dispatch raced on its very first use, in fresh processes.
//!
//! Every answer is checked against `std::str::from_utf8` (through `oracle`), or
//! against the header's documented constants, never against another call of the
//! library.

mod oracle;

use std::ffi::{CStr, CString};
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::thread;

use oracle::{std_error, SAMPLES};
use utf8validate::{ffi, ErrorKind, State};

/// Threads per test; more than this machine's cores, so they interleave.
const THREADS: usize = 8;

/// A small deterministic generator (SplitMix64): reproducible inputs without a
/// dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Ill-formed sequences of every kind, and a NUL (for the C-string functions).
const BAD: &[&[u8]] = &[
    b"\x80",
    b"\xBF",
    b"\xC0\xAF",
    b"\xC3\x41",
    b"\xE0\x9F\xBF",
    b"\xED\xA0\x80",
    b"\xF0\x8F\xBF\xBF",
    b"\xF4\x90\x80\x80",
    b"\xF5",
    b"\xFF",
    b"\xE2\x82",
    b"\xF0\x9F\x98",
    b"\x00",
];

/// Multilingual text of about `len` bytes, with up to `edits` ill-formed sequences
/// inserted at random places and, sometimes, cut at a random byte.
fn text(rng: &mut Rng, len: usize, edits: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(len + 16);
    while bytes.len() < len {
        bytes.extend_from_slice(SAMPLES[rng.below(SAMPLES.len())].as_bytes());
    }
    for _ in 0..rng.below(edits + 1) {
        let at = rng.below(bytes.len() + 1);
        let bad = BAD[rng.below(BAD.len())];
        bytes.splice(at..at, bad.iter().copied());
    }
    if rng.below(3) == 0 {
        bytes.truncate(rng.below(bytes.len() + 1));
    }
    bytes
}

/// Inputs from empty to several SIMD blocks long, valid and not.
fn cases(seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng(seed);
    let mut all = vec![Vec::new(), b"a".to_vec(), "é".as_bytes().to_vec()];
    for len in (1..200).step_by(7).chain([255, 256, 511, 1000, 4096]) {
        all.push(text(&mut rng, len, 0));
        all.push(text(&mut rng, len, 3));
    }
    all
}

/// Every public function on `bytes`, each answer against `std::str::from_utf8`;
/// chunked forms cut at `cut` (taken modulo the length).
fn check_everything(bytes: &[u8], cut: usize) {
    let want = std_error(bytes);
    let valid = want.is_none();
    let offset = want.map(|(offset, _)| offset);
    let length = want.map_or(0, |(at, len)| len.unwrap_or(bytes.len() - at));
    let cut = cut % (bytes.len() + 1);
    let (head, tail) = bytes.split_at(cut);

    // The Rust API.
    assert_eq!(utf8validate::validate(bytes), valid);
    assert_eq!(utf8validate::first_error(bytes), offset);
    match utf8validate::check(bytes) {
        Ok(()) => assert!(valid),
        Err(e) => {
            assert_eq!(Some(e.offset), offset);
            assert_eq!(e.length, length);
            assert_eq!(
                e.kind == ErrorKind::Truncated,
                matches!(want, Some((_, None)))
            );
        }
    }
    let state = utf8validate::validate_chunk(State::Start, head);
    let state = utf8validate::validate_chunk(state, tail);
    assert_eq!(state == State::Start, valid);
    let stepped = bytes
        .iter()
        .fold(State::Start, |s, &b| utf8validate::next_state(s, b));
    assert_eq!(stepped == State::Start, valid);
    assert_eq!(stepped == State::Error, matches!(want, Some((_, Some(_)))));

    // Each back end this CPU supports.
    for backend in utf8validate::backends::available() {
        assert_eq!(backend.validate(bytes), valid, "{}", backend.name());
        assert_eq!(backend.first_error(bytes), offset, "{}", backend.name());
        let s = backend.validate_chunk(backend.validate_chunk(State::Start, head), tail);
        assert_eq!(s == State::Start, valid, "{}", backend.name());
    }

    // Data in pieces: the stream must give the one-shot answer.
    let mut stream = utf8validate::Stream::new();
    assert_eq!(
        stream.feed(head) & stream.feed(tail),
        !matches!(want, Some((_, Some(_))))
    );
    match stream.finish() {
        Ok(()) => assert!(valid),
        Err(e) => assert_eq!((Some(e.offset), e.length), (offset, length)),
    }

    // Rendering for logs: U+FFFD as std does it, and an escape that decodes back.
    let lossy = String::from_utf8_lossy(bytes);
    let mut out = vec![0u8; 4 * bytes.len() + 1];
    let r = utf8validate::replace_into(bytes, &mut out);
    assert_eq!(&out[..r.written], lossy.as_bytes());
    let r = utf8validate::escape_into(bytes, &mut out);
    assert!(r.is_complete());
    assert_eq!(unescape(&out[..r.written]), bytes);

    // The C ABI, called as C calls it.
    let (ptr, len) = (bytes.as_ptr().cast(), bytes.len());
    let before_nul = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
    let c_string = CString::new(before_nul).unwrap();
    let want_c = std_error(before_nul);
    // SAFETY: every pointer points to a live slice of the given length, a live
    // NUL-terminated string, or a local; `ErrorKindArg` and `StateArg` take any value.
    unsafe {
        assert_eq!(ffi::utf8_validate(ptr, len), valid);
        assert_eq!(ffi::utf8_first_error(ptr, len), offset.unwrap_or(len));
        let mut err = std::mem::MaybeUninit::uninit();
        assert_eq!(ffi::utf8_check(ptr, len, err.as_mut_ptr()), valid);
        let err: utf8validate::Utf8Error = err.assume_init();
        assert_eq!(err.offset, offset.unwrap_or(len));
        assert_eq!(err.length, length);
        let s = ffi::utf8_validate_chunk(ffi::StateArg(0), head.as_ptr().cast(), head.len());
        let s = ffi::utf8_validate_chunk(ffi::StateArg(s as u32), tail.as_ptr().cast(), tail.len());
        assert_eq!(s == State::Start, valid);
        assert_eq!(ffi::utf8_validate_cstr(c_string.as_ptr()), want_c.is_none());
        let first_c = want_c.map_or(before_nul.len(), |(offset, _)| offset);
        assert_eq!(ffi::utf8_first_error_cstr(c_string.as_ptr()), first_c);
        if valid {
            // Return without a word on valid input (they print and abort/return
            // false otherwise, which is not what this test is about).
            let site = c"concurrency.rs".as_ptr();
            ffi::utf8_assert_valid(ptr.cast(), len, site, site, 1, site);
            assert!(ffi::utf8_check_or_log(ptr.cast(), len, site, site, 1, site));
        }
        let mut c_stream = std::mem::MaybeUninit::uninit();
        ffi::utf8_stream_init(c_stream.as_mut_ptr());
        ffi::utf8_stream_feed(c_stream.as_mut_ptr(), head.as_ptr().cast(), head.len());
        ffi::utf8_stream_feed(c_stream.as_mut_ptr(), tail.as_ptr().cast(), tail.len());
        let mut err = std::mem::MaybeUninit::uninit();
        assert_eq!(
            ffi::utf8_stream_finish(c_stream.as_ptr(), err.as_mut_ptr()),
            valid
        );
        let err: utf8validate::Utf8Error = err.assume_init();
        assert_eq!(err.offset, offset.unwrap_or(len));
        let cap = out.len();
        let needed = ffi::utf8_replace(ptr, len, out.as_mut_ptr().cast(), cap);
        assert_eq!(&out[..needed], lossy.as_bytes());
        assert_eq!(out[needed], 0);
        let needed = ffi::utf8_escape(ptr, len, out.as_mut_ptr().cast(), cap);
        assert_eq!(unescape(&out[..needed]), bytes);
        for &b in bytes.iter().take(8) {
            assert_eq!(ffi::utf8_byte_class(b), class_of(b));
        }
        let kind = usize::from(bytes.first().copied().unwrap_or(0)) % 9;
        let name = CStr::from_ptr(ffi::utf8_error_kind_name(ffi::ErrorKindArg(kind as u32)));
        assert_eq!(name.to_str().unwrap(), KIND_NAMES[kind]);
        let message = CStr::from_ptr(ffi::utf8_error_kind_message(ffi::ErrorKindArg(kind as u32)));
        assert!(message.to_bytes().ends_with(b"."));
        let version = CStr::from_ptr(ffi::utf8validate_version());
        assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}

/// Decodes an escaped rendering as the header documents it: `\\` is a backslash,
/// `\xHH` the byte 0xHH, every other byte itself.
fn unescape(text: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        match (text[i], text.get(i + 1)) {
            (b'\\', Some(b'\\')) => {
                bytes.push(b'\\');
                i += 2;
            }
            (b'\\', Some(b'x')) => {
                let hex = std::str::from_utf8(&text[i + 2..i + 4]).unwrap();
                bytes.push(u8::from_str_radix(hex, 16).unwrap());
                i += 4;
            }
            (b, _) => {
                bytes.push(b);
                i += 1;
            }
        }
    }
    bytes
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
        // The child really ran the race (the filter matched, the env var arrived).
        assert!(
            stdout.contains(&format!("{RACERS} threads agreed on the first call")),
            "child {run} did not race:\n{stdout}\n{stderr}"
        );
    }
}

/// The body of the race, run only in a child process (see above): ignored in an
/// ordinary test run, where the library has long been called, and a no-op if run
/// with `--ignored` outside such a child.
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
    let inputs = Arc::new((valid, invalid));
    let barrier = Arc::new(Barrier::new(RACERS));
    let racers: Vec<thread::JoinHandle<()>> = (0..RACERS)
        .map(|t| {
            let (inputs, barrier) = (Arc::clone(&inputs), Arc::clone(&barrier));
            thread::spawn(move || {
                let (valid, invalid) = (&inputs.0, &inputs.1);
                barrier.wait();
                // Each thread's first call is one of the entry points that dispatch.
                match t % 8 {
                    0 => assert!(utf8validate::validate(valid)),
                    1 => assert!(!utf8validate::validate(invalid)),
                    2 => assert_eq!(utf8validate::first_error(invalid), Some(at)),
                    3 => assert_eq!(utf8validate::first_error(valid), None),
                    4 => assert_eq!(
                        utf8validate::validate_chunk(State::Start, invalid),
                        State::Error
                    ),
                    5 => {
                        let mut stream = utf8validate::Stream::new();
                        assert!(!stream.feed(invalid));
                        assert_eq!(stream.finish().map_err(|e| e.offset), Err(at));
                    }
                    6 => {
                        let mut out = vec![0; 3 * invalid.len()];
                        let r = utf8validate::replace_into(invalid, &mut out);
                        assert_eq!(
                            &out[..r.written],
                            String::from_utf8_lossy(invalid).as_bytes()
                        );
                    }
                    // SAFETY: `invalid` is a live slice of that length.
                    _ => assert_eq!(
                        unsafe { ffi::utf8_first_error(invalid.as_ptr().cast(), invalid.len()) },
                        at
                    ),
                }
                // And the rest of them, right after.
                for _ in 0..50 {
                    assert!(utf8validate::validate(valid));
                    assert_eq!(utf8validate::first_error(invalid), Some(at));
                    assert_eq!(utf8validate::check(invalid).map_err(|e| e.offset), Err(at));
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
