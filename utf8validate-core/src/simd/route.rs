//! Which check runs for an input of `n` bytes, whole or a chunk, and what it
//! answers: the routing of the vector check, each back end's entry points
//! ([`entry_points`]), and the two answers ([`Answer`]).
//!
//! # Which check runs
//!
//! By the length `n` of a whole input (`utf8_validate`, `utf8_first_error`) or of a
//! chunk (`utf8_validate_chunk`, `utf8_stream_feed`, from a carried state), with
//! `BLOCK` = 64 and [`MEDIUM`] = 256:
//!
//! | `n` | whole input ([`check`], [`check_long`]) | chunk ([`check_chunk`], [`check_chunk_long`]) |
//! |---|---|---|
//! | up to 64, all ASCII | answered inline before a back end (`crate::ascii::short_ascii`; for a Rust caller of `validate`, `crate::ascii::short_ascii_in_caller`) | the same (`crate::chunk::quick_chunk_state`, which also answers chunks of 1-2 bytes with the draft's machine, and any chunk after an error) |
//! | under 8 (`utf8_validate`: all; Rust's `validate`: not all ASCII) | the scalar machine, before a back end (`crate::scalar::validate_few`) | - |
//! | up to 64 | `plain::check_vectors`: vectors as wide as fit, overlapping; AVX-512 one zero-padded load (`plain::check_short`); shorter than any vector, the scalar machine | [`check_open`]: the same, the carried lead byte as the lane before, the end left open |
//! | 65-256 | `plain::check_medium`: plain vectors, or block by block after an ASCII first block | the same, from the carried lead byte, the end left open |
//! | over 256 | `tiers::leading_ascii`, then `tiers::check_tiered` (the back end's `tiered`) | [`check_open_tiered`]: the same |
//!
//! Each check of a vector or a block is `super::rules`'. On an error, [`Answer`]
//! gives the verdict, or the exact offset from the scalar machine run from the last
//! character boundary before the failing block; a chunk's state is read off its
//! last bytes (`crate::sequence::open_state`).
//!
//! # Following a call
//!
//! `utf8_validate` on 1 KiB with AVX2: the C entry point jumps through
//! `crate::dispatch` to the back end's `validate` (made by [`entry_points`]), which
//! is [`check`]: longer than a block, so a jump to `validate_long`, which is
//! [`check_long`]: longer than [`MEDIUM`], so `tiers::leading_ascii` skips the
//! leading ASCII blocks and, at the first block that is not ASCII, a jump to
//! `tiered`, which is `tiers::check_tiered`: groups of blocks, each block checked
//! by `rules` in the tier its largest byte allows. The answer is `true`, or `false`
//! as soon as a group's gathered error lanes are not all zero.
//!
//! # Out of line, on purpose
//!
//! Each length range is its own function, reached by a jump (a tail call) from the
//! one before: an input of one block never shares code or saved registers with the
//! loop's set-up, and every function ends in its answer or in the next jump. The
//! generic functions here are `#[inline(always)]`; [`entry_points`] compiles each
//! into a back end's `extern "C"` function, with its instruction set enabled.

use super::plain::{
    check_medium, check_short, check_vectors, check_vectors_after, failing_medium_block,
    short_errors_after, MEDIUM,
};
use super::tiers::{check_tiered, leading_ascii};
use super::vector::{Vector, BLOCK};
use crate::chunk::{checked_chunk_state, ChunkEnd, CHUNK_FROM};
use crate::hint::cold_path;
use crate::scalar::{first_error_from_boundary, scalar_first_error, scalar_validate};
use crate::sequence::open_state;
use crate::state_machine::State;

// Whole inputs.

