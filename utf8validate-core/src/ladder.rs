//! What runs for an input of `n` bytes, whole or a chunk: the ladder. One `match`
//! on the length for each ([`whole`], [`chunk`]), every threshold a constant of
//! `crate::sizes`, each arm one worker:
//!
//! | `n` | whole input (`utf8_validate`, `utf8_first_error`) | chunk (`utf8_validate_chunk`, `utf8_stream_feed`) |
//! |---|---|---|
//! | under `FEW` (8) | the scalar machine, one shift a byte (`Answer::few`); in a Rust caller of `validate`, up to `WORD` (8), over one word ([`in_caller`]) | - |
//! | under `CHUNK_FROM` (3) | - | the draft's machine, at most two steps |
//! | up to `BLOCK` (64), all ASCII | valid (`crate::ascii::short_ascii`) | START after START, else ERROR |
//! | up to `BLOCK` | the back end's `block` entry: `simd::plain::block` | `simd::plain::chunk_block` |
//! | up to `MEDIUM` (256) | the back end's `medium` entry: `simd::plain::medium` | `simd::plain::chunk_medium` |
//! | longer | the back end's `long` entry: `simd::tiers::long` | `simd::tiers::chunk_long` |
//!
//! The ladder runs inline in the C entry point, before any back end is asked:
//! the arms above the line answer with no call, and each arm below it is one jump
//! (a tail call) to the chosen back end's entry for that rung, which
//! `crate::dispatch` chooses and nothing here does. A chunk after an error stays
//! in ERROR without being read. A back end's entries are its workers compiled
//! with its instruction set ([`back_end!`]); the scalar back end answers every
//! rung with the draft's machine (`crate::implementation::SCALAR`). On an error,
//! a verdict is answered at once, an offset from the scalar machine run from the
//! last character boundary before the failing block (`crate::answer`).

use crate::answer::Answer;
use crate::ascii::{few_word, short_ascii, short_ascii_in_caller};
use crate::chunk::{ChunkEnd, HandOff, ReturnState};
use crate::hint::cold_path;
use crate::implementation::{Entries, Implementation};
use crate::scalar::validate_word;
use crate::sizes::{BLOCK, CHUNK_FROM, FEW, MEDIUM, WORD};
use crate::state_machine::{run, State};

/// The answer `A` for a whole input `bytes`, with the back end that `back_end()`
/// returns (asked only on the rungs that need one). With `ascii_tested`, the
/// caller has answered all-ASCII inputs of at most [`BLOCK`] bytes itself (a Rust
/// caller of `crate::validate`, in its own code), and the ladder does not test
/// them again.
///
/// # Safety
/// `back_end` must return a back end that this CPU supports.
#[inline(always)]
#[allow(
    clippy::match_overlapping_arm,
    reason = "a ladder: each rung starts where the arms before it end"
)]
pub(crate) unsafe fn whole<A: WholeEntry>(
    bytes: &[u8],
    ascii_tested: bool,
    back_end: impl FnOnce() -> &'static Implementation,
) -> A {
    // SAFETY (each entry): the caller guarantees the back end; each rung's entry
    // is called with a length in its rung.
    unsafe {
        match bytes.len() {
            0..FEW => A::few(bytes),
            len @ FEW..=BLOCK if !ascii_tested && short_ascii(bytes) => A::valid(len),
            FEW..=BLOCK => A::enter(&back_end().block, bytes),
            ..=MEDIUM => A::enter(&back_end().medium, bytes),
            _ => A::enter(&back_end().long, bytes),
        }
    }
}

/// The verdict for `bytes` in a Rust caller of `crate::validate`, which inlines this:
/// the rungs that need no back end, in the caller's own code, then `rest` (the
/// ladder behind a call, [`whole`] with the ASCII rung done). All ASCII up to
/// [`BLOCK`] bytes first, in the shape for inlining
/// (`crate::ascii::short_ascii_in_caller`), with no taken branch; other input of up
/// to [`WORD`] bytes by the scalar machine over the 8 bytes of one word, with no loop
/// (`crate::scalar::validate_word`): behind the call the machine would run the same
/// steps for fewer than [`FEW`], and at 8 bytes a back end's block, which costs more.
#[inline(always)]
pub(crate) fn in_caller(bytes: &[u8], rest: impl FnOnce(&[u8]) -> bool) -> bool {
    if short_ascii_in_caller(bytes) {
        return true;
    }
    // Laid out after the ASCII path, which then runs with no taken branch.
    cold_path();
    if bytes.len() <= WORD {
        return validate_word(few_word(bytes));
    }
    rest(bytes)
}

