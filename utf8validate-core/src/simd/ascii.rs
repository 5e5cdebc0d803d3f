//! The ASCII fast paths: whole blocks of ASCII are tested with one OR-reduction
//! and need nothing else checked.

use super::vector::{Vector, BLOCK};

/// Blocks per step inside a run of ASCII (one OR-reduction and one branch per
/// 256 bytes).
const ASCII_RUN: usize = 4;

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