/// Validates `bytes`, answering as `A` ([`Answer`]): the verdict, or the offset of
/// the first error (`bytes.len()` when there is none). An input of at most one
/// block is one zero-padded vector where the instruction set can load that
/// (AVX-512), else overlapping vectors, else (shorter than the narrowest vector)
/// the scalar machine. A longer input goes to `long`, the back end's
/// `validate_long` or `first_error_long` (the generic [`check_long`]), which its
/// `validate` and `first_error` reach by a jump, out of line, so that short inputs
/// do not share its code.
///
/// # Safety
/// The CPU feature of `V` must be present. Call it only from a function compiled
/// with that feature, so that this body is inlined and compiled with it.
#[inline(always)]
pub(super) unsafe fn check<V: Vector, A: Answer>(bytes: &[u8], long: impl FnOnce(&[u8]) -> A) -> A {
    if bytes.len() > BLOCK {
        // Not rare, but for the layout: the short path below then runs without
        // a taken branch (a long input pays one jump, next to its own work).
        cold_path();
        return long(bytes);
    }
    // SAFETY: the caller guarantees the CPU feature; `bytes.len() <= BLOCK`.
    unsafe { check_block::<V, A>(bytes) }
}

/// [`check`] for an input of at most one block.
///
/// # Safety
/// As for [`check`], and `bytes.len() <= BLOCK`.
#[inline(always)]
unsafe fn check_block<V: Vector, A: Answer>(bytes: &[u8]) -> A {
    let len = bytes.len();
    type N1<V> = <V as Vector>::Narrow;
    type N2<V> = <N1<V> as Vector>::Narrow;
    // SAFETY (each arm): the caller guarantees the CPU feature of `V`, which
    // implies those of its narrower vectors; each `check_vectors::<W>` is called
    // with `W::BYTES <= len`, and `load_prefix` reads only `bytes`.
    unsafe {
        if len >= V::BYTES {
            A::of(check_vectors::<V>(bytes), bytes)
        } else if let Some(this) = V::load_prefix(bytes) {
            // Shorter than a vector, loaded zero-padded (AVX-512): one vector and
            // one path for every length, and the zeros after the input cut short
            // a sequence its end cuts short.
            A::of(check_short(this), bytes)
        } else if len >= N1::<V>::BYTES {
            A::of(check_vectors::<N1<V>>(bytes), bytes)
        } else if len >= N2::<V>::BYTES {
            A::of(check_vectors::<N2<V>>(bytes), bytes)
        } else {
            A::scalar(bytes)
        }
    }
}

/// [`check`] for inputs longer than one block: an input of at most [`MEDIUM`]
/// bytes by [`check_medium`] (on an error, the block it is in by
/// [`failing_medium_block`], for the offset); a longer one has its leading ASCII
/// skipped ([`leading_ascii`]) and the rest goes to the tiered loop, `tiered` (the
/// back end's [`check_tiered`] with the answer `A`). Each back end compiles it
/// into a function of its own per answer that [`check`] reaches by a jump
/// (`long`); as every path ends in an answer or a jump to `tiered`, it saves no
/// register.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(super) unsafe fn check_long<V: Vector, A: Answer>(
    bytes: &[u8],
    tiered: impl FnOnce(&[u8], usize) -> A,
) -> A {
    let len = bytes.len();
    if len <= MEDIUM {
        // SAFETY: the caller guarantees the CPU feature and `BLOCK < len`.
        return unsafe {
            if check_medium::<V, false>(V::splat(0), bytes) {
                A::valid(len)
            } else {
                A::invalid(bytes, failing_medium_block::<V>(bytes))
            }
        };
    }
    // SAFETY: the caller guarantees the CPU feature and `BLOCK < len`.
    match unsafe { leading_ascii::<V>(bytes) } {
        None => A::valid(len),
        Some(at) => tiered(bytes, at),
    }
}

// Chunks.