/// The state after `state` followed by the chunk `bytes`, as `end` answers it,
/// with the back end that `back_end()` returns (asked only on the rungs that
/// need one).
///
/// # Safety
/// `back_end` must return a back end that this CPU supports, and `end` must be
/// usable as its own contract says (for [`HandOff`], the stream being fed).
#[inline(always)]
#[allow(
    clippy::match_overlapping_arm,
    reason = "a ladder: each rung starts where the arms before it end"
)]
pub(crate) unsafe fn chunk<E: ChunkEntry>(
    state: State,
    bytes: &[u8],
    end: E,
    back_end: impl FnOnce() -> &'static Implementation,
) -> E::Output {
    // SAFETY (each entry): the caller guarantees the back end and `end`; each
    // rung's entry is called with a length in its rung, and a state other than
    // ERROR (the first arm).
    unsafe {
        match bytes.len() {
            _ if state == State::Error => end.quick(bytes, State::Error),
            0..CHUNK_FROM => {
                // Not rare in every stream, but for the layout: longer chunks then
                // run without a taken branch.
                cold_path();
                end.quick(bytes, run(state, bytes))
            }
            // No branch on the state, which data in chunks would mispredict
            // whenever it changes: ASCII after a carried sequence cuts it short.
            ..=BLOCK if short_ascii(bytes) => end.quick(
                bytes,
                core::hint::select_unpredictable(state == State::Start, State::Start, State::Error),
            ),
            ..=BLOCK => end.enter(&back_end().block, state, bytes),
            ..=MEDIUM => end.enter(&back_end().medium, state, bytes),
            _ => end.enter(&back_end().long, state, bytes),
        }
    }
}

/// A whole input's [`Answer`] and its entry in a back end's row.
pub(crate) trait WholeEntry: Answer {
    /// The jump to this answer's entry of `entries`.
    ///
    /// # Safety
    /// The entries' back end must run on this CPU, and `bytes` be in their rung.
    unsafe fn enter(entries: &Entries, bytes: &[u8]) -> Self;
}

impl WholeEntry for bool {
    #[inline(always)]
    unsafe fn enter(entries: &Entries, bytes: &[u8]) -> bool {
        // SAFETY: the caller's contract; a slice's pointer and length.
        unsafe { (entries.validate)(bytes.as_ptr(), bytes.len()) }
    }
}

impl WholeEntry for usize {
    #[inline(always)]
    unsafe fn enter(entries: &Entries, bytes: &[u8]) -> usize {
        // SAFETY: the caller's contract; a slice's pointer and length.
        unsafe { (entries.first_error)(bytes.as_ptr(), bytes.len()) }
    }
}

/// A chunk's [`ChunkEnd`] and its entry in a back end's row.
pub(crate) trait ChunkEntry: ChunkEnd {
    /// The jump to this end's entry of `entries`.
    ///
    /// # Safety
    /// The entries' back end must run on this CPU, `state` is not ERROR, and
    /// `bytes` is in their rung.
    unsafe fn enter(self, entries: &Entries, state: State, bytes: &[u8]) -> Self::Output;
}

impl ChunkEntry for ReturnState {
    #[inline(always)]
    unsafe fn enter(self, entries: &Entries, state: State, bytes: &[u8]) -> State {
        // SAFETY: the caller's contract; a slice's pointer and length.
        unsafe { (entries.validate_chunk)(state, bytes.as_ptr(), bytes.len()) }
    }
}

impl ChunkEntry for HandOff {
    #[inline(always)]
    unsafe fn enter(self, entries: &Entries, state: State, bytes: &[u8]) -> bool {
        // SAFETY: the caller's contract; a slice's pointer and length, and the
        // pointer `HandOff::new`'s caller vouched for.
        unsafe { (entries.hand_off)(state, bytes.as_ptr(), bytes.len(), self.to()) }
    }
}

