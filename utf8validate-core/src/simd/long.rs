//! Inputs longer than one block: up to [`MEDIUM`] bytes by `super::medium`; longer
//! ones have their leading ASCII skipped, then the tiered loop ([`check_tiered`]).

use super::answer::Answer;
use super::ascii::{is_ascii, skip_ascii};
use super::medium::{check_medium, failing_medium_block, MEDIUM};
use super::rules::{Constants, FULL};
use super::tiers::{block_errors, block_errors_after, check_stretch, Stretch};
use super::vector::{Vector, BLOCK};
use crate::sequence::ends_inside_sequence;

/// Inputs at least this long are read in 64-byte aligned blocks after the first.
const ALIGN_FROM: usize = 16 * BLOCK;

/// [`super::short::check`] for inputs longer than one block: an input of at most
/// [`MEDIUM`] bytes by [`check_medium`] (on an error, the block it is in by
/// [`failing_medium_block`], for the offset); a longer one has its leading ASCII
/// skipped ([`leading_ascii`]) and the rest goes to the tiered loop, `tiered` (the
/// back end's [`check_tiered`] with the answer `A`).
/// Each back end compiles it into a function of its own per answer that
/// [`super::short::check`] reaches by a jump (`long`); as every path ends in an answer
/// or a jump to `tiered`, it saves no register.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(crate) unsafe fn check_long<V: Vector, A: Answer>(
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
pub(super) unsafe fn leading_ascii<V: Vector>(bytes: &[u8]) -> Option<usize> {
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

/// [`check_long`] from `at`, where [`leading_ascii`] stopped: the tiered loop
/// (see [`super::tiers`]). Each back end compiles it into a function of its own, so that
/// inputs that never get here do not pay for its set-up (saved registers,
/// constants).
///
/// `before` is the vector before the input (zeros for a whole input; the carried
/// sequence's lead byte in the last lane for a chunk of data), which only
/// the first block looks at; with `OPEN`, an input that ends inside a sequence
/// passes (see `super::chunk`).
///
/// # Safety
/// The CPU feature of `V` must be present, `bytes.len() > MEDIUM` (the last block
/// then starts far enough in to read the three bytes before it), and `at` is what
/// [`leading_ascii`] answered for `bytes` (or 0). Call it only from a function
/// compiled with that feature, so that this body is inlined and compiled with it.
#[inline(always)]
pub(crate) unsafe fn check_tiered<V: Vector, const OPEN: bool>(
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

        // Whole blocks: stretches of non-ASCII blocks (`tiers::check_stretch`)
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
