//! The concurrency harness shared by `tests/concurrency.rs` (the Rust API) and
//! `c-tests/tests/concurrency.rs` (the C library, which includes this module by
//! path): many threads calling a checker at once, and the CPU-feature dispatch
//! raced on its first use in fresh processes. Each caller passes the calls to make;
//! their answers are checked by the caller against `oracle`, never here.
#![allow(dead_code)]

use std::process::Command;
use std::sync::Barrier;
use std::thread;

use super::oracle::inputs::{cases, text, Rng};
use super::oracle::{std_error, SAMPLES};

/// Threads per test; more than this machine's cores, so they interleave.
pub const THREADS: usize = 8;
/// Set in the child processes of [`race_first_call_in_children`].
const CHILD_ENV: &str = "UTF8VALIDATE_RACE_CHILD";
/// Threads racing on the first call in each child.
pub const RACERS: usize = 32;

/// `check(bytes, cut)` from [`THREADS`] threads at once, released together, each
/// walking the same shared buffers from a different place.
pub fn on_shared_buffers(check: impl Fn(&[u8], usize) + Sync) {
    let cases = cases(1);
    let start = Barrier::new(THREADS);
    thread::scope(|scope| {
        for t in 0..THREADS {
            let (cases, start, check) = (&cases, &start, &check);
            scope.spawn(move || {
                start.wait();
                for i in 0..cases.len() {
                    check(&cases[(i + t * 7) % cases.len()], i * 31 + t);
                }
            });
        }
    });
}

/// `check(bytes, cut)` from [`THREADS`] threads at once, each on a buffer of its own
/// that it keeps changing: a byte overwritten, inserted or deleted before each call,
/// and back to valid text every 50 rounds, so both verdicts occur.
pub fn on_changing_buffers(check: impl Fn(&[u8], usize) + Sync) {
    let start = Barrier::new(THREADS);
    thread::scope(|scope| {
        for t in 0..THREADS {
            let (start, check) = (&start, &check);
            scope.spawn(move || {
                let mut rng = Rng(100 + t as u64);
                let mut bytes = text(&mut rng, 300 + 40 * t, 2);
                start.wait();
                for round in 0..150 {
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
                        bytes = text(&mut rng, 300 + 40 * t, 0);
                    }
                    check(&bytes, rng.below(bytes.len() + 1));
                }
            });
        }
    });
}

/// Runs the test named `child_test` (which calls [`race_in_child`]) alone in six
/// fresh processes of this test binary, so that in each the library's first call
/// ever is made by many threads at once; fails unless every child ran the race and
/// every thread's answer was right.
pub fn race_first_call_in_children(child_test: &str) {
    let exe = std::env::current_exe().unwrap();
    for run in 0..6 {
        let out = Command::new(&exe)
            .args(["--exact", child_test, "--ignored", "--nocapture"])
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

/// The inputs of the race, with their answers from std.
pub struct RaceInputs {
    /// Multilingual text longer than a SIMD block, so every call dispatches.
    pub valid: Vec<u8>,
    /// `valid` with a surrogate (ED A0 80) inserted at `at`.
    pub invalid: Vec<u8>,
    /// Where the surrogate starts: the first error of `invalid`.
    pub at: usize,
}

/// The body of the race, for a test run only by [`race_first_call_in_children`]
/// (a no-op elsewhere): [`RACERS`] threads released by one barrier each call
/// `first_call(thread_index, inputs)` and then `more_calls(inputs)` 50 times.
/// Call nothing of the library before this, except what does not dispatch.
pub fn race_in_child(
    first_call: impl Fn(usize, &RaceInputs) + Sync,
    more_calls: impl Fn(&RaceInputs) + Sync,
) {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    // The expected answers come from std, before any thread touches the library.
    let text = SAMPLES.concat();
    let at = (150..).find(|&i| text.is_char_boundary(i)).unwrap();
    let valid = text.into_bytes();
    let mut invalid = valid.clone();
    invalid.splice(at..at, *b"\xED\xA0\x80");
    assert!(valid.len() > 256 && std_error(&valid).is_none());
    assert_eq!(std_error(&invalid), Some((at, Some(1))));
    let inputs = RaceInputs { valid, invalid, at };
    let barrier = Barrier::new(RACERS);
    let panicked = thread::scope(|scope| {
        let racers: Vec<_> = (0..RACERS)
            .map(|t| {
                let (inputs, barrier) = (&inputs, &barrier);
                let (first_call, more_calls) = (&first_call, &more_calls);
                scope.spawn(move || {
                    barrier.wait();
                    first_call(t, inputs);
                    for _ in 0..50 {
                        more_calls(inputs);
                    }
                })
            })
            .collect();
        racers
            .into_iter()
            .map(|r| r.join())
            .filter(Result::is_err)
            .count()
    });
    assert_eq!(
        panicked, 0,
        "threads whose answer was wrong (their panics are above)"
    );
    println!("{RACERS} threads agreed on the first call");
}
