//! The one abstraction over instruction sets: a SIMD register of bytes.

use crate::sizes::BLOCK;

/// One SIMD register of bytes, with the handful of operations the algorithm needs.
///
/// # Safety
///
/// Every method is `unsafe`, and may only be called when the CPU supports the
/// instruction set of the implementation (the entry points of each back end are
/// compiled with that feature enabled and only called when it is present); the
/// methods' own sections say what else they need.
pub(crate) trait Vector: Copy {
    /// Lanes (bytes) per vector; divides [`BLOCK`].
    const BYTES: usize;
    /// Whether blocks with no byte E0-FF are checked with comparisons (true) or
    /// with the table lookups of the whole check (false): see
    /// `rules::pairs_fine`. False where a comparison costs two instructions
    /// (AVX-512: into a mask register and back).
    const COMPARE_PAIRS: bool;
    /// Whether the check of an input of a few vectors
    /// (`plain::check_vectors_after`, `plain::check_medium`) takes the three
    /// bytes before each vector after the first from the vector before it, already
    /// loaded, with [`Vector::prev1`]-[`Vector::prev3`] (shuffles), rather than
    /// loading them again one to three bytes back. Such a check is one short chain of work per
    /// call, where the shuffles answer sooner with 64-byte vectors (AVX-512) and
    /// the loads with narrower ones (see BENCHMARKS.md). The loop over long
    /// inputs always loads: there the shuffles would compete with the check's own.
    const PREV_BY_SHUFFLE: bool = false;
    /// The narrowest vector of the same instruction set (or one it implies), for
    /// inputs shorter than `BYTES`; `Self` when there is none narrower.
    type Narrow: Vector;

    /// Loads `BYTES` bytes from `ptr` (no alignment needed).
    ///
    /// # Safety
    /// `ptr..ptr + BYTES` must be readable.
    unsafe fn load(ptr: *const u8) -> Self;
    /// `bytes` (at most `BYTES` long) in the low lanes and zeros above, or `None`
    /// when the instruction set cannot load it without touching memory past its
    /// end, or not cheaply there (then the caller uses the scalar machine).
    #[inline(always)]
    unsafe fn load_prefix(bytes: &[u8]) -> Option<Self> {
        let _ = bytes;
        None
    }
    /// A hint that the cache line at `ptr` will be read soon; it never faults, so
    /// `ptr` may point anywhere. The default does nothing.
    #[inline(always)]
    fn prefetch(ptr: *const u8) {
        let _ = ptr;
    }
    /// Every lane set to `byte`.
    unsafe fn splat(byte: u8) -> Self;
    /// `table` repeated in every 16-byte lane, for [`Vector::lookup`].
    unsafe fn table(table: &[u8; 16]) -> Self;
    /// Lane `i` is `table[self[i]]`, for lanes holding 0-15.
    unsafe fn lookup(self, table: Self) -> Self;
    /// Lane `i` is `table[self[i] >> 4]`: a lookup by high nibble.
    #[inline(always)]
    unsafe fn lookup_high(self, table: Self) -> Self {
        // SAFETY: the caller guarantees the CPU feature.
        unsafe { self.high_nibbles().lookup(table) }
    }
    /// Lane `i` is `table[self[i] & 0x0F]`: a lookup by low nibble.
    #[inline(always)]
    unsafe fn lookup_low(self, table: Self) -> Self {
        // SAFETY: the caller guarantees the CPU feature.
        unsafe { self.low_nibbles().lookup(table) }
    }
    /// Every lane shifted right by 4 bits (its high nibble, 0-15).
    unsafe fn high_nibbles(self) -> Self;
    /// Every lane ANDed with 0x0F (its low nibble).
    unsafe fn low_nibbles(self) -> Self;
    /// The bytes of `prev ++ self` that start `N` lanes before `self`, for
    /// `N` = 1, 2, 3: lane `i` is the byte `N` positions before lane `i` of `self`.
    unsafe fn prev1(self, prev: Self) -> Self;
    /// See [`Vector::prev1`].
    unsafe fn prev2(self, prev: Self) -> Self;
    /// See [`Vector::prev1`].
    unsafe fn prev3(self, prev: Self) -> Self;
    /// Lane-wise AND.
    unsafe fn and(self, other: Self) -> Self;
    /// Lane-wise OR.
    unsafe fn or(self, other: Self) -> Self;
    /// Lane-wise XOR.
    unsafe fn xor(self, other: Self) -> Self;
    /// Lane-wise unsigned maximum.
    unsafe fn max(self, other: Self) -> Self;
    /// 0xFF in the lanes where `self` and `other` are equal, 0 elsewhere.
    unsafe fn equal(self, other: Self) -> Self;
    /// 0xFF in the lanes where `self` is less than `other`, both read as signed
    /// bytes (`i8`), 0 elsewhere.
    unsafe fn less_signed(self, other: Self) -> Self;
    /// Lane-wise unsigned minimum.
    unsafe fn min(self, other: Self) -> Self;
    /// Lane-wise `self & !mask`.
    unsafe fn and_not(self, mask: Self) -> Self;
    /// Lane-wise unsigned saturating subtraction (`max(self - other, 0)`).
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// True iff some lane has its high bit set (some byte is not ASCII).
    unsafe fn any_high_bit(self) -> bool;
    /// True iff some lane is not zero.
    unsafe fn any_nonzero(self) -> bool;
    /// True iff some lane among the first `len` (at most `BYTES`) is not zero: for a
    /// vector loaded zero-padded by [`Vector::load_prefix`], the lanes of the input.
    #[inline(always)]
    unsafe fn any_nonzero_in_prefix(self, len: usize) -> bool {
        let len = len.min(Self::BYTES);
        // SAFETY: the load reads `BYTES` bytes at `BLOCK - len`, inside the table's
        // `2 * BLOCK` bytes (`BYTES <= BLOCK`); the caller guarantees the feature.
        unsafe {
            self.and(Self::load(PREFIX_MASKS.as_ptr().add(BLOCK - len)))
                .any_nonzero()
        }
    }
}

/// `BLOCK` bytes of FF, then `BLOCK` of zeros: loaded at `BLOCK - len`, a mask of
/// the first `len` lanes, for [`Vector::any_nonzero_in_prefix`].
#[allow(
    clippy::indexing_slicing,
    reason = "runs only at compile time, for a static's initialiser: an index out of range would fail the build"
)]
static PREFIX_MASKS: [u8; 2 * BLOCK] = {
    let mut masks = [0; 2 * BLOCK];
    let mut i = 0;
    while i < BLOCK {
        masks[i] = 0xFF;
        i += 1;
    }
    masks
};
