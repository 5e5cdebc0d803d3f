//! Concurrency: every public function called from many threads at once, on buffers
//! the threads share and on buffers each thread owns and keeps changing; and the
//! CPU-feature dispatch raced on its very first use, in fresh processes. (The C
//! library's functions: `c-tests/tests/concurrency.rs`.)
//!
//! Every answer is checked against `std::str::from_utf8` (through `oracle`), or
//! against the header's documented constants, never against another call of the
//! library.

mod oracle;

use std::process::Command;
use std::sync::{Arc, Barrier};
use std::thread;

use oracle::inputs::{cases, text, Rng};
use oracle::render::unescape;
use oracle::{std_error, SAMPLES};
use utf8validate_core::{ErrorKind, State};

/// Threads per test; more than this machine's cores, so they interleave.
const THREADS: usize = 8;

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
    assert_eq!(utf8validate_core::validate(bytes), valid);
    assert_eq!(utf8validate_core::first_error(bytes), offset);
    match utf8validate_core::check(bytes) {
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
    let state = utf8validate_core::validate_chunk(State::Start, head);
    let state = utf8validate_core::validate_chunk(state, tail);
    assert_eq!(state == State::Start, valid);
    let stepped = bytes
        .iter()
        .fold(State::Start, |s, &b| utf8validate_core::next_state(s, b));
    assert_eq!(stepped == State::Start, valid);
    assert_eq!(stepped == State::Error, matches!(want, Some((_, Some(_)))));

    // Each back end this CPU supports.
    for backend in utf8validate_core::backends::available() {
        assert_eq!(backend.validate(bytes), valid, "{}", backend.name());
        assert_eq!(backend.first_error(bytes), offset, "{}", backend.name());
        let s = backend.validate_chunk(backend.validate_chunk(State::Start, head), tail);
        assert_eq!(s == State::Start, valid, "{}", backend.name());
    }

    // Data in pieces: the stream must give the one-shot answer.
    let mut stream = utf8validate_core::Stream::new();
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
    let r = utf8validate_core::replace_into(bytes, &mut out);
    assert_eq!(&out[..r.written], lossy.as_bytes());
    let r = utf8validate_core::escape_into(bytes, &mut out);
    assert!(r.is_complete());
    assert_eq!(unescape(&out[..r.written]), bytes);
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
                    0 => assert!(utf8validate_core::validate(valid)),
                    1 => assert!(!utf8validate_core::validate(invalid)),
                    2 => assert_eq!(utf8validate_core::first_error(invalid), Some(at)),
                    3 => assert_eq!(utf8validate_core::first_error(valid), None),
                    4 => assert_eq!(
                        utf8validate_core::validate_chunk(State::Start, invalid),
                        State::Error
                    ),
                    5 => {
                        let mut stream = utf8validate_core::Stream::new();
                        assert!(!stream.feed(invalid));
                        assert_eq!(stream.finish().map_err(|e| e.offset), Err(at));
                    }
                    6 => {
                        let mut out = vec![0; 3 * invalid.len()];
                        let r = utf8validate_core::replace_into(invalid, &mut out);
                        assert_eq!(
                            &out[..r.written],
                            String::from_utf8_lossy(invalid).as_bytes()
                        );
                    }
                    _ => assert_eq!(utf8validate_core::valid_up_to(invalid), at),
                }
                // And the rest of them, right after.
                for _ in 0..50 {
                    assert!(utf8validate_core::validate(valid));
                    assert_eq!(utf8validate_core::first_error(invalid), Some(at));
                    assert_eq!(
                        utf8validate_core::check(invalid).map_err(|e| e.offset),
                        Err(at)
                    );
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