/// The row of `crate::dispatch`'s table for the back end named `$id` (as
/// `UTF8VALIDATE_BACKEND` spells it): its vector type `$V` (a full path), compiled with the target feature `$feature`, and its test of the
/// CPU, `$available`. Each entry is one worker of `crate::simd` (the ladder's
/// table above) compiled with the back end's instruction set, so that the
/// generic body and every `Vector` method in it are inlined with that feature
/// enabled: the one thing generics cannot say. `extern "C"`, with the arguments
/// and answer of the C function, so that the ladder reaches it by a jump.
///
/// # Safety (of every entry)
/// The CPU must support the back end's instruction set (`$available`); `ptr` must
/// be non-NULL with `len` readable bytes, `len` in the entry's rung; for a chunk,
/// `state` is not ERROR, and `to` is what `HandOff`'s end takes.
#[cfg(simd_back_end)]
macro_rules! back_end {
    ($id:ident, $V:ty, $feature:literal, $available:path) => {{
        // A module named after the back end, so that its entries' symbols say
        // which back end they are (`...::avx2::medium<bool>`) in a profile.
        mod $id {
            use core::ffi::c_void;
            use core::slice::from_raw_parts;
            use $crate::answer::Answer;
            use $crate::chunk::{HandOff, ReturnState};
            use $crate::implementation::{Entries, Implementation};
            use $crate::simd::{plain, tiers};
            use $crate::state_machine::State;

            // In every entry, the contract above is the workers' own: the feature and
            // the rung's length.

            #[target_feature(enable = $feature)]
            unsafe extern "C" fn block<A: Answer>(ptr: *const u8, len: usize) -> A {
                // SAFETY: the contract above.
                unsafe { plain::block::<$V, A>(from_raw_parts(ptr, len)) }
            }
            #[target_feature(enable = $feature)]
            #[inline(never)]
            unsafe extern "C" fn medium<A: Answer>(ptr: *const u8, len: usize) -> A {
                // SAFETY: the contract above.
                unsafe { plain::medium::<$V, A>(from_raw_parts(ptr, len)) }
            }
            #[target_feature(enable = $feature)]
            #[inline(never)]
            unsafe extern "C" fn long<A: Answer>(ptr: *const u8, len: usize) -> A {
                // SAFETY: the contract above.
                unsafe { tiers::long::<$V, A>(from_raw_parts(ptr, len)) }
            }

            #[target_feature(enable = $feature)]
            unsafe extern "C" fn chunk_block(state: State, ptr: *const u8, len: usize) -> State {
                // SAFETY: the contract above.
                unsafe { plain::chunk_block::<$V, _>(state, from_raw_parts(ptr, len), ReturnState) }
            }
            #[target_feature(enable = $feature)]
            #[inline(never)]
            unsafe extern "C" fn chunk_medium(state: State, ptr: *const u8, len: usize) -> State {
                // SAFETY: the contract above.
                unsafe {
                    plain::chunk_medium::<$V, _>(state, from_raw_parts(ptr, len), ReturnState)
                }
            }
            #[target_feature(enable = $feature)]
            #[inline(never)]
            unsafe extern "C" fn chunk_long(state: State, ptr: *const u8, len: usize) -> State {
                // SAFETY: the contract above.
                unsafe { tiers::chunk_long::<$V, _>(state, from_raw_parts(ptr, len), ReturnState) }
            }

            #[target_feature(enable = $feature)]
            unsafe extern "C" fn hand_off_block(
                state: State,
                ptr: *const u8,
                len: usize,
                to: *mut c_void,
            ) -> bool {
                // SAFETY: the contract above.
                unsafe {
                    plain::chunk_block::<$V, _>(state, from_raw_parts(ptr, len), HandOff::new(to))
                }
            }
            #[target_feature(enable = $feature)]
            #[inline(never)]
            unsafe extern "C" fn hand_off_medium(
                state: State,
                ptr: *const u8,
                len: usize,
                to: *mut c_void,
            ) -> bool {
                // SAFETY: the contract above.
                unsafe {
                    plain::chunk_medium::<$V, _>(state, from_raw_parts(ptr, len), HandOff::new(to))
                }
            }
            #[target_feature(enable = $feature)]
            #[inline(never)]
            unsafe extern "C" fn hand_off_long(
                state: State,
                ptr: *const u8,
                len: usize,
                to: *mut c_void,
            ) -> bool {
                // SAFETY: the contract above.
                unsafe {
                    tiers::chunk_long::<$V, _>(state, from_raw_parts(ptr, len), HandOff::new(to))
                }
            }

            pub(super) const ROW: Implementation = Implementation {
                name: stringify!($id),
                available: $available,
                block: Entries {
                    validate: block::<bool>,
                    first_error: block::<usize>,
                    validate_chunk: chunk_block,
                    hand_off: hand_off_block,
                },
                medium: Entries {
                    validate: medium::<bool>,
                    first_error: medium::<usize>,
                    validate_chunk: chunk_medium,
                    hand_off: hand_off_medium,
                },
                long: Entries {
                    validate: long::<bool>,
                    first_error: long::<usize>,
                    validate_chunk: chunk_long,
                    hand_off: hand_off_long,
                },
            };
        }
        $id::ROW
    }};
}
#[cfg(simd_back_end)]
pub(crate) use back_end;
