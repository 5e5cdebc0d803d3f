//! The three steps of the algorithm (see the parent module), for one vector and
//! for one block: the kinds of ill-formed pairs of adjacent bytes, the three
//! nibble tables derived from them, and the error lanes of one vector from the
//! bytes 1, 2 and 3 positions earlier (steps 1 and 2, [`errors`]); whether a
//! vector's bytes end inside a sequence (step 3, [`ends_inside_lanes`]; the
//! byte-by-byte forms are in `crate::sequence`); the same over a block, its bytes
//! before read from memory or taken from the vector before ([`block_errors`],
//! [`block_errors_after`]); and the ASCII test of a block ([`is_ascii`]).

use super::vector::Vector;
use crate::sizes::BLOCK;
use crate::state_machine::State;

/// A set of nibble values 0-15, as a bit set.
type Nibbles = u16;

/// The nibbles `lo..=hi`.
const fn span(lo: u8, hi: u8) -> Nibbles {
    let mut set = 0;
    let mut n = lo;
    while n <= hi {
        set |= 1 << n;
        n += 1;
    }
    set
}

const ANY: Nibbles = span(0x0, 0xF);
/// High nibbles of ASCII bytes (00-7F).
const ASCII: Nibbles = span(0x0, 0x7);
/// High nibbles of continuation bytes (80-BF).
const CONT: Nibbles = span(0x8, 0xB);
/// High nibbles of lead bytes and of the never-used C0, C1, F5-FF (C0-FF).
const LEAD: Nibbles = span(0xC, 0xF);

/// One kind of ill-formed pair of adjacent bytes `(prev, this)`: the pairs whose
/// `prev` high nibble, `prev` low nibble and `this` high nibble are in the three
/// sets. `flag` is the kind's bit in the tables.
#[derive(Clone, Copy)]
pub(crate) struct PairRule {
    flag: u8,
    prev_high: Nibbles,
    prev_low: Nibbles,
    this_high: Nibbles,
}

/// Bit 7: two continuation bytes in a row. Not an error by itself (see step 2 of
/// the algorithm); it must be bit 7 so that the byte-wise XOR with "needed here"
/// (0x80 or 0) cancels it.
const TWO_CONTINUATIONS: u8 = 0x80;

/// Every kind of ill-formed pair (RFC 3629 §4; Unicode §3.9, Table 3-7).
pub(crate) const PAIR_RULES: [PairRule; 8] = [
    // A lead byte (or C0, C1, F5-FF) followed by ASCII or another lead: too short.
    PairRule {
        flag: 0x01,
        prev_high: LEAD,
        prev_low: ANY,
        this_high: ASCII | LEAD,
    },
    // ASCII followed by a continuation byte: a stray continuation byte.
    PairRule {
        flag: 0x02,
        prev_high: ASCII,
        prev_low: ANY,
        this_high: CONT,
    },
    // E0 80-9F: overlong 3-byte form (U+0000-U+07FF).
    PairRule {
        flag: 0x04,
        prev_high: span(0xE, 0xE),
        prev_low: span(0x0, 0x0),
        this_high: span(0x8, 0x9),
    },
    // F4 90-BF and F5-FF 90-BF: above U+10FFFF.
    PairRule {
        flag: 0x08,
        prev_high: span(0xF, 0xF),
        prev_low: span(0x4, 0xF),
        this_high: span(0x9, 0xB),
    },
    // ED A0-BF: UTF-16 surrogates (U+D800-U+DFFF).
    PairRule {
        flag: 0x10,
        prev_high: span(0xE, 0xE),
        prev_low: span(0xD, 0xD),
        this_high: span(0xA, 0xB),
    },
    // C0, C1 with a continuation byte: overlong 2-byte form (U+0000-U+007F).
    PairRule {
        flag: 0x20,
        prev_high: span(0xC, 0xC),
        prev_low: span(0x0, 0x1),
        this_high: CONT,
    },
    // F0 80-8F: overlong 4-byte form; F5-FF 80-8F: above U+10FFFF.
    PairRule {
        flag: 0x40,
        prev_high: span(0xF, 0xF),
        prev_low: span(0x0, 0x0) | span(0x5, 0xF),
        this_high: span(0x8, 0x8),
    },
    // Two continuation bytes: checked against the lead two or three bytes back.
    PairRule {
        flag: TWO_CONTINUATIONS,
        prev_high: CONT,
        prev_low: ANY,
        this_high: CONT,
    },
];

