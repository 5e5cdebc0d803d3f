//! The tiers of the check: a block whose bytes (and the three before it) hold no
//! 3- or 4-byte lead, or no 4-byte lead, can never fail the parts of step 2 that
//! need them, and is checked without those parts. Runs of non-ASCII blocks are
//! checked here, each in the cheapest tier its blocks allow.

use super::rules::{errors, pair_flag_lanes, Constants};
use super::{Vector, BLOCK, PREFETCH_DISTANCE};

/// The error lanes of the vector at `q` in `TIER` (see [`errors_in`]), reading
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
        errors_in::<V, TIER>(
            k,
            V::load(q),
            V::load(q.sub(1)),
            V::load(q.sub(2)),
            V::load(q.sub(3)),
        )
    }
}

/// Tiers of the check, by the largest byte of a block and the three bytes before
/// it: which leads the block can hold decides which parts of [`errors`] can ever
/// be non-zero, and the cheaper tiers leave out the parts that cannot.
///
/// No byte E0-FF: no byte has to be the third or fourth of a sequence, so the
/// pair flags are the whole answer (two continuation bytes in a row are then
/// always an error).
pub(super) const PAIRS: u8 = 0;
/// No byte F0-FF: no byte has to be the fourth of a sequence.
pub(super) const NO_FOUR_BYTE: u8 = 1;
/// Any bytes: the whole check.
pub(super) const FULL: u8 = 2;
/// Not a tier: the run of blocks has ended.
pub(super) const RUN_ENDED: u8 = 3;

/// The tier of a block (and the three bytes before it) whose lane-wise maximum
/// is `most`.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn tier_of<V: Vector>(k: &Constants<V>, most: V) -> u8 {
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
pub(super) unsafe fn window_max<V: Vector>(q: *const u8) -> V {
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

/// Checks the non-ASCII blocks from `*at` in `TIER` into `error`, up to the
/// block at `last`, the end of the whole blocks, or an ASCII block (then `None`),
/// or up to a block that does not fit `TIER`: then `Some` of its lane-wise
/// maximum, with `*at` at that block. The block at `*at` and the three bytes
/// before it must fit `TIER`.
///
/// # Safety
/// `*at >= 3` and `*at + BLOCK <= bytes.len()`; the CPU feature of `V` must be
/// present.
#[inline(always)]
pub(super) unsafe fn run_in_tier<V: Vector, const TIER: u8>(
    k: &Constants<V>,
    bytes: &[u8],
    at: &mut usize,
    last: usize,
    error: &mut V,
) -> Option<V> {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY: `block_errors` reads `*at - 3..*at + BLOCK`, inside `bytes` by
    // the contract and by the test before the next block; `block_max` reads
    // `*at..*at + BLOCK` after that test; the caller guarantees the CPU feature.
    unsafe {
        loop {
            V::prefetch(start.wrapping_add(*at + PREFETCH_DISTANCE));
            *error = error.or(block_errors::<V, TIER>(k, start.add(*at)));
            *at += BLOCK;
            if *at > last || *at + BLOCK > len {
                return None;
            }
            let most = block_max::<V>(start.add(*at));
            if !most.any_high_bit() {
                return None;
            }
            // The block before it fitted TIER, so its last three bytes do.
            if !fits_tier::<V, TIER>(k, most) {
                return Some(most);
            }
        }
    }
}

/// The error lanes of `this` as [`errors`] computes them, for a vector whose
/// bytes and the three before them fit `TIER`: the parts of the check that
/// cannot be non-zero there are left out.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn errors_in<V: Vector, const TIER: u8>(
    k: &Constants<V>,
    this: V,
    prev1: V,
    prev2: V,
    prev3: V,
) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        match TIER {
            // No 3- or 4-byte lead two or three back: "needs a continuation" is
            // zero in every lane.
            PAIRS => pair_flag_lanes(k, this, prev1),
            // No 4-byte lead three back: its part of "needs" is zero.
            NO_FOUR_BYTE => prev2
                .saturating_sub(k.third_bias)
                .and(k.high_bit)
                .xor(pair_flag_lanes(k, this, prev1)),
            _ => errors(k, this, prev1, prev2, prev3),
        }
    }
}

/// The error lanes of the block at `p` in `TIER` (see [`errors_in`]), reading the
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

/// The lane-wise maximum of the vectors of the block at `p`.
///
/// # Safety
/// `p..p + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn block_max<V: Vector>(p: *const u8) -> V {
    // SAFETY: the loads cover `p..p + BLOCK`, readable by the contract.
    unsafe {
        let mut most = V::load(p);
        for i in 1..BLOCK / V::BYTES {
            most = most.max(V::load(p.add(i * V::BYTES)));
        }
        most
    }
}
