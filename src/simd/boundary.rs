//! Where sequences end and characters start: whether an input ends inside a
//! sequence (by bytes, or by vector lanes), and the last character boundary before
//! an offset.

use super::{Vector, BLOCK};

/// True iff `bytes[..end]` ends inside a sequence: its last byte is a lead byte
/// (C0-FF), the one before a 3- or 4-byte lead (E0-FF), or the one before that a
/// 4-byte lead (F0-FF).
#[inline(always)]
pub(super) fn ends_inside_sequence(bytes: &[u8], end: usize) -> bool {
    let back = |n: usize| end.checked_sub(n).and_then(|i| bytes.get(i));
    back(1).is_some_and(|&b| b >= 0xC0)
        || back(2).is_some_and(|&b| b >= 0xE0)
        || back(3).is_some_and(|&b| b >= 0xF0)
}

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

/// True for continuation bytes (80-BF).
#[inline(always)]
pub(super) fn is_continuation(byte: u8) -> bool {
    (byte as i8) < -0x40
}

/// The last character boundary at or before `at` in `bytes[..at]`, assuming
/// `bytes[..at]` is a prefix of well-formed UTF-8: steps back over at most 3
/// continuation bytes and onto the lead byte before them.
#[inline]
pub(crate) fn boundary_at_or_before(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    let end = i;
    while i > 0 && end - i < 3 && bytes.get(i - 1).is_some_and(|&b| is_continuation(b)) {
        i -= 1;
    }
    if i > 0 && bytes.get(i - 1).is_some_and(|&b| b >= 0xC0) {
        i -= 1;
    }
    i
}

/// The start of the last sequence of `bytes` (a character boundary when `bytes`
/// is a well-formed prefix that starts on one): at most 4 bytes before the end.
#[inline]
pub(crate) fn last_boundary(bytes: &[u8]) -> usize {
    boundary_at_or_before(bytes, bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries() {
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 5), 2);
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 4), 2);
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 2), 2);
        assert_eq!(boundary_at_or_before(b"ab\xF0\x9F\x98\x80", 6), 2);
        assert_eq!(boundary_at_or_before(b"abc", 3), 3);
        assert_eq!(boundary_at_or_before(b"", 0), 0);
        assert_eq!(last_boundary(b"\xC3"), 0);
    }
}