/// The answer for `state` (not ERROR) followed by `bytes`, a chunk of
/// `crate::chunk::CHUNK_FROM` to [`BLOCK`] bytes: [`check_open`]'s verdict, as
/// `crate::chunk::checked_chunk_state` answers it, handed to `end` (the scalar
/// machine's answer where the chunk is too short for a vector of `V`). Longer
/// chunks go to [`check_chunk_long`].
///
/// # Safety
/// The CPU feature of `V` must be present, and `CHUNK_FROM <= bytes.len() <=
/// BLOCK`. Call it only from a function compiled with that feature, so that this
/// body is inlined and compiled with it.
#[inline(always)]
pub(super) unsafe fn check_chunk<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(CHUNK_FROM <= bytes.len() && bytes.len() <= BLOCK) };
    let last = open_state(bytes);
    // SAFETY: the caller guarantees the CPU feature; `bytes` is at most one block.
    match unsafe { check_open::<V>(state, bytes) } {
        Some(passed) => end.end(bytes, checked_chunk_state(last, passed)),
        // SAFETY: the caller guarantees the state and the length.
        None => unsafe { end.scalar(state, bytes) },
    }
}

/// [`check_chunk`] for a chunk longer than one block: up to [`MEDIUM`] bytes by
/// [`check_medium`], as for a whole input but with the carried state's lead byte
/// before the first block and the end left open. A longer chunk goes to `tiered`,
/// the back end's `validate_chunk_tiered` or `hand_off_tiered`
/// ([`check_chunk_tiered`]), out of line and reached by a jump, so that the
/// chunks of a few blocks neither share its set-up nor save registers for it.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(super) unsafe fn check_chunk_long<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
    tiered: impl FnOnce(State, &[u8], E) -> E::Output,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(bytes.len() > BLOCK) };
    if bytes.len() > MEDIUM {
        // Not rare, but for the layout: the chunks of a few blocks then run
        // without a taken branch (a long chunk pays one jump, next to its work).
        cold_path();
        return tiered(state, bytes, end);
    }
    let last = open_state(bytes);
    // SAFETY: the caller guarantees the CPU feature and `BLOCK < len <= MEDIUM`.
    let passed = unsafe { check_medium::<V, true>(before::<V>(state), bytes) };
    end.end(bytes, checked_chunk_state(last, passed))
}

/// [`check_chunk`] for a chunk longer than [`MEDIUM`], by [`check_open_tiered`].
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > MEDIUM`. Call it
/// only from a function compiled with that feature, so that this body is inlined
/// and compiled with it.
#[inline(always)]
pub(super) unsafe fn check_chunk_tiered<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(bytes.len() > MEDIUM) };
    let last = open_state(bytes);
    // SAFETY: forwarded caller contract.
    end.end(
        bytes,
        checked_chunk_state(last, unsafe { check_open_tiered::<V>(state, bytes) }),
    )
}

/// Whether `state` (not ERROR) followed by `bytes` (at most one block) holds
/// nothing ill-formed, the end aside (`bytes` may end inside a sequence), by one
/// vector check; `None` for a chunk shorter than the narrowest vector that `V`
/// cannot load zero-padded, which the caller leaves to the scalar machine.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() <= BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
#[allow(
    clippy::manual_map,
    reason = "a closure can be left out of line, compiled without the back end's target feature"
)]
unsafe fn check_open<V: Vector>(state: State, bytes: &[u8]) -> Option<bool> {
    let len = bytes.len();
    type N1<V> = <V as Vector>::Narrow;
    type N2<V> = <N1<V> as Vector>::Narrow;
    // SAFETY (each arm): the caller guarantees the CPU feature of `V`, which
    // implies those of its narrower vectors; each `check_vectors_after::<W>` is
    // called with `W::BYTES <= len`, and `load_prefix` reads only `bytes`.
    unsafe {
        if len >= V::BYTES {
            Some(check_vectors_after::<V, true>(before::<V>(state), bytes))
        } else if len >= N1::<V>::BYTES {
            Some(check_vectors_after::<N1<V>, true>(
                before::<N1<V>>(state),
                bytes,
            ))
        } else if len >= N2::<V>::BYTES {
            Some(check_vectors_after::<N2<V>, true>(
                before::<N2<V>>(state),
                bytes,
            ))
        } else if let Some(this) = V::load_prefix(bytes) {
            // Zero-padded: a sequence the chunk leaves open is cut short by a zero,
            // which marks the lane after the chunk; only the chunk's lanes count.
            Some(!short_errors_after(before::<V>(state), this).any_nonzero_in_prefix(len))
        } else {
            None
        }
    }
}

/// The check of a chunk longer than [`MEDIUM`], as for a whole input but with
/// the carried state's lead byte before the first block and the end left open:
/// its leading ASCII skipped, then the tiered loop.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > MEDIUM`. Call it
/// only from a function compiled with that feature, so that this body is inlined
/// and compiled with it.
#[inline(always)]
unsafe fn check_open_tiered<V: Vector>(state: State, bytes: &[u8]) -> bool {
    // SAFETY: the caller guarantees the CPU feature and `MEDIUM < len`.
    unsafe {
        let before = before::<V>(state);
        // The leading ASCII whatever the state (a branch on the state would
        // mispredict whenever it changes): ASCII right after a carried sequence
        // is wrong, and a carried sequence's continuation bytes are not ASCII, so
        // the state matters only when the chunk starts with ASCII.
        let at = match leading_ascii::<V>(bytes) {
            None => return state == State::Start,
            Some(at) if at > 0 && state != State::Start => return false,
            Some(at) => at,
        };
        check_tiered::<V, true>(bytes, at, before).is_none()
    }
}

