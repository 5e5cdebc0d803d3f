//! Oracles and checks shared by the fuzz targets.
//!
//! Nothing here asks the library what the right answer is. Validity, offsets and
//! maximal-subpart lengths come from `std::str::from_utf8`; the error kind and the
//! state after a prefix are read off the bytes with the definitions of the header
//! (`utf8_error_kind`) and of the draft's state table (states A-G), written out again
//! here by hand. Every check panics on disagreement, which libFuzzer reports as a
//! crash and saves the input under `fuzz/artifacts/<target>/`.

use std::ffi::CString;

use utf8validate::{ErrorKind, State};

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

    assert_eq!(utf8validate::validate(data), want.is_none(), "validate");
    assert_eq!(utf8validate::first_error(data), want_offset, "first_error");
    match (utf8validate::check(data), want) {
        (Ok(()), None) => {}
        (Err(e), Some((offset, error_len))) => {
            assert_eq!(e.offset, offset, "check: offset");
            let length = error_len.unwrap_or(data.len() - offset);
            assert_eq!(e.length, length, "check: length (maximal subpart)");
            assert_eq!(
                e.kind,
                expected_kind(data, offset, error_len),
                "check: kind"
            );
        }
        (got, want) => panic!("check gave {got:?}, std gave {want:?}"),
    }
    assert_eq!(
        utf8validate::validate_chunk(State::Start, data),
        expected_state(data),
        "validate_chunk from START"
    );

    for backend in utf8validate::backends::available() {
        let name = backend.name();
        assert_eq!(backend.validate(data), want.is_none(), "{name}: validate");
        assert_eq!(
            backend.first_error(data),
            want_offset,
            "{name}: first_error"
        );
    }

    check_c_abi(data, want);
}

/// The `extern "C"` functions, called as C calls them, on `data` and on a
/// NUL-terminated copy of its bytes before the first NUL.
fn check_c_abi(data: &[u8], want: Option<(usize, Option<usize>)>) {
    use utf8validate::ffi;
    let (ptr, len) = (data.as_ptr().cast(), data.len());
    // SAFETY: `ptr` points to `len` readable bytes (a live slice); `err` is a local.
    unsafe {
        assert_eq!(
            ffi::utf8_validate(ptr, len),
            want.is_none(),
            "utf8_validate"
        );
        let first = want.map_or(len, |(offset, _)| offset);
        assert_eq!(ffi::utf8_first_error(ptr, len), first, "utf8_first_error");
        let mut err = std::mem::MaybeUninit::<utf8validate::Utf8Error>::uninit();
        let ok = ffi::utf8_check(ptr, len, err.as_mut_ptr());
        // SAFETY (of assume_init): utf8_check always writes `*err` when it is non-NULL.
        let err = err.assume_init();
        assert_eq!(ok, want.is_none(), "utf8_check: verdict");
        assert_eq!(err.offset, first, "utf8_check: offset");
        let length = match want {
            None => 0,
            Some((offset, error_len)) => error_len.unwrap_or(len - offset),
        };
        assert_eq!(err.length, length, "utf8_check: length");
        let kind = match want {
            None => ErrorKind::None,
            Some((offset, error_len)) => expected_kind(data, offset, error_len),
        };
        assert_eq!(err.kind, kind, "utf8_check: kind");
        assert_eq!(
            ffi::utf8_check(ptr, len, std::ptr::null_mut()),
            want.is_none()
        );
        let end = ffi::utf8_validate_chunk(ffi::StateArg(State::Start as u32), ptr, len);
        assert_eq!(end, expected_state(data), "utf8_validate_chunk");
    }

    let before_nul = data.split(|&b| b == 0).next().unwrap_or(&[]);
    let want = std_error(before_nul);
    let c_string = CString::new(before_nul).expect("no interior NUL by construction");
    // SAFETY: `c_string` is a live NUL-terminated string.
    unsafe {
        let s = c_string.as_ptr();
        assert_eq!(
            ffi::utf8_validate_cstr(s),
            want.is_none(),
            "utf8_validate_cstr"
        );
        let first = want.map_or(before_nul.len(), |(offset, _)| offset);
        assert_eq!(
            ffi::utf8_first_error_cstr(s),
            first,
            "utf8_first_error_cstr"
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

/// Feeds `data` in pieces cut at `cuts` through `step` (starting from START) and
/// checks the state after every piece against [`expected_state`] of the prefix
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
