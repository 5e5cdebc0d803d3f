//! Inputs of two to four blocks ([`check_medium`]): short lines, headers, records.
//! Too few blocks to pay for the tiered loop's set-up; checked with plain vectors,
//! or block by block where they start with ASCII.

use super::ascii::is_ascii;
use super::rules::{ends_inside_lanes, Constants, FULL};
use super::short::check_vectors_after;
use super::tiers::{
    block_errors, block_errors_after, block_max, failing_block, inner_block_errors,
};
use super::vector::{Vector, BLOCK};

/// Inputs up to this long are checked by [`check_medium`]; longer ones by the
/// tiered loop (`super::check_tiered`), whose set-up (saved registers,
/// constants, the tier of each group) costs more than it saves on so few blocks.
pub(super) const MEDIUM: usize = 4 * BLOCK;

/// True iff `before` followed by `bytes` (`BLOCK < bytes.len() <= MEDIUM`) passes
/// the vector check; on `false` the caller finds the error.
///
/// The first block decides how. Text whose first block is not all ASCII is
/// mostly not ASCII: the input is checked with plain vectors
/// ([`check_vectors_after`]), one chain of work without a branch per block.
/// Otherwise one test of the other blocks answers an input that is all ASCII;
/// else (but for 65 or 66 bytes, which take plain vectors too) they are taken one
/// by one, the whole blocks from the start and then one that ends at the end of the
/// input (overlapping the one before unless the length is a multiple of `BLOCK`):
/// an ASCII block costs its test, plus one more after a block that is not ASCII
/// (whether that block ends inside a sequence), and any other block the full check.
/// The gathered error lanes are tested once.
///
/// Why not a test of every block, as the tiered loop makes: it costs text without
/// ASCII blocks a test and a branch per block, and where inputs vary from call to
/// call (windows of Wikipedia text, one per call) it wins nothing on mostly-ASCII
/// text either, as its branches are not learnt.
///
/// `before` is the vector before the input: zeros, or the carried sequence's lead
/// byte in its last lane for a chunk of data (`super::chunk`). With
/// `OPEN`, an input that ends inside a sequence passes.
///
/// # Safety
/// The CPU feature of `V` must be present, and `BLOCK < bytes.len() <= MEDIUM`.
/// Call it only from a function compiled with that feature, so that this body is
/// inlined and compiled with it.
#[inline(always)]
pub(super) unsafe fn check_medium<V: Vector, const OPEN: bool>(before: V, bytes: &[u8]) -> bool {
    let len = bytes.len();
    let p = bytes.as_ptr();
    // The offset of the last block: 1 to MEDIUM - BLOCK.
    let last = len - BLOCK;
    // SAFETY (for the whole body): the caller guarantees the CPU feature and
    // `BLOCK < len`. Each block read is `q..q + BLOCK` with `q <= last`, and the
    // bytes before it as the comments at the reads say.
    unsafe {
        if !is_ascii::<V>(p, 1) {
            return check_vectors_after::<V, bool, OPEN>(before, bytes);
        }
        let rest = block_max::<V>(p.add(BLOCK.min(last)))
            .max(block_max::<V>(p.add((2 * BLOCK).min(last))))
            .max(block_max::<V>(p.add(last)));
        if !rest.any_high_bit() {
            // All ASCII: wrong only right after a carried lead byte, which
            // `before` holds when there is one.
            return !before.any_nonzero();
        }
        if last < 3 {
            // 65 or 66 bytes: the block at `last` starts inside the first, too
            // close to its start to take the three bytes before it from memory.
            // Plain vectors take them from the vector before.
            return check_vectors_after::<V, bool, OPEN>(before, bytes);
        }
        let k = Constants::<V>::new();
        // ASCII right after a carried lead byte is an error.
        let mut error = before;
        // Whether the block before the one at `at` is all ASCII.
        let mut after_ascii = true;
        let mut at = BLOCK;
        // The whole blocks before the last: at most two more (a loop LLVM unrolls).
        for _ in 0..MEDIUM / BLOCK - 2 {
            if at >= last {
                break;
            }
            if !is_ascii::<V>(p.add(at), 1) {
                error = error.or(inner_block_errors(&k, p.add(at)));
                after_ascii = false;
            } else if !after_ascii {
                // In bounds: at >= BLOCK >= BYTES.
                error = error.or(ends_inside_lanes(p.add(at - V::BYTES)));
                after_ascii = true;
            }
            at += BLOCK;
        }
        // The last block, at `last <= at`.
        if !is_ascii::<V>(p.add(last), 1) {
            // In bounds: last >= 3.
            error = error.or(block_errors::<V, FULL>(&k, p.add(last)));
            if !OPEN {
                // In bounds: BYTES <= len.
                error = error.or(ends_inside_lanes(p.add(len - V::BYTES)));
            }
        } else if at == last && !after_ascii {
            // Bytes before `last` that end inside a sequence are cut short by
            // this block's ASCII, which the block before caught if it overlaps
            // this one; if not, and it is not ASCII, its end is checked here. In
            // bounds: at = last >= BLOCK.
            error = error.or(ends_inside_lanes(p.add(at - V::BYTES)));
        }
        !error.any_nonzero()
    }
}

/// After [`check_medium`] failed on a whole input `bytes` (`BLOCK < bytes.len() <=
/// MEDIUM`): the offset of its first block whose error lanes are not all zero, or
/// of its last block when none before it has any (the error is then in that block,
/// or the input ends inside a sequence): the first block here, the others by the
/// tiered loop's [`failing_block`]. Every check before that offset passed: the
/// answer's scalar machine starts from the last character boundary before it
/// (`super::Answer::invalid`). A block, not the failing lane: the offset then comes
/// from a branch, which the processor predicts and runs ahead of, not from the
/// lanes' values, which the scalar machine would have to wait for. Only called on
/// invalid input; pure, so that a verdict alone (which needs no offset) leaves it
/// out.
///
/// # Safety
/// As for [`check_medium`].
#[inline(always)]
pub(super) unsafe fn failing_medium_block<V: Vector>(bytes: &[u8]) -> usize {
    let p = bytes.as_ptr();
    // SAFETY: the caller guarantees the CPU feature; the first block is `p..p +
    // BLOCK`, and the blocks from `BLOCK` (>= 3) on lie inside `bytes`.
    unsafe {
        let k = Constants::<V>::new();
        if block_errors_after(&k, p, V::splat(0)).any_nonzero() {
            return 0;
        }
        failing_block(&k, p, BLOCK, bytes.len())
    }
}
