//! The draft's state machine, exactly as Frank Yung-Fong Tang's "The Algorithm to
//! Validate an UTF-8 String" (draft 0.4, section "A state machine algorithm") gives it.
//!
//! Every byte falls into one of 12 [`ByteClass`]es, numbered in the draft's table order,
//! and the machine moves between the states [`State::Start`], `A`-`G` and
//! [`State::Error`] one byte at a time. The meaning of the states:
//!
//! | state | seen so far                  | next byte must be            |
//! |-------|------------------------------|------------------------------|
//! | START | a whole character (boundary) | a lead byte or ASCII         |
//! | A     | all but 1 continuation byte  | 80-BF, then START            |
//! | B     | all but 2 continuation bytes | 80-BF, then A                |
//! | C     | E0                           | A0-BF (no overlong), then A  |
//! | D     | ED                           | 80-9F (no surrogate), then A |
//! | E     | F1-F3                        | 80-BF, then B                |
//! | F     | F0                           | 90-BF (no overlong), then B  |
//! | G     | F4                           | 80-8F (<= U+10FFFF), then B  |
//! | ERROR | an ill-formed sequence       | nothing: ERROR is absorbing  |
//!
//! The accepted language is exactly the `UTF8-octets` grammar of RFC 3629 §4, which is
//! Unicode's Table 3-7 "Well-Formed UTF-8 Byte Sequences". Every other part of the
//! library is defined as giving the same answer as [`next_state`] run over the input.

/// The state of the draft's machine between two bytes.
///
/// The discriminants are part of the C ABI (`utf8_state` in `utf8validate.h`): they
/// are explicit and will only ever be appended to.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// At a character boundary: nothing pending. The only accepting state.
    Start = 0,
    /// One continuation byte (80-BF) still expected.
    A = 1,
    /// Two continuation bytes (80-BF, 80-BF) still expected.
    B = 2,
    /// After E0: a second byte A0-BF expected (80-9F would be an overlong form).
    C = 3,
    /// After ED: a second byte 80-9F expected (A0-BF would encode a surrogate).
    D = 4,
    /// After F1-F3: three continuation bytes still expected.
    E = 5,
    /// After F0: a second byte 90-BF expected (80-8F would be an overlong form).
    F = 6,
    /// After F4: a second byte 80-8F expected (90-BF would exceed U+10FFFF).
    G = 7,
    /// An ill-formed sequence was seen. Absorbing: every byte keeps the machine here.
    Error = 8,
}

// `State::from_raw` writes a discriminant as an integer of the enum's width.
const _: () = assert!(core::mem::size_of::<State>() == 4 || core::mem::size_of::<State>() == 1);

impl State {
    /// All states, in discriminant order.
    ///
    /// cbindgen:ignore
    pub const ALL: [State; 9] = [
        State::Start,
        State::A,
        State::B,
        State::C,
        State::D,
        State::E,
        State::F,
        State::G,
        State::Error,
    ];

    /// The state whose discriminant is `raw`; any value outside `0..=8` is
    /// [`State::Error`] (the C ABI's rule for out-of-range `utf8_state` values).
    #[inline]
    pub const fn from_raw(raw: u32) -> State {
        // A clamp and the discriminant taken as the state: no `match`, which
        // becomes a jump table when the state comes from memory (a stream's
        // carried state), mispredicted whenever the state changes, and no table,
        // a load on every call.
        let index = if raw < State::Error as u32 {
            raw
        } else {
            State::Error as u32
        };
        // SAFETY: `index` is at most ERROR's discriminant.
        unsafe { State::from_discriminant(index) }
    }

    /// The state whose discriminant is `raw`, without a test: for a value that is
    /// one by construction (read from a table of discriminants).
    ///
    /// # Safety
    /// `raw` must be at most 8 (`State::Error as u32`).
    #[inline(always)]
    pub(crate) const unsafe fn from_discriminant(raw: u32) -> State {
        /// The integer a `State` is stored as, of the C enum's width.
        #[repr(C)]
        union Discriminant {
            int: u32,
            byte: u8,
            state: State,
        }
        let bits = if core::mem::size_of::<State>() == 1 {
            Discriminant { byte: raw as u8 }
        } else {
            Discriminant { int: raw }
        };
        // SAFETY: `State` is `repr(C)`: stored as the C enum of the target, an
        // integer of 4 bytes, or of 1 byte where enums are short (the assertion
        // after `State`), holding the discriminant. `bits` holds `raw`, one of
        // the discriminants 0..=8 (the caller guarantees it), as an integer of
        // that width.
        unsafe { bits.state }
    }