/// Which of the three nibbles of a pair a table is indexed by.
#[derive(Clone, Copy)]
enum Nibble {
    PrevHigh,
    PrevLow,
    ThisHigh,
}

/// `table[n]`: the flags of every rule whose set for `which` contains `n`.
#[allow(
    clippy::indexing_slicing,
    reason = "runs only at compile time, for a static's initialiser: an index out of range would fail the build, not panic"
)]
const fn build_table(which: Nibble) -> [u8; 16] {
    let mut table = [0u8; 16];
    let mut r = 0;
    while r < PAIR_RULES.len() {
        let rule = PAIR_RULES[r];
        let set = match which {
            Nibble::PrevHigh => rule.prev_high,
            Nibble::PrevLow => rule.prev_low,
            Nibble::ThisHigh => rule.this_high,
        };
        let mut n = 0;
        while n < 16 {
            if set & (1 << n) != 0 {
                table[n] |= rule.flag;
            }
            n += 1;
        }
        r += 1;
    }
    table
}

/// Rules by the high nibble of the previous byte.
pub(crate) static PREV_HIGH: [u8; 16] = build_table(Nibble::PrevHigh);
/// Rules by the low nibble of the previous byte.
pub(crate) static PREV_LOW: [u8; 16] = build_table(Nibble::PrevLow);
/// Rules by the high nibble of this byte.
pub(crate) static THIS_HIGH: [u8; 16] = build_table(Nibble::ThisHigh);