/// The bytes before a chunk carried over in `state`: a vector of zeros with the
/// state's lead byte ([`State::lead_byte`]) in its last lane, one load from
/// [`BEFORE`].
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
#[allow(
    clippy::indexing_slicing,
    reason = "BEFORE has a row per State variant (checked by its type): no check is emitted"
)]
unsafe fn before<V: Vector>(state: State) -> V {
    // SAFETY: the load reads the last `BYTES <= BLOCK` bytes of the state's row;
    // the caller guarantees the CPU feature.
    unsafe { V::load(BEFORE.0[state as usize].as_ptr().add(BLOCK - V::BYTES)) }
}

/// For each state (in discriminant order), a block of zeros ending in its lead
/// byte, for [`before`]; aligned, so that no load from it spans two cache lines.
#[repr(C, align(64))]
struct LeadBlocks([[u8; BLOCK]; State::ALL.len()]);

/// See [`LeadBlocks`].
static BEFORE: LeadBlocks = build_before();

#[allow(
    clippy::indexing_slicing,
    reason = "runs only at compile time, for a static's initialiser: an index out of range would fail the build, not panic"
)]
const fn build_before() -> LeadBlocks {
    let mut rows = [[0; BLOCK]; State::ALL.len()];
    let mut i = 0;
    while i < rows.len() {
        rows[i][BLOCK - 1] = State::ALL[i].lead_byte();
        i += 1;
    }
    LeadBlocks(rows)
}

// The answers.

/// What [`check`] answers: the offset of the first error, `usize` (`len` when
/// valid), for the back ends' `first_error`, or the verdict alone, `bool`, for
/// their `validate`. Each answer has its own out-of-line fallbacks (the scalar
/// machine for inputs too short for a vector, and, for the offset, the scalar
/// machine from a character boundary after an error), `extern "C"` functions with
/// the arguments and answer of the entry point itself, so that it ends in a jump
/// to them (a tail call) and needs neither a saved register around a call nor a
/// conversion of its answer after one.
pub(super) trait Answer {
    /// Well-formed, for an input of `len` bytes.
    fn valid(len: usize) -> Self;
    /// Ill-formed, with every check before offset `passed` of `bytes` passed.
    fn invalid(bytes: &[u8], passed: usize) -> Self;
    /// The scalar machine's answer for `bytes`.
    fn scalar(bytes: &[u8]) -> Self;
    /// The answer for `bytes` after a check of the whole input that passed or
    /// not (`valid`), with nothing known of where it failed.
    #[inline(always)]
    fn of(valid: bool, bytes: &[u8]) -> Self
    where
        Self: Sized,
    {
        if valid {
            Self::valid(bytes.len())
        } else {
            Self::invalid(bytes, 0)
        }
    }
}

