//! The check of inputs (and chunks) longer than four blocks: the leading ASCII
//! skipped a block at a time ([`leading_ascii`]), then the tiered loop
//! ([`check_tiered`]).
//!
//! The tiers: a block whose bytes (and the three before it) hold no 3- or 4-byte
//! lead, or no 4-byte lead, can never fail the parts of step 2 that need them,
//! and is checked without those parts. Runs of non-ASCII blocks are checked in
//! groups ([`check_stretch`]), each in the cheapest tier its blocks allow; runs of
//! ASCII blocks between them only need the block before not to end inside a
//! sequence.

use super::rules::before;
use super::rules::{
    block_errors, block_errors_after, block_fine, block_max, ends_inside_lanes, failing_block,
    is_ascii, Constants, FULL, NO_FOUR_BYTE, PAIRS,
};
use super::vector::Vector;
use crate::answer::Answer;
use crate::chunk::{checked_chunk_state, ChunkEnd};
use crate::sequence::{ends_inside_sequence, open_state};
use crate::sizes::{BLOCK, MEDIUM};
use crate::state_machine::State;

/// Inputs at least this long are read in 64-byte aligned blocks after the first.
const ALIGN_FROM: usize = 16 * BLOCK;

/// Blocks per step inside a run of ASCII (one OR-reduction and one branch per
/// 256 bytes).
const ASCII_RUN: usize = 4;

/// Non-ASCII blocks between tests of the gathered error lanes, and between two
/// choices of tier. 16 measured 2-4% faster than 8 on long non-ASCII text; on an
/// error, `rules::failing_block` finds the block, so the size costs nothing there.
pub(super) const GROUP: usize = 16;

/// How far ahead of the block being checked a run of non-ASCII blocks asks for
/// the cache line to be fetched.
pub(super) const PREFETCH_DISTANCE: usize = 8 * BLOCK;

// Leading ASCII.