/// The pair flags of `(prev, this)` as one lane of the vector code computes them.
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
pub(super) unsafe fn before<V: Vector>(state: State) -> V {
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

#[cfg(test)]
fn pair_flags(prev: u8, this: u8) -> u8 {
    PREV_HIGH[(prev >> 4) as usize]
        & PREV_LOW[(prev & 0xF) as usize]
        & THIS_HIGH[(this >> 4) as usize]
}

/// `x - (0xE0 - 0x80)` saturating has bit 7 set iff `x >= 0xE0` (the largest
/// result, 0xFF - 0x60 = 0x9F, stays below 0x100): a 3- or 4-byte lead.
const THIRD_BYTE_BIAS: u8 = 0xE0 - 0x80;
/// Likewise, bit 7 of `x - (0xF0 - 0x80)` is set iff `x >= 0xF0`: a 4-byte lead.
const FOURTH_BYTE_BIAS: u8 = 0xF0 - 0x80;

/// [`pairs_fine`] answers at most `OVERLONG_LIMIT - 1` where a pair is
/// ill-formed: `OVERLONG_LIMIT - x` (saturating) turns its answer into error
/// lanes.
pub(super) const OVERLONG_LIMIT: u8 = 2;

/// The vectors of constants the loop uses, loaded once per call.
#[derive(Clone, Copy)]
pub(super) struct Constants<V> {
    pub(super) prev_high: V,
    pub(super) prev_low: V,
    pub(super) this_high: V,
    pub(super) third_bias: V,
    pub(super) fourth_bias: V,
    pub(super) high_bit: V,
    pub(super) lead_min: V,
    pub(super) overlong_limit: V,
}

impl<V: Vector> Constants<V> {
    /// # Safety
    /// The CPU feature of `V` must be present.
    #[inline(always)]
    pub(super) unsafe fn new() -> Self {
        // SAFETY: the caller guarantees the CPU feature.
        unsafe {
            Constants {
                prev_high: V::table(&PREV_HIGH),
                prev_low: V::table(&PREV_LOW),
                this_high: V::table(&THIS_HIGH),
                third_bias: V::splat(THIRD_BYTE_BIAS),
                fourth_bias: V::splat(FOURTH_BYTE_BIAS),
                high_bit: V::splat(0x80),
                lead_min: V::splat(0xC0),
                overlong_limit: V::splat(OVERLONG_LIMIT),
            }
        }
    }
}

/// Tiers of the check (see `super::tiers`): which leads a vector and the three
/// bytes before it can hold decides which parts of [`errors`] can ever be
/// non-zero there, and the cheaper tiers leave out the parts that cannot.
///
/// No byte E0-FF: no byte has to be the third or fourth of a sequence, so the
/// pair flags are the whole answer (two continuation bytes in a row are then
/// always an error).
pub(super) const PAIRS: u8 = 0;
/// No byte F0-FF: no byte has to be the fourth of a sequence.
pub(super) const NO_FOUR_BYTE: u8 = 1;
/// Any bytes: the whole check.
pub(super) const FULL: u8 = 2;

/// The error lanes of `this`, given the vectors of the bytes 1, 2 and 3 positions
/// earlier: non-zero exactly where a byte cannot follow the three before it, for a
/// vector whose bytes and the three before them fit `TIER` (the terms `TIER` leaves
/// out are zero there).
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn errors<V: Vector, const TIER: u8>(
    k: &Constants<V>,
    this: V,
    prev1: V,
    prev2: V,
    prev3: V,
) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        let flags = pair_flag_lanes(k, this, prev1);
        // Bit 7 where the byte must be the third or fourth of a sequence.
        let needs_continuation = match TIER {
            // No 3- or 4-byte lead two or three back: zero in every lane.
            PAIRS => return flags,
            // No 4-byte lead three back: only the 3-byte lead two back counts.
            NO_FOUR_BYTE => prev2.saturating_sub(k.third_bias),
            _ => prev2
                .saturating_sub(k.third_bias)
                .or(prev3.saturating_sub(k.fourth_bias)),
        };
        needs_continuation.and(k.high_bit).xor(flags)
    }
}

/// The [`PAIRS`] tier by comparisons instead of table lookups, for back ends
/// where a comparison is one instruction (`Vector::COMPARE_PAIRS`). With no byte
/// E0-FF in `this` and the three bytes before it, every lead byte is C0-DF and
/// needs exactly one continuation byte, so the pairs are well-formed exactly when
/// a byte is a continuation byte (80-BF) iff the byte before it is a lead byte
/// (C0-FF), and no byte is C0 or C1 (overlong).
///
/// The answer is inverted, so that one lane-wise minimum gathers both parts: a
/// lane is at most [`OVERLONG_LIMIT`]` - 1` (0 or 1) exactly where
/// [`pair_flag_lanes`] is non-zero (the tiers meet inside sequences, so the
/// lanes that flag a pair must be the same), and above it elsewhere. Seven
/// instructions per vector with AVX2 (ten with the lookups, plus one to gather).
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn pairs_fine<V: Vector>(k: &Constants<V>, this: V, prev1: V) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        // 80-BF are -128..-65 as `i8`, below 0xC0 (-64); ASCII is positive.
        let continuation = this.less_signed(k.lead_min);
        // prev1 >= 0xC0, unsigned.
        let after_lead = prev1.max(k.lead_min).equal(prev1);
        // 0 or 1 exactly where prev1 is C0 or C1 (as the pair rules, which flag
        // them in the lane after them); C2-FF give 2-0x3F, the others 0x40-0xFF.
        let from_overlong = prev1.xor(k.lead_min);
        // 0 where the pair is ill-formed.
        from_overlong.and_not(continuation.xor(after_lead))
    }
}

/// The pair flags ([`PAIR_RULES`]) of `this` and the bytes one position earlier.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn pair_flag_lanes<V: Vector>(k: &Constants<V>, this: V, prev1: V) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        prev1
            .lookup_high(k.prev_high)
            .and(prev1.lookup_low(k.prev_low))
            .and(this.lookup_high(k.this_high))
    }
}

