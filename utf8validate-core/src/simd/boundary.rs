//! Where sequences end, lane by lane: whether a vector's bytes end inside a sequence.
//! (The byte-by-byte forms are in `crate::sequence`.)

use super::vector::{Vector, BLOCK};

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
