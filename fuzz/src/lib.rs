//! Oracles and checks shared by the fuzz targets of the Rust crate
//! (`utf8validate-core`). The C library's functions are fuzzed by the C harness
//! `c-tests/fuzz/fuzz_c_api.c` against the RFC 3629 grammar (`c-tests/oracle.h`).
//!
//! Nothing here asks the library what the right answer is. Validity, offsets and
//! maximal-subpart lengths come from `std::str::from_utf8`; the error kind and the
//! state after a prefix are read off the bytes with the definitions of the header
//! (`utf8_error_kind`) and of the draft's state table (states A-G), written out again
//! here by hand. Every check panics on disagreement, which libFuzzer reports as a
//! crash and saves the input under `fuzz/artifacts/<target>/`.

use utf8validate_core::{ErrorKind, State};

/// `(valid_up_to, error_len)` from `std::str::from_utf8`; `None` when valid.
pub fn std_error(bytes: &[u8]) -> Option<(usize, Option<usize>)> {
    std::str::from_utf8(bytes)
        .err()
        .map(|e| (e.valid_up_to(), e.error_len()))
}

/// The error kind of the ill-formed sequence at `offset`, whose maximal subpart std
/// measured as `error_len` (`None`: the input ends inside the sequence).
///
/// From the header's definition of each kind: the lead byte alone decides it for
/// C0-C1, F5-FF and a stray 80-BF; for E0, ED, F0 and F4 a continuation byte outside
/// the allowed second-byte range makes it overlong / a surrogate / too large; any
/// other failure is a missing continuation byte.
pub fn expected_kind(bytes: &[u8], offset: usize, error_len: Option<usize>) -> ErrorKind {
    let Some(error_len) = error_len else {
        return ErrorKind::Truncated;
    };
    let lead = bytes[offset];
    let second = bytes.get(offset + 1).copied();
    let continuation = matches!(second, Some(0x80..=0xBF));
    if error_len > 1 {
        // A lead byte and 1-2 good continuation bytes, then a byte that is not one.
        return ErrorKind::MissingContinuation;
    }
    match lead {
        0x80..=0xBF => ErrorKind::UnexpectedContinuation,
        0xC0 | 0xC1 => ErrorKind::Overlong,
        0xF5..=0xF7 => ErrorKind::TooLarge,
        0xF8..=0xFF => ErrorKind::InvalidByte,
        0xE0 | 0xF0 if continuation => ErrorKind::Overlong,
        0xED if continuation => ErrorKind::Surrogate,
        0xF4 if continuation => ErrorKind::TooLarge,
        _ => ErrorKind::MissingContinuation,
    }
}

/// The state of the draft's machine after reading `prefix` from START, from the
/// meaning of each state (draft v0.4; the table in `src/state_machine.rs`), not
/// from the machine: START when `prefix` is valid, ERROR when it holds an
/// ill-formed sequence, otherwise the state that waits for the rest of the final,
/// incomplete character.
pub fn expected_state(prefix: &[u8]) -> State {
    match std_error(prefix) {
        None => State::Start,
        Some((_, Some(_))) => State::Error,
        Some((at, None)) => pending_state(&prefix[at..]),
    }
}

/// The state after `tail`, a proper prefix (1-3 bytes) of a well-formed character.
fn pending_state(tail: &[u8]) -> State {
    match (tail.len(), tail[0]) {
        (1, 0xC2..=0xDF) => State::A,
        (1, 0xE0) => State::C,
        (1, 0xED) => State::D,
        (1, 0xE1..=0xEF) => State::B,
        (1, 0xF0) => State::F,
        (1, 0xF4) => State::G,
        (1, 0xF1..=0xF3) => State::E,
        (2, 0xE0..=0xEF) => State::A,
        (2, 0xF0..=0xF4) => State::B,
        (3, 0xF0..=0xF4) => State::A,
        _ => panic!("std called {tail:02x?} a truncated character"),
    }
}

