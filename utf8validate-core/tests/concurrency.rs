//! Concurrency: every public function called from many threads at once, on buffers
//! the threads share and on buffers each thread owns and keeps changing; and the
//! CPU-feature dispatch raced on its very first use, in fresh processes. (The C
//! library's functions: `c-tests/tests/concurrency.rs`.)
//!
//! Every answer is checked against `std::str::from_utf8` (through `oracle`), or
//! against the header's documented constants, never against another call of the
//! library.

mod oracle;
mod threads;

use oracle::render::unescape;
use oracle::std_error;
use threads::RaceInputs;
use utf8validate_core::{ErrorKind, State};

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
            assert_eq!(Some(e.valid_up_to()), offset);
            assert_eq!(e.subpart_len(), length);
            assert_eq!(
                e.kind() == ErrorKind::Truncated,
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

    // Data in chunks: the stream must give the one-shot answer.
    let mut stream = utf8validate_core::Stream::new();
    assert_eq!(
        stream.feed(head) & stream.feed(tail),
        !matches!(want, Some((_, Some(_))))
    );
    match stream.finish() {
        Ok(()) => assert!(valid),
        Err(e) => assert_eq!((Some(e.valid_up_to()), e.subpart_len()), (offset, length)),
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
/// `dispatch_is_race_free_on_first_use`: ignored in an ordinary test run, where the
/// library has long been called, and a no-op if run with `--ignored` elsewhere.
#[test]
#[ignore = "run in a fresh child process by dispatch_is_race_free_on_first_use"]
fn racing_first_call_child() {
    threads::race_in_child(
        // Each thread's first call is one of the entry points that dispatch.
        |t, RaceInputs { valid, invalid, at }| match t % 8 {
            0 => assert!(utf8validate_core::validate(valid)),
            1 => assert!(!utf8validate_core::validate(invalid)),
            2 => assert_eq!(utf8validate_core::first_error(invalid), Some(*at)),
            3 => assert_eq!(utf8validate_core::first_error(valid), None),
            4 => assert_eq!(
                utf8validate_core::validate_chunk(State::Start, invalid),
                State::Error
            ),
            5 => {
                let mut stream = utf8validate_core::Stream::new();
                assert!(!stream.feed(invalid));
                assert_eq!(stream.finish().map_err(|e| e.valid_up_to()), Err(*at));
            }
            6 => {
                let mut out = vec![0; 3 * invalid.len()];
                let r = utf8validate_core::replace_into(invalid, &mut out);
                assert_eq!(
                    &out[..r.written],
                    String::from_utf8_lossy(invalid).as_bytes()
                );
            }
            _ => assert_eq!(utf8validate_core::valid_up_to(invalid), *at),
        },
        |RaceInputs { valid, invalid, at }| {
            assert!(utf8validate_core::validate(valid));
            assert_eq!(utf8validate_core::first_error(invalid), Some(*at));
            assert_eq!(
                utf8validate_core::check(invalid).map_err(|e| e.valid_up_to()),
                Err(*at)
            );
        },
    );
}