/// Skips the leading ASCII of an input longer than one block, the common case of
/// protocol text: a load pair and a branch per block, and nothing else set up, so
/// that an input that is all ASCII never pays for [`check_tiered`]'s set-up (saved
/// registers, constants). `None` when every byte is ASCII, else `Some(at)`: every
/// byte before `at` is ASCII, and `at` is 0, or the offset of the first whole block
/// that is not all ASCII, or the last offset with less than a whole block after it.
///
/// Long inputs move to 64-byte aligned blocks after the first (a load that
/// straddles two cache lines costs twice as much): see [`second_block`].
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`.
#[inline(always)]
unsafe fn leading_ascii<V: Vector>(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY: the caller guarantees the CPU feature; both `is_ascii` read one
    // block inside `bytes` as `BLOCK < len`.
    unsafe {
        if !is_ascii::<V>(start, 1) {
            return Some(0);
        }
        let at = skip_ascii::<V>(bytes, second_block(bytes));
        if at + BLOCK > len && (at == len || is_ascii::<V>(start.add(len - BLOCK), 1)) {
            return None;
        }
        Some(at)
    }
}

/// The offset of the block checked after the first: the first 64-byte aligned
/// address in long inputs (the second block may then overlap the first by up to
/// 63 bytes, which are checked twice; no byte is skipped), unless it is 1 or 2 bytes
/// into the input, where the three bytes before the block would start before the
/// input. In shorter inputs the overlap would cost more than the straddling loads
/// save.
#[inline(always)]
fn second_block(bytes: &[u8]) -> usize {
    if bytes.len() < ALIGN_FROM {
        return BLOCK;
    }
    // 1 to BLOCK: the bytes from the start of the input to the next 64-byte
    // aligned address, so the second block overlaps the first by the rest of it
    // and leaves no gap.
    let aligned = BLOCK - bytes.as_ptr() as usize % BLOCK;
    if aligned >= 3 {
        aligned
    } else {
        BLOCK
    }
}

/// The offset of the first block at or after `at` that is not all ASCII, or the
/// first offset past `at` with less than a whole block left. Runs of ASCII in text
/// with scattered non-ASCII characters are short, so the first blocks are taken
/// one at a time; a longer run goes on [`ASCII_RUN`] blocks at a time.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn skip_ascii<V: Vector>(bytes: &[u8], mut at: usize) -> usize {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY: every `is_ascii` reads `at..at + n * BLOCK`, inside `bytes` by the
    // test before it; the caller guarantees the CPU feature.
    unsafe {
        for _ in 0..ASCII_RUN {
            if at + BLOCK > len || !is_ascii::<V>(start.add(at), 1) {
                return at;
            }
            at += BLOCK;
        }
        while at + ASCII_RUN * BLOCK <= len && is_ascii::<V>(start.add(at), ASCII_RUN) {
            at += ASCII_RUN * BLOCK;
        }
        while at + BLOCK <= len && is_ascii::<V>(start.add(at), 1) {
            at += BLOCK;
        }
    }
    at
}

// The tiered loop.

/// The check of `bytes` from `at`, where [`leading_ascii`] stopped: the tiered
/// loop. `None` when it passes, else `Some(g)`: every check before offset `g`
/// passed. Each back end compiles it into a function of its own, so that inputs
/// that never get here do not pay for its set-up (saved registers, constants).
///
/// `before` is the vector before the input (zeros for a whole input; the carried
/// sequence's lead byte in the last lane for a chunk of data), which only
/// the first block looks at; with `OPEN`, an input that ends inside a sequence
/// passes (see `chunk_long`).
///
/// # Safety
/// The CPU feature of `V` must be present, `bytes.len() > MEDIUM` (the last block
/// then starts far enough in to read the three bytes before it), and `at` is what
/// [`leading_ascii`] answered for `bytes` (or 0). Call it only from a function
/// compiled with that feature, so that this body is inlined and compiled with it.
#[inline(always)]
unsafe fn check_tiered<V: Vector, const OPEN: bool>(
    bytes: &[u8],
    mut at: usize,
    before: V,
) -> Option<usize> {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY (for the whole body): the caller guarantees the CPU feature. Every
    // `V::load(p)` below reads `p..p + BYTES` where the comment at the load shows
    // that range is inside `bytes`.
    unsafe {
        let second = second_block(bytes);
        let k = Constants::<V>::new();
        if at == 0 {
            // The first block, with `before` before it.
            if block_errors_after(&k, start, before).any_nonzero() {
                return Some(0);
            }
            at = second;
            // In bounds: at + BLOCK <= len.
            if at + BLOCK <= len && is_ascii::<V>(start.add(at), 1) {
                // An ASCII block is wrong only if the block before it ended inside
                // a sequence.
                if ends_inside_sequence(bytes, at) {
                    return Some(at);
                }
                at = skip_ascii::<V>(bytes, at + BLOCK);
            }
        }

        // Whole blocks: stretches of non-ASCII blocks ([`check_stretch`])
        // and the runs of ASCII blocks between them. Before `at` every check has
        // passed, and the block at `at`, if whole, is not all ASCII.
        while at + BLOCK <= len {
            match check_stretch(&k, bytes, &mut at) {
                Stretch::BeforeAscii => at = skip_ascii::<V>(bytes, at + BLOCK),
                Stretch::AtEnd => break,
                Stretch::Error(block) => return Some(block),
            }
        }

        // The tail: the bytes after the last whole block (fewer than 64), checked as
        // one more block over the last 64 bytes of the input, which overlaps bytes
        // already checked (the first block covers 0..64 even when `at` is below).
        if at.max(BLOCK) < len {
            let from = len - BLOCK;
            // In bounds: from + BLOCK = len.
            if is_ascii::<V>(start.add(from), 1) {
                if ends_inside_sequence(bytes, from) {
                    return Some(from);
                }
                return None;
            }
            // In bounds: from = len - BLOCK > MEDIUM - BLOCK >= 3, and
            // from + BLOCK = len.
            if block_errors::<V, FULL>(&k, start.add(from)).any_nonzero() {
                return Some(from);
            }
        }
    }
    if !OPEN && ends_inside_sequence(bytes, bytes.len()) {
        return Some(len);
    }
    None
}

/// How a stretch of non-ASCII blocks ended ([`check_stretch`]).
pub(super) enum Stretch {
    /// Before an ASCII block, at `*at`.
    BeforeAscii,
    /// With less than a whole block left after `*at`.
    AtEnd,
    /// With an error in the block at this offset or in the bytes after it.
    Error(usize),
}

/// Checks the non-ASCII blocks from `*at` up to an ASCII block or the end of
/// the whole blocks, in groups of up to [`GROUP`] blocks. Each group starts in
/// the cheapest tier its first block allows and moves up when a block needs
/// more; then one test of the group's gathered error lanes (testing them per
/// block costs a few percent). Separate loops per tier, not a branch per block
/// between the checks, keep the loops as fast as a single-tier loop; keep their
/// shape (variants with a block counter, or stepping a pointer, made LLVM keep
/// three or four induction variables and ran 3-10% slower).
///
/// # Safety
/// `*at >= 3` and `*at + BLOCK <= bytes.len()`; the CPU feature of `V` must be
/// present.
#[inline(always)]
pub(super) unsafe fn check_stretch<V: Vector>(
    k: &Constants<V>,
    bytes: &[u8],
    at: &mut usize,
) -> Stretch {
    let start = bytes.as_ptr();
    // SAFETY: `window_max` reads `*at - 3..*at + BLOCK`, and each `run_in_tier`
    // starts at a block with `*at >= 3` and `*at + BLOCK <= len` (by the contract,
    // and `run_in_tier` stops before a whole block only); `ends_inside_lanes`
    // reads `*at - BYTES..*at` with `BYTES < BLOCK <= *at`; the caller guarantees
    // the CPU feature.
    unsafe {
        loop {
            let group = *at;
            let last = group + (GROUP - 1) * BLOCK;
            let mut error = V::splat(0);
            let mut next = match tier_of(k, window_max::<V>(start.add(*at))) {
                PAIRS => run_in_tier::<V, PAIRS>(k, bytes, at, last, &mut error),
                NO_FOUR_BYTE => Next::NoFourByte,
                _ => Next::Full,
            };
            if next == Next::NoFourByte {
                next = run_in_tier::<V, NO_FOUR_BYTE>(k, bytes, at, last, &mut error);
            }
            if next == Next::Full {
                next = run_in_tier::<V, FULL>(k, bytes, at, last, &mut error);
            }
            if next == Next::Ascii {
                // The stretch must not end inside a sequence.
                error = error.or(ends_inside_lanes(start.add(*at - V::BYTES)));
            }
            if error.any_nonzero() {
                return Stretch::Error(failing_block(k, start, group, *at));
            }
            match next {
                Next::Ascii => return Stretch::BeforeAscii,
                Next::InputEnd => return Stretch::AtEnd,
                _ => {}
            }
        }
    }
}

/// Where [`run_in_tier`] stopped: before an ASCII block, with less than a whole
/// block left, after the last block of the group (before a non-ASCII block), or
/// before a block that needs one of the higher tiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    Ascii,
    InputEnd,
    GroupEnd,
    NoFourByte,
    Full,
}

/// Checks the non-ASCII blocks from `*at` in `TIER` into `error`, up to the
/// block at `last`, the end of the whole blocks or an ASCII block, or up to a
/// block that does not fit `TIER`: then `*at` is at that block, and the answer is
/// the tier it fits. The block at `*at` and the three bytes before it must fit
/// `TIER`.
///
/// # Safety
/// `*at >= 3` and `*at + BLOCK <= bytes.len()`; the CPU feature of `V` must be
/// present.
#[inline(always)]
unsafe fn run_in_tier<V: Vector, const TIER: u8>(
    k: &Constants<V>,
    bytes: &[u8],
    at: &mut usize,
    last: usize,
    error: &mut V,
) -> Next {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // The pairs tier by comparisons gathers its lanes with a minimum instead
    // (see `pairs_fine`), turned into error lanes once, at the end.
    let by_comparison = TIER == PAIRS && V::COMPARE_PAIRS;
    // SAFETY: `block_errors` and `block_fine` read `*at - 3..*at + BLOCK`, inside
    // `bytes` by the contract and by the test before the next block; `block_max`
    // reads `*at..*at + BLOCK` after that test; the caller guarantees the CPU
    // feature.
    unsafe {
        let mut fine = V::splat(0xFF);
        let next = loop {
            V::prefetch(start.wrapping_add(*at + PREFETCH_DISTANCE));
            if by_comparison {
                fine = fine.min(block_fine(k, start.add(*at)));
            } else {
                *error = error.or(block_errors::<V, TIER>(k, start.add(*at)));
            }
            *at += BLOCK;
            if *at + BLOCK > len {
                break Next::InputEnd;
            }
            let most = block_max::<V>(start.add(*at));
            if !most.any_high_bit() {
                break Next::Ascii;
            }
            if *at > last {
                break Next::GroupEnd;
            }
            // The block before it fitted TIER, so its last three bytes do.
            if !fits_tier::<V, TIER>(k, most) {
                break if TIER == PAIRS && fits_tier::<V, NO_FOUR_BYTE>(k, most) {
                    Next::NoFourByte
                } else {
                    Next::Full
                };
            }
        };
        if by_comparison {
            *error = error.or(k.overlong_limit.saturating_sub(fine));
        }
        next
    }
}

/// The tier of a block (and the three bytes before it) whose lane-wise maximum
/// is `most`.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn tier_of<V: Vector>(k: &Constants<V>, most: V) -> u8 {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        if fits_tier::<V, PAIRS>(k, most) {
            PAIRS
        } else if fits_tier::<V, NO_FOUR_BYTE>(k, most) {
            NO_FOUR_BYTE
        } else {
            FULL
        }
    }
}

/// True iff no lane of `most` holds a byte that `TIER` leaves out.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn fits_tier<V: Vector, const TIER: u8>(k: &Constants<V>, most: V) -> bool {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        match TIER {
            // Bit 7 of `b - 0x60` (saturating) is set iff b >= 0xE0.
            PAIRS => !most.saturating_sub(k.third_bias).any_high_bit(),
            // Bit 7 of `b - 0x70` (saturating) is set iff b >= 0xF0.
            NO_FOUR_BYTE => !most.saturating_sub(k.fourth_bias).any_high_bit(),
            _ => true,
        }
    }
}

/// The lane-wise maximum of `q - 3..q + BLOCK`: the block at `q` and the three
/// bytes before it, for [`tier_of`].
///
/// # Safety
/// `q - 3..q + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn window_max<V: Vector>(q: *const u8) -> V {
    // SAFETY: the loads read `q - 3 + i * BYTES..q - 3 + (i + 1) * BYTES` for
    // `i < BLOCK / BYTES` and `q + BLOCK - BYTES..q + BLOCK`, all inside
    // `q - 3..q + BLOCK`; the caller guarantees the CPU feature.
    unsafe {
        let from = q.sub(3);
        let mut most = V::load(from);
        for i in 1..BLOCK / V::BYTES {
            most = most.max(V::load(from.add(i * V::BYTES)));
        }
        most.max(V::load(q.add(BLOCK - V::BYTES)))
    }
}