    /// A byte that takes the machine from START to this state, so that checking
    /// the bytes that follow it checks them from this state: 00 (ASCII) for START,
    /// the lead bytes C2, E1, E0, ED, F1, F0 and F4 for A-G, and C0 (which no byte
    /// may follow) for ERROR. A state reached by more bytes than its lead byte (A
    /// after E1 80, say) needs the same bytes after it as after that lead byte.
    /// The vector checks of a chunk take it as the byte before the chunk (from a
    /// table of rows built with it at compile time, `simd::rules`'s `BEFORE`).
    #[cfg(simd_back_end)]
    #[inline]
    #[allow(
        clippy::indexing_slicing,
        reason = "the table has a byte per State variant (checked by its type)"
    )]
    pub(crate) const fn lead_byte(self) -> u8 {
        // START, A, B, C, D, E, F, G, ERROR.
        const LEAD_BYTES: [u8; State::ALL.len()] =
            [0x00, 0xC2, 0xE1, 0xE0, 0xED, 0xF1, 0xF0, 0xF4, 0xC0];
        LEAD_BYTES[self as usize]
    }

    /// How many more continuation bytes this state needs before it returns to START
    /// (0 for START and ERROR), by the sequence lengths of RFC 3629 §4 (Unicode
    /// §3.9, Table 3-7). Every state has an answer.
    #[inline]
    pub const fn pending_continuations(self) -> usize {
        match self {
            State::Start | State::Error => 0,
            State::A => 1,
            State::B | State::C | State::D => 2,
            State::E | State::F | State::G => 3,
        }
    }
}

/// One of the draft's 12 byte classes, numbered 0-11 in the order of its table rows.
///
/// | class | bytes                | role                                    |
/// |-------|----------------------|-----------------------------------------|
/// | 0     | 00-7F                | ASCII                                   |
/// | 1     | 80-8F                | continuation byte                       |
/// | 2     | 90-9F                | continuation byte                       |
/// | 3     | A0-BF                | continuation byte                       |
/// | 4     | C0-C1, F5-FF         | never used in UTF-8                     |
/// | 5     | C2-DF                | lead byte of a 2-byte sequence          |
/// | 6     | E0                   | lead of a 3-byte sequence (overlong risk) |
/// | 7     | E1-EC, EE-EF         | lead byte of a 3-byte sequence          |
/// | 8     | ED                   | lead of a 3-byte sequence (surrogates)  |
/// | 9     | F0                   | lead of a 4-byte sequence (overlong risk) |
/// | 10    | F1-F3                | lead byte of a 4-byte sequence          |
/// | 11    | F4                   | lead of a 4-byte sequence (> U+10FFFF risk) |
pub type ByteClass = u8;

/// Number of byte classes.
pub const CLASS_COUNT: usize = 12;

/// The class of every byte value (see [`ByteClass`]).
pub static BYTE_CLASS: [ByteClass; 256] = build_class_table();

#[allow(
    clippy::indexing_slicing,
    reason = "runs only at compile time, for a static's initialiser: an index out of range would fail the build, not panic"
)]
const fn build_class_table() -> [ByteClass; 256] {
    let mut table = [0u8; 256];
    let mut b = 0usize;
    while b < 256 {
        table[b] = match b as u8 {
            0x00..=0x7F => 0,
            0x80..=0x8F => 1,
            0x90..=0x9F => 2,
            0xA0..=0xBF => 3,
            0xC0..=0xC1 | 0xF5..=0xFF => 4,
            0xC2..=0xDF => 5,
            0xE0 => 6,
            0xE1..=0xEC | 0xEE..=0xEF => 7,
            0xED => 8,
            0xF0 => 9,
            0xF1..=0xF3 => 10,
            0xF4 => 11,
        };
        b += 1;
    }
    table
}

/// The class (0-11) of `byte`, in the draft's table order: the byte ranges of
/// RFC 3629 §4 (Unicode §3.9, Table 3-7) that lead to different next states. Every
/// byte has a class; there is no error case.
#[inline]
#[allow(
    clippy::indexing_slicing,
    reason = "a byte indexes a table of 256 entries: always in range, and no check is emitted"
)]
pub const fn byte_class(byte: u8) -> ByteClass {
    BYTE_CLASS[byte as usize]
}

use State::{Error as X, Start as S, A, B, C, D, E, F, G};