impl Answer for usize {
    #[inline(always)]
    fn valid(len: usize) -> Self {
        len
    }
    #[inline(always)]
    fn invalid(bytes: &[u8], passed: usize) -> Self {
        offset_from_boundary(bytes, passed)
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_first_error(bytes.as_ptr(), bytes.len()) }
    }
}

impl Answer for bool {
    #[inline(always)]
    fn valid(_: usize) -> Self {
        true
    }
    #[inline(always)]
    fn invalid(_: &[u8], _: usize) -> Self {
        false
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_validate(bytes.as_ptr(), bytes.len()) }
    }
}

/// The offset of the first error of `bytes` (`bytes.len()` when there is none),
/// whose `bytes[..passed]` is a well-formed prefix: the `usize` answer of a vector
/// check that failed after `passed`, by a jump to
/// [`first_error_offset_from_boundary`].
#[inline(always)]
pub(super) fn offset_from_boundary(bytes: &[u8], passed: usize) -> usize {
    // SAFETY: `bytes` is readable and its pointer is non-NULL; `passed` is
    // forwarded unchanged.
    unsafe { first_error_offset_from_boundary(bytes.as_ptr(), bytes.len(), passed) }
}

/// [`first_error_from_boundary`] with the C calling convention and `len` for
/// "valid", for the `usize` [`Answer`].
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[cold]
#[inline(never)]
unsafe extern "C" fn first_error_offset_from_boundary(
    ptr: *const u8,
    len: usize,
    passed: usize,
) -> usize {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    first_error_from_boundary(unsafe { core::slice::from_raw_parts(ptr, len) }, passed)
        .unwrap_or(len)
}

// The entry points.