/// Every one-shot entry point, Rust and C, and every back end this CPU supports,
/// against the oracles on `data`.
pub fn check_one_shot(data: &[u8]) {
    let want = std_error(data);
    let want_offset = want.map(|(offset, _)| offset);

    assert_eq!(
        utf8validate_core::validate(data),
        want.is_none(),
        "validate"
    );
    assert_eq!(
        utf8validate_core::first_error(data),
        want_offset,
        "first_error"
    );
    assert_eq!(
        detail(utf8validate_core::check(data)),
        expected_check(data),
        "check"
    );
    // `from_utf8` in std's shape: std's `Ok` slice, or std's `valid_up_to` and
    // `error_len`.
    match (utf8validate_core::from_utf8(data), std::str::from_utf8(data)) {
        (Ok(got), Ok(want)) => assert!(std::ptr::eq(got, want), "from_utf8: another slice"),
        (Err(e), Err(s)) => assert_eq!(
            (e.valid_up_to(), e.error_len()),
            (s.valid_up_to(), s.error_len()),
            "from_utf8"
        ),
        (got, want) => panic!("from_utf8 gave {got:?}, std gave {want:?}"),
    }
    assert_eq!(
        utf8validate_core::validate_chunk(State::Start, data),
        expected_state(data),
        "validate_chunk from START"
    );

    for backend in utf8validate_core::backends::available() {
        let name = backend.name();
        assert_eq!(backend.validate(data), want.is_none(), "{name}: validate");
        assert_eq!(
            backend.first_error(data),
            want_offset,
            "{name}: first_error"
        );
    }
}

/// The split points a `chunked` input asks for, and its data.
///
/// Layout: byte 0's low 3 bits give the number of cuts `k` (0-7); the next `2k`
/// bytes are `k` little-endian `u16`s, each taken modulo `data.len() + 1`; the rest
/// is the data. Cuts are sorted, duplicates allowed (an empty chunk is a case too).
/// Inputs too short for their header are all data with no cuts.
pub fn split_input(input: &[u8]) -> (Vec<usize>, &[u8]) {
    let Some((&control, rest)) = input.split_first() else {
        return (Vec::new(), input);
    };
    let k = usize::from(control & 7);
    if rest.len() < 2 * k {
        return (Vec::new(), input);
    }
    let (header, data) = rest.split_at(2 * k);
    let mut cuts: Vec<usize> = header
        .chunks_exact(2)
        .map(|pair| usize::from(u16::from_le_bytes([pair[0], pair[1]])) % (data.len() + 1))
        .collect();
    cuts.sort_unstable();
    (cuts, data)
}

/// Feeds `data` in chunks cut at `cuts` through `step` (starting from START) and
/// checks the state after every chunk against [`expected_state`] of the prefix
/// read so far, then the final state against the one-shot verdict.
pub fn check_chunked(
    name: &str,
    data: &[u8],
    cuts: &[usize],
    step: impl Fn(State, &[u8]) -> State,
) {
    let mut state = State::Start;
    let mut from = 0;
    for &to in cuts.iter().chain(std::iter::once(&data.len())) {
        state = step(state, &data[from..to]);
        assert_eq!(
            state,
            expected_state(&data[..to]),
            "{name}: state after bytes {from}..{to} (cuts {cuts:?})"
        );
        from = to;
    }
    assert_eq!(
        state == State::Start,
        std_error(data).is_none(),
        "{name}: final verdict (cuts {cuts:?})"
    );
}

/// An error, field by field: what `Utf8Error`'s accessors must answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detail {
    /// `valid_up_to`.
    pub offset: usize,
    /// `error_len`: `None` when the input ends inside the sequence.
    pub error_len: Option<usize>,
    /// `subpart_len`: the maximal subpart, to the end when `error_len` is `None`.
    pub length: usize,
    /// `kind`.
    pub kind: ErrorKind,
}

/// The library's result, read through the error's accessors.
pub fn detail(result: Result<(), utf8validate_core::Utf8Error>) -> Result<(), Detail> {
    result.map_err(|e| Detail {
        offset: e.valid_up_to(),
        error_len: e.error_len(),
        length: e.subpart_len(),
        kind: e.kind(),
    })
}

/// The one-shot result the oracles give for `data`, as `check` must report it.
fn expected_check(data: &[u8]) -> Result<(), Detail> {
    match std_error(data) {
        None => Ok(()),
        Some((offset, error_len)) => Err(Detail {
            offset,
            error_len,
            length: error_len.unwrap_or(data.len() - offset),
            kind: expected_kind(data, offset, error_len),
        }),
    }
}

