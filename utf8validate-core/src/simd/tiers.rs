//! The tiers of the check: a block whose bytes (and the three before it) hold no
//! 3- or 4-byte lead, or no 4-byte lead, can never fail the parts of step 2 that
//! need them, and is checked without those parts. Runs of non-ASCII blocks are
//! checked here, each in the cheapest tier its blocks allow.

use super::rules::{ends_inside_lanes, errors, pairs_fine, Constants, FULL, NO_FOUR_BYTE, PAIRS};
use super::vector::{Vector, BLOCK};

/// Non-ASCII blocks between tests of the gathered error lanes, and between two
/// choices of tier. 16 measured 2-4% faster than 8 on long non-ASCII text; on an
/// error, `tiers::failing_block` finds the block, so the size costs nothing there.
pub(super) const GROUP: usize = 16;

/// How far ahead of the block being checked a run of non-ASCII blocks asks for
/// the cache line to be fetched.
pub(super) const PREFETCH_DISTANCE: usize = 8 * BLOCK;

/// The error lanes of the vector at `q` in `TIER` (see [`errors`]), reading
/// the three bytes before it from memory.
///
/// # Safety
/// `q - 3..q + BYTES` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn vector_errors<V: Vector, const TIER: u8>(k: &Constants<V>, q: *const u8) -> V {
    // SAFETY: the loads read within `q - 3..q + BYTES`, readable by the contract;
    // the caller guarantees the CPU feature. A load whose value `TIER` does not use
    // is never made.
    unsafe {
        errors::<V, TIER>(
            k,
            V::load(q),
            V::load(q.sub(1)),
            V::load(q.sub(2)),
            V::load(q.sub(3)),
        )
    }
}

/// The error lanes of `this` in the full check, with `before` the vector before it:
/// the three bytes before each lane are taken from `before` and `this` by shuffles
/// ([`Vector::prev1`]-[`Vector::prev3`]), not loaded again.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn vector_errors_after<V: Vector>(k: &Constants<V>, before: V, this: V) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        errors::<V, FULL>(
            k,
            this,
            this.prev1(before),
            this.prev2(before),
            this.prev3(before),
        )
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

/// The error lanes of the block at `p` in `TIER` (see [`errors`]), reading the
/// three bytes before each vector from memory.
///
/// # Safety
/// `p - 3..p + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn block_errors<V: Vector, const TIER: u8>(k: &Constants<V>, p: *const u8) -> V {
    // SAFETY: each `vector_errors` reads within `q - 3..q + BYTES` for `q` in
    // `p..p + BLOCK` (step BYTES), inside `p - 3..p + BLOCK`; the caller guarantees
    // the CPU feature.
    unsafe {
        let mut error = V::splat(0);
        for i in 0..BLOCK / V::BYTES {
            error = error.or(vector_errors::<V, TIER>(k, p.add(i * V::BYTES)));
        }
        error
    }
}

/// The error lanes of the block at `p`, with `before` the vector before it (zeros
/// at the start of an input; the carried lead byte before a chunk): the three bytes
/// before each vector by shuffles from the one before it ([`vector_errors_after`]).
///
/// # Safety
/// `p..p + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn block_errors_after<V: Vector>(k: &Constants<V>, p: *const u8, before: V) -> V {
    // SAFETY: every load reads `p + i * BYTES..p + (i + 1) * BYTES`, inside
    // `p..p + BLOCK`; the caller guarantees the CPU feature.
    unsafe {
        let mut error = V::splat(0);
        let mut prev = before;
        for i in 0..BLOCK / V::BYTES {
            let this = V::load(p.add(i * V::BYTES));
            error = error.or(vector_errors_after(k, prev, this));
            prev = this;
        }
        error
    }
}

/// The error lanes of the whole block at `q`, at least one block into the input,
/// with the three bytes before each vector taken as the instruction set prefers
/// ([`Vector::PREV_BY_SHUFFLE`]): by shuffles from the vector before it
/// ([`block_errors_after`]), or by loads.
///
/// # Safety
/// `q - BYTES..q + BLOCK` must be readable; the CPU feature of `V` must be
/// present.
#[inline(always)]
pub(super) unsafe fn inner_block_errors<V: Vector>(k: &Constants<V>, q: *const u8) -> V {
    // SAFETY: `q - BYTES..q + BLOCK` is readable by the contract (and `BYTES >=
    // 3` for the loads one to three bytes back); the caller guarantees the feature.
    unsafe {
        if V::PREV_BY_SHUFFLE {
            block_errors_after(k, q, V::load(q.sub(V::BYTES)))
        } else {
            block_errors::<V, FULL>(k, q)
        }
    }
}

/// The lane-wise minimum of [`pairs_fine`] over the block at `p`, reading the
/// byte before each vector from memory: at most 1 in some lane iff a pair in the
/// block is ill-formed, for a block that fits [`PAIRS`].
///
/// # Safety
/// `p - 1..p + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn block_fine<V: Vector>(k: &Constants<V>, p: *const u8) -> V {
    // SAFETY: each vector reads `q - 1..q + BYTES` for `q` in `p..p + BLOCK` (step
    // BYTES), inside `p - 1..p + BLOCK`; the caller guarantees the CPU feature.
    unsafe {
        let mut fine = V::splat(0xFF);
        for i in 0..BLOCK / V::BYTES {
            let q = p.add(i * V::BYTES);
            fine = fine.min(pairs_fine(k, V::load(q), V::load(q.sub(1))));
        }
        fine
    }
}

/// The lane-wise maximum of the vectors of the block at `p`.
///
/// # Safety
/// `p..p + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn block_max<V: Vector>(p: *const u8) -> V {
    // SAFETY: the loads cover `p..p + BLOCK`, readable by the contract.
    unsafe {
        let mut most = V::load(p);
        for i in 1..BLOCK / V::BYTES {
            most = most.max(V::load(p.add(i * V::BYTES)));
        }
        most
    }
}

/// The offset of the first block of the group `group..end` (the blocks at
/// `group`, `group + BLOCK`, ... before `end`) whose error lanes are not all
/// zero, or of its last block when no block before it has any: the error is then
/// in that block, or the group ends inside a sequence. Only called on invalid
/// input, so that `first_error_from_boundary` scans one block, not the whole
/// group, with the scalar machine. Inlined, to be compiled with the back end's
/// instruction set.
///
/// # Safety
/// `group >= 3` and `group..end` inside the input at `start`; the CPU feature of
/// `V` must be present.
#[inline(always)]
pub(super) unsafe fn failing_block<V: Vector>(
    k: &Constants<V>,
    start: *const u8,
    group: usize,
    end: usize,
) -> usize {
    let mut block = group;
    // SAFETY: each `block_errors` reads `block - 3..block + BLOCK`, inside
    // `group - 3..end` by the contract; the caller guarantees the CPU feature.
    unsafe {
        while block + BLOCK < end && !block_errors::<V, FULL>(k, start.add(block)).any_nonzero() {
            block += BLOCK;
        }
    }
    block
}