/// The entry points of a back end named `$id`, for its vector type `$V` and target
/// feature `$feature` (named `$name` in the docs): its row of `crate::dispatch`'s
/// table (`IMPLEMENTATION`, with the module's own `available`), the entry points it
/// lists (`first_error`, `validate`, `validate_chunk`, `validate_chunk_long`,
/// `hand_off` and `hand_off_long`), and the
/// out-of-line `first_error_long`, `validate_long`, `first_error_tiered`,
/// `tiered` (the generic `check_tiered`), `validate_chunk_tiered` and
/// `hand_off_tiered` they reach. Each is the generic function of
/// `crate::simd` compiled with the back end's instruction set, so that the generic
/// body and every `Vector` method in it are inlined with that feature enabled.
macro_rules! entry_points {
    ($id:literal, $V:ty, $feature:literal, $name:literal) => {
        #[doc = concat!("The ", $name, " back end's row of `crate::dispatch`'s table, named")]
        #[doc = concat!("`", $id, "` (as `UTF8VALIDATE_BACKEND` spells it).")]
        pub(crate) const IMPLEMENTATION: $crate::implementation::Implementation =
            $crate::implementation::Implementation {
                name: $id,
                available,
                first_error,
                validate,
                validate_chunk,
                validate_chunk_long,
                hand_off,
                hand_off_long,
            };

        #[doc = concat!("The first error by [`crate::simd::route::check`] with ", $name, ", with the")]
        /// C calling convention, for `crate::dispatch`'s `first_error`: the offset
        /// of the first byte of the first ill-formed sequence, or `len` when there
        /// is none. A jump from the C entry point, and on to [`first_error_long`]
        /// or a scalar fallback by another (see `crate::simd::route::Answer`).
        ///
        /// # Safety
        /// The CPU must support the back end's instruction set ([`available`]), and
        /// `ptr` must be non-NULL with `len` readable bytes.
        #[target_feature(enable = $feature)]
        unsafe extern "C" fn first_error(ptr: *const u8, len: usize) -> usize {
            // SAFETY: this function is only called with the feature present, which
            // `first_error_long` needs too; the caller guarantees `len` readable
            // bytes at the non-NULL `ptr`, and `first_error_long` gets them back
            // unchanged.
            unsafe {
                $crate::simd::route::check::<$V, usize>(
                    core::slice::from_raw_parts(ptr, len),
                    |bytes| first_error_long(bytes.as_ptr(), bytes.len()),
                )
            }
        }

        #[doc = concat!("[`crate::simd::route::check`]'s verdict with ", $name, ", with the C")]
        /// calling convention, for `crate::dispatch`'s `validate`: a jump from the
        /// C entry point, and on to [`validate_long`] or a scalar fallback by
        /// another (see `crate::simd::route::Answer`).
        ///
        /// # Safety
        /// As for [`first_error`].
        #[target_feature(enable = $feature)]
        unsafe extern "C" fn validate(ptr: *const u8, len: usize) -> bool {
            // SAFETY: as in `first_error`.
            unsafe {
                $crate::simd::route::check::<$V, bool>(
                    core::slice::from_raw_parts(ptr, len),
                    |bytes| validate_long(bytes.as_ptr(), bytes.len()),
                )
            }
        }

        #[doc = concat!("The answer for a chunk of data with ", $name, ", for")]
        /// `crate::dispatch`'s `validate_chunk`: the machine's state after `state`
        /// followed by the `len` bytes at `ptr` (at most one block), by
        /// [`crate::simd::route::check_chunk`]. A jump from the C entry point.
        ///
        /// # Safety
        /// As for [`first_error`], `state` is not ERROR and `3 <= len <= BLOCK`
        /// (`crate::chunk::CHUNK_FROM`, `BLOCK`).
        #[target_feature(enable = $feature)]
        unsafe extern "C" fn validate_chunk(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
        ) -> $crate::State {
            // SAFETY: as in `first_error`, and the caller's guarantees on `state`
            // and `len`.
            unsafe {
                $crate::simd::route::check_chunk::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::ReturnState,
                )
            }
        }

        /// [`validate_chunk`] for chunks longer than one block
        /// ([`crate::simd::route::check_chunk_long`]): a jump from the C entry point, and
        /// on to [`validate_chunk_tiered`] by another.
        ///
        /// # Safety
        /// As for [`first_error`], `state` is not ERROR and `len > BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn validate_chunk_long(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
        ) -> $crate::State {
            // SAFETY: as in `first_error`, and the caller's guarantee that
            // `len > BLOCK`; `validate_chunk_tiered` gets the chunk back unchanged
            // when it is longer than `MEDIUM`.
            unsafe {
                $crate::simd::route::check_chunk_long::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::ReturnState,
                    |state, bytes, _| validate_chunk_tiered(state, bytes.as_ptr(), bytes.len()),
                )
            }
        }

        /// [`validate_chunk`] for chunks longer than four blocks
        /// ([`crate::simd::route::check_chunk_tiered`]), out of line.
        ///
        /// # Safety
        /// As for [`first_error`], `state` is not ERROR and `len > 4 * BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn validate_chunk_tiered(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
        ) -> $crate::State {
            // SAFETY: as in `first_error`, and the caller's guarantee on `len`.
            unsafe {
                $crate::simd::route::check_chunk_tiered::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::ReturnState,
                )
            }
        }

        #[doc = concat!("The check of [`validate_chunk`] with ", $name, ", the state then")]
        /// handed on with `to` (`crate::chunk::HandOff`), for `crate::dispatch`'s
        /// `hand_off`, by which the stream's `feed` checks a chunk and keeps its
        /// bookkeeping. A jump from the C entry point.
        ///
        /// # Safety
        /// As for [`validate_chunk`], and `to` must be what `HandOff`'s end takes.
        #[target_feature(enable = $feature)]
        unsafe extern "C" fn hand_off(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
            to: *mut core::ffi::c_void,
        ) -> bool {
            // SAFETY: as in `validate_chunk`, and the caller's guarantee on `to`.
            unsafe {
                $crate::simd::route::check_chunk::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::HandOff::new(to),
                )
            }
        }

        /// [`hand_off`] for chunks longer than one block: a jump from the C entry
        /// point, and on to [`hand_off_tiered`] by another.
        ///
        /// # Safety
        /// As for [`validate_chunk_long`] and [`hand_off`].
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn hand_off_long(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
            to: *mut core::ffi::c_void,
        ) -> bool {
            // SAFETY: as in `validate_chunk_long` and `hand_off`.
            unsafe {
                $crate::simd::route::check_chunk_long::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::HandOff::new(to),
                    |state, bytes, end| {
                        hand_off_tiered(state, bytes.as_ptr(), bytes.len(), end.to())
                    },
                )
            }
        }

        /// [`hand_off`] for chunks longer than four blocks, out of line.
        ///
        /// # Safety
        /// As for [`validate_chunk_tiered`] and [`hand_off`].
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn hand_off_tiered(
            state: $crate::State,
            ptr: *const u8,
            len: usize,
            to: *mut core::ffi::c_void,
        ) -> bool {
            // SAFETY: as in `validate_chunk_tiered` and `hand_off`.
            unsafe {
                $crate::simd::route::check_chunk_tiered::<$V, _>(
                    state,
                    core::slice::from_raw_parts(ptr, len),
                    $crate::chunk::HandOff::new(to),
                )
            }
        }

        /// [`first_error`] for inputs longer than one block: the generic
        /// [`crate::simd::route::check_long`] with the exact offset of the first error
        /// (`len` when valid) and the C calling convention, out of line, so that
        /// [`first_error`] reaches it by a jump, and it [`first_error_tiered`] by
        /// another.
        ///
        /// # Safety
        /// As for [`first_error`], and `len > BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn first_error_long(ptr: *const u8, len: usize) -> usize {
            // SAFETY: the caller guarantees `len` readable bytes at the non-NULL
            // `ptr`, the feature and `len > BLOCK`; `first_error_tiered` gets
            // them back unchanged.
            unsafe {
                $crate::simd::route::check_long::<$V, usize>(
                    core::slice::from_raw_parts(ptr, len),
                    |bytes, at| first_error_tiered(bytes.as_ptr(), bytes.len(), at),
                )
            }
        }

        /// [`validate`] for inputs longer than one block: the generic
        /// [`crate::simd::route::check_long`] with a `bool` answer and the C calling
        /// convention, out of line, so that [`validate`] reaches it by a jump and
        /// its answer needs no conversion.
        ///
        /// # Safety
        /// As for [`validate`], and `len > BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn validate_long(ptr: *const u8, len: usize) -> bool {
            // SAFETY: the caller guarantees `len` readable bytes at the non-NULL
            // `ptr`, the feature and `len > BLOCK`.
            unsafe {
                $crate::simd::route::check_long::<$V, bool>(
                    core::slice::from_raw_parts(ptr, len),
                    |bytes, at| tiered(bytes, at).is_none(),
                )
            }
        }

        /// [`tiered`]'s exact first error (`len` when valid), with the C
        /// calling convention, for [`first_error_long`].
        ///
        /// # Safety
        /// As for [`first_error_long`], and `at` is where the generic `check_long`
        /// left the leading ASCII.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn first_error_tiered(ptr: *const u8, len: usize, at: usize) -> usize {
            // SAFETY: as in `first_error_long`.
            unsafe {
                let bytes = core::slice::from_raw_parts(ptr, len);
                match tiered(bytes, at) {
                    None => len,
                    Some(passed) => $crate::simd::route::offset_from_boundary(bytes, passed),
                }
            }
        }

        #[doc = concat!("[`crate::simd::tiers::check_tiered`] with ", $name, ", out of line.")]
        ///
        /// # Safety
        /// As for [`validate_long`], and `at` is where the generic `check_long`
        /// left the leading ASCII.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe fn tiered(bytes: &[u8], at: usize) -> Option<usize> {
            // SAFETY: as in `first_error`.
            unsafe {
                $crate::simd::tiers::check_tiered::<$V, false>(
                    bytes,
                    at,
                    <$V as $crate::simd::vector::Vector>::splat(0),
                )
            }
        }
    };
}
pub(crate) use entry_points;
