//! The one place where the validation entry points meet a back end.
//!
//! Every public validation function, in Rust and in C, comes through here; a faster
//! back end is slotted in by changing these three functions, and nothing else in the
//! library needs to know which one ran. Today the only back end is the portable
//! scalar engine ([`crate::scalar`]).

use crate::scalar;
use crate::state_machine::State;

/// True iff `bytes` is well-formed UTF-8.
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> bool {
    scalar::validate(bytes)
}

/// Offset of the first byte of the first ill-formed sequence, `None` when valid.
#[inline]
pub(crate) fn first_error(bytes: &[u8]) -> Option<usize> {
    scalar::first_error(bytes)
}

/// The machine's state after `bytes`, starting from `state`.
#[inline]
pub(crate) fn validate_chunk(state: State, bytes: &[u8]) -> State {
    scalar::validate_chunk(state, bytes)
}
