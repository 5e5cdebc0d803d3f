//! The draft's state machine for C: the state type as C passes it, byte classes,
//! and single steps.

use utf8validate_core::state_machine::{self, State};

/// A `utf8_state` as C passes it: any 32-bit value, of which only 0-8 name a state.
///
/// Taking the raw value (instead of [`State`]) keeps an out-of-range value from C
/// defined behaviour; it is then treated as `UTF8_STATE_ERROR`. It has the size and
/// calling convention of the C enum, and the header names it `utf8_state`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
pub struct StateArg(pub u32);

impl StateArg {
    /// The state this value names; ERROR for a value that names none.
    pub(crate) fn get(self) -> State {
        State::from_raw(self.0)
    }
}

/// The class (0-11) of one byte in the draft's state machine (Tang, "The Algorithm
/// to Validate an UTF-8 String", v0.4):
/// 0: 00-7F, 1: 80-8F, 2: 90-9F, 3: A0-BF, 4: C0-C1 and F5-FF, 5: C2-DF, 6: E0,
/// 7: E1-EC and EE-EF, 8: ED, 9: F0, 10: F1-F3, 11: F4. The classes follow the
/// lead and continuation byte ranges of RFC 3629 section 4 (Unicode §3.9, Table 3-7).
///
/// - `byte`: one byte (0-255); the result is its class, 0-11.
/// - Total: every byte has a class, so there is no error case; no pointer is taken.
/// - Thread-safe; allocates nothing.
#[no_mangle]
pub extern "C" fn utf8_byte_class(byte: u8) -> u8 {
    state_machine::byte_class(byte)
}

/// One step of the draft's state machine: the state after reading `byte` in
/// `state`. The machine accepts exactly the well-formed byte sequences of RFC 3629
/// section 4 (Unicode §3.9, Table 3-7).
///
/// - `state`: where the machine is (`UTF8_STATE_START` before the first byte and
///   after each complete character; `UTF8_STATE_A`..`UTF8_STATE_G` inside a
///   multi-byte sequence); `byte`: the next byte of the input (0-255).
/// - Returns the next state: `UTF8_STATE_START` when `byte` completes a character,
///   `UTF8_STATE_A`..`UTF8_STATE_G` when more continuation bytes must follow, and
///   `UTF8_STATE_ERROR` when `byte` cannot continue the input well-formed.
/// - `UTF8_STATE_ERROR` is absorbing: it is returned for every byte.
/// - A `state` outside `UTF8_STATE_START..UTF8_STATE_ERROR` is treated as
///   `UTF8_STATE_ERROR`.
/// - Thread-safe; allocates nothing.
#[no_mangle]
pub extern "C" fn utf8_next_state(state: StateArg, byte: u8) -> State {
    state_machine::next_state(state.get(), byte)
}