// The workers of the ladder's top rung (`crate::ladder`), each compiled into a
// back end's entry by `crate::ladder::back_end!`: a whole input ([`long`]) or a
// chunk ([`chunk_long`]) of more than `crate::sizes::MEDIUM` bytes.

/// The answer `A` for a whole input of more than [`MEDIUM`] bytes: its leading
/// ASCII skipped ([`leading_ascii`]), then the tiered loop ([`check_tiered`]).
///
/// # Safety
/// The CPU feature of `V` must be present and `bytes.len() > MEDIUM`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(crate) unsafe fn long<V: Vector, A: Answer>(bytes: &[u8]) -> A {
    // SAFETY: the caller guarantees the CPU feature and the length.
    unsafe {
        core::hint::assert_unchecked(bytes.len() > MEDIUM);
        let Some(at) = leading_ascii::<V>(bytes) else {
            return A::valid(bytes.len());
        };
        match check_tiered::<V, false>(bytes, at, V::splat(0)) {
            None => A::valid(bytes.len()),
            Some(passed) => A::invalid(bytes, passed),
        }
    }
}

/// The state after `state` (not ERROR) followed by `bytes`, a chunk of more than
/// [`MEDIUM`] bytes, handed to `end`: as for a whole input, but with the carried
/// state's lead byte before the first block and the end left open.
///
/// # Safety
/// The CPU feature of `V` must be present, `state` is not ERROR and `bytes.len() >
/// MEDIUM`. Call it only from a function compiled with that feature.
#[inline(always)]
pub(crate) unsafe fn chunk_long<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(bytes.len() > MEDIUM) };
    let last = open_state(bytes);
    // SAFETY: the caller guarantees the CPU feature and the length.
    let passed = unsafe { open_tiered::<V>(state, bytes) };
    end.end(bytes, checked_chunk_state(last, passed))
}

/// The check of [`chunk_long`]: its leading ASCII, then the tiered loop.
///
/// # Safety
/// As for [`chunk_long`].
#[inline(always)]
unsafe fn open_tiered<V: Vector>(state: State, bytes: &[u8]) -> bool {
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