/// Feeds `data` in chunks cut at `cuts` to a [`utf8validate_core::Stream`], checking
/// after every chunk the return of `feed`, `position` and `finish` (which must be the
/// one-shot answer for the prefix read so far).
pub fn check_stream(data: &[u8], cuts: &[usize]) {
    check_stream_with("Stream::feed", data, cuts, |stream, chunk| stream.feed(chunk));
    for backend in utf8validate_core::backends::available() {
        check_stream_with(backend.name(), data, cuts, |stream, chunk| {
            backend.feed(stream, chunk)
        });
    }
}

/// [`check_stream`] with `feed` for each chunk (the crate's `Stream::feed`, or one
/// back end's).
fn check_stream_with(
    name: &str,
    data: &[u8],
    cuts: &[usize],
    feed: impl Fn(&mut utf8validate_core::Stream, &[u8]) -> bool,
) {
    let mut rust = utf8validate_core::Stream::new();
    let mut from = 0;
    for &to in cuts.iter().chain(std::iter::once(&data.len())) {
        let chunk = &data[from..to];
        let prefix = &data[..to];
        let want = expected_check(prefix);
        // An error (not a truncation) seen so far makes `feed` return false.
        let still_ok = expected_state(prefix) != State::Error;
        assert_eq!(
            feed(&mut rust, chunk),
            still_ok,
            "{name}: feed {from}..{to} (cuts {cuts:?})"
        );
        assert_eq!(
            detail(rust.finish()),
            want,
            "{name}: finish after {to} bytes (cuts {cuts:?})"
        );
        let position = match want {
            Err(e) if e.kind != ErrorKind::Truncated => e.offset,
            _ => to,
        };
        assert_eq!(rust.position(), position, "{name}: position after {to} bytes");
        from = to;
    }
}

/// What `escape_into` (`escape == true`) or `replace_into` must produce for `data`,
/// from `std`'s own split into valid runs and maximal subparts (`utf8_chunks`),
/// and where each unit (a character, an escape, a U+FFFD) of it ends.
pub fn expected_render(data: &[u8], escape: bool) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut ends = Vec::new();
    for chunk in data.utf8_chunks() {
        for ch in chunk.valid().chars() {
            match ch {
                '\\' if escape => out.extend_from_slice(b"\\\\"),
                '\0' if escape => out.extend_from_slice(b"\\x00"),
                _ => out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes()),
            }
            ends.push(out.len());
        }
        if chunk.invalid().is_empty() {
            continue;
        }
        if escape {
            for &byte in chunk.invalid() {
                out.extend_from_slice(format!("\\x{byte:02X}").as_bytes());
                ends.push(out.len());
            }
        } else {
            out.extend_from_slice("\u{FFFD}".as_bytes());
            ends.push(out.len());
        }
    }
    (out, ends)
}

/// `escape_into`/`replace_into` on `data`, with an output buffer of the full size and
/// one of `cap` bytes: the result, the length reported, truncation between units
/// only, and no write past the buffer.
pub fn check_render(data: &[u8], cap: usize) {
    const GUARD: u8 = 0xA5;
    for escape in [false, true] {
        let name = if escape { "escape" } else { "replace" };
        let (want, ends) = expected_render(data, escape);
        if !escape {
            assert_eq!(
                want,
                String::from_utf8_lossy(data).as_bytes(),
                "oracles disagree"
            );
        }
        let render = |out: &mut [u8]| {
            if escape {
                utf8validate_core::escape_into(data, out)
            } else {
                utf8validate_core::replace_into(data, out)
            }
        };
        // The longest run of whole units that fits in `room` bytes.
        let fits = |room: usize| {
            ends.iter()
                .copied()
                .take_while(|&e| e <= room)
                .last()
                .unwrap_or(0)
        };

        for room in [want.len(), cap % (want.len() + 1)] {
            let mut out = vec![GUARD; room + 8];
            let r = render(&mut out[..room]);
            assert_eq!(r.needed, want.len(), "{name}: needed");
            assert_eq!(r.written, fits(room), "{name}: written into {room} bytes");
            assert_eq!(
                &out[..r.written],
                &want[..r.written],
                "{name}: text into {room} bytes"
            );
            assert!(
                out[room..].iter().all(|&b| b == GUARD),
                "{name}: wrote past {room} bytes"
            );
        }
    }
}