/// The draft's transition table: `TRANSITIONS[state][class]` is the next state.
///
/// Rows are the states START, A-G, ERROR; columns the 12 byte classes.
#[rustfmt::skip]
pub static TRANSITIONS: [[State; CLASS_COUNT]; State::ALL.len()] = [
    //        00-7F 80-8F 90-9F A0-BF C0C1+ C2-DF  E0  E1-EF  ED    F0  F1-F3  F4
    /* START */ [S,    X,    X,    X,    X,    A,    C,    B,    D,    F,    E,    G],
    /* A     */ [X,    S,    S,    S,    X,    X,    X,    X,    X,    X,    X,    X],
    /* B     */ [X,    A,    A,    A,    X,    X,    X,    X,    X,    X,    X,    X],
    /* C     */ [X,    X,    X,    A,    X,    X,    X,    X,    X,    X,    X,    X],
    /* D     */ [X,    A,    A,    X,    X,    X,    X,    X,    X,    X,    X,    X],
    /* E     */ [X,    B,    B,    B,    X,    X,    X,    X,    X,    X,    X,    X],
    /* F     */ [X,    X,    B,    B,    X,    X,    X,    X,    X,    X,    X,    X],
    /* G     */ [X,    B,    X,    X,    X,    X,    X,    X,    X,    X,    X,    X],
    /* ERROR */ [X,    X,    X,    X,    X,    X,    X,    X,    X,    X,    X,    X],
];

/// One step of the machine: the state after reading `byte` in `state`.
/// [`State::Error`] when `byte` cannot follow what `state` has seen (RFC 3629 §4;
/// Unicode §3.9, Table 3-7), and from ERROR every byte leads to ERROR. Thread-safe
/// (a table lookup).
#[inline]
#[allow(
    clippy::indexing_slicing,
    reason = "the table has a row per State variant, and the column is tested against CLASS_COUNT"
)]
pub const fn next_state(state: State, byte: u8) -> State {
    let class = byte_class(byte) as usize;
    // Every class in BYTE_CLASS is below CLASS_COUNT (checked at compile time below),
    // so this test is always true. It stays for callers in other crates, which see
    // the tables as statics of unknown content: there it stands in for a bounds check
    // that would otherwise link a panic routine into them.
    if class < CLASS_COUNT {
        TRANSITIONS[state as usize][class]
    } else {
        State::Error
    }
}

// `next_state`'s indexing cannot go out of range: every class is a column of
// TRANSITIONS. (Its rows are State::ALL, by its type.) Checked when compiling.
const _: () = {
    let mut byte = 0;
    while byte < 256 {
        assert!((byte_class(byte as u8) as usize) < CLASS_COUNT);
        byte += 1;
    }
};

/// Runs the draft's machine (RFC 3629 §4; Unicode §3.9, Table 3-7) over `bytes`
/// one byte at a time, from `state`, and returns the state after the last byte:
/// `Start` when the bytes end on a character boundary with no error, another live
/// state (`A`-`G`) when they end inside a sequence, and `Error` once any byte is
/// ill-formed where it stands (ERROR is absorbing: every byte keeps it there, so
/// `state == Error` gives `Error`). An empty `bytes` returns `state`.
/// Allocation-free, reads only `bytes`, thread-safe.
///
/// This is the reference the fast engines are tested against. The chunk and
/// stream checks use it for the few bytes (at most 3) at a chunk's edges, where
/// setting up anything faster would cost more.
pub fn run(mut state: State, bytes: &[u8]) -> State {
    for &b in bytes {
        state = next_state(state, b);
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each state's lead byte takes the machine from START to that state, and
    /// ERROR's leaves it in ERROR before any byte that follows.
    #[test]
    #[cfg(simd_back_end)]
    fn lead_bytes_lead_to_their_states() {
        for state in State::ALL {
            let lead = state.lead_byte();
            if state == State::Error {
                for byte in 0..=255 {
                    assert_eq!(run(State::Start, &[lead, byte]), State::Error, "{byte:02X}");
                }
            } else {
                assert_eq!(next_state(State::Start, lead), state, "{lead:02X}");
            }
        }
    }

    #[test]
    fn out_of_range_raw_states_are_error() {
        for raw in 0..=8u32 {
            assert_eq!(State::from_raw(raw) as u32, raw);
        }
        for raw in [9u32, 10, 255, 0x8000_0000, u32::MAX] {
            assert_eq!(State::from_raw(raw), State::Error);
        }
    }
}