// Step 3: the end.

/// Non-zero lanes iff the `BYTES` bytes at `p` end inside a sequence (see
/// [`INCOMPLETE_LIMITS`]).
///
/// # Safety
/// `p..p + BYTES` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn ends_inside_lanes<V: Vector>(p: *const u8) -> V {
    // SAFETY: `p..p + BYTES` is readable by the contract, and the table's last
    // `BYTES <= BLOCK` bytes are inside it; the caller guarantees the CPU feature.
    unsafe {
        V::load(p).saturating_sub(V::load(
            INCOMPLETE_LIMITS
                .as_ptr()
                .add(INCOMPLETE_LIMITS.len() - V::BYTES),
        ))
    }
}

/// Subtracted (saturating) from the last `n` bytes of an input, the last `n` bytes
/// of this table leave a non-zero byte iff the input ends inside a sequence: the
/// last byte is a lead byte (C0-FF), the one before a 3- or 4-byte lead (E0-FF),
/// or the one before that a 4-byte lead (F0-FF).
static INCOMPLETE_LIMITS: [u8; BLOCK] = {
    let mut limits = [0xFF; BLOCK];
    limits[BLOCK - 3] = 0xF0 - 1;
    limits[BLOCK - 2] = 0xE0 - 1;
    limits[BLOCK - 1] = 0xC0 - 1;
    limits
};

// The checks of whole vectors and blocks, from memory or from the vector before.

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
pub(super) unsafe fn block_fine<V: Vector>(k: &Constants<V>, p: *const u8) -> V {
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

// The ASCII test.

/// True iff the `blocks` blocks at `p` are all ASCII.
///
/// # Safety
/// `p..p + blocks * BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn is_ascii<V: Vector>(p: *const u8, blocks: usize) -> bool {
    // SAFETY: the loads cover `p..p + blocks * BLOCK`, readable by the contract.
    unsafe {
        let mut any = V::load(p);
        for i in 1..blocks * (BLOCK / V::BYTES) {
            any = any.or(V::load(p.add(i * V::BYTES)));
        }
        !any.any_high_bit()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequence::is_continuation;
    use crate::state_machine::{byte_class, next_state, State};

    /// The non-error states.
    fn live() -> impl Iterator<Item = State> {
        State::ALL.into_iter().filter(|&s| s != State::Error)
    }

    /// The tables flag exactly the pairs the draft's machine rejects wherever they
    /// occur, and bit 7 marks exactly the continuation-continuation pairs.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "65,536 pairs through safe table code: nothing for Miri"
    )]
    fn pair_tables_agree_with_the_draft_machine() {
        for prev in 0..=255u8 {
            for this in 0..=255u8 {
                let flags = pair_flags(prev, this);
                let both_cont = is_continuation(prev) && is_continuation(this);
                assert_eq!(
                    flags & TWO_CONTINUATIONS != 0,
                    both_cont,
                    "{prev:02X} {this:02X}"
                );
                let possible = if byte_class(this) == 4 {
                    // C0, C1, F5-FF are rejected when they become `prev`; here the
                    // pair is only wrong if `prev` leaves the machine mid-sequence.
                    live().any(|s| next_state(s, prev) == State::Start)
                } else {
                    live().any(|s| {
                        let t = next_state(s, prev);
                        t != State::Error && next_state(t, this) != State::Error
                    })
                };
                assert_eq!(
                    flags & !TWO_CONTINUATIONS == 0,
                    possible,
                    "{prev:02X} {this:02X}"
                );
            }
        }
    }

    #[test]
    fn lead_biases_mark_exactly_the_needed_leads() {
        for b in 0..=255u8 {
            assert_eq!(b.saturating_sub(THIRD_BYTE_BIAS) & 0x80 != 0, b >= 0xE0);
            assert_eq!(b.saturating_sub(FOURTH_BYTE_BIAS) & 0x80 != 0, b >= 0xF0);
        }
    }
}
