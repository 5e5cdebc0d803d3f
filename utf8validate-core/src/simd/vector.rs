//! The one abstraction over instruction sets: a SIMD register of bytes.

/// One SIMD register of bytes, with the handful of operations the algorithm needs.
///
/// # Safety
///
/// Every method may only be called when the CPU supports the instruction set of
/// the implementation (the `check` function of each back end is compiled with that
/// feature enabled and is itself only called when it is present).
pub(crate) trait Vector: Copy {
    /// Lanes (bytes) per vector; divides [`super::BLOCK`].
    const BYTES: usize;
    /// Whether blocks with no byte E0-FF are checked with comparisons (true) or
    /// with the table lookups of the whole check (false): see
    /// `rules::pairs_fine`. False where a comparison costs two instructions
    /// (AVX-512: into a mask register and back).
    const COMPARE_PAIRS: bool;
    /// The narrowest vector of the same instruction set (or one it implies), for
    /// inputs shorter than `BYTES`; `Self` when there is none narrower.
    type Narrow: Vector;

    /// Loads `BYTES` bytes from `ptr` (no alignment needed).
    ///
    /// # Safety
    /// `ptr..ptr + BYTES` must be readable; the CPU feature must be present.
    unsafe fn load(ptr: *const u8) -> Self;
    /// `bytes` (at most `BYTES` long) in the low lanes and zeros above, or `None`
    /// when the instruction set cannot load it without touching memory past its
    /// end, or not cheaply there (then the caller uses the scalar machine).
    ///
    /// # Safety
    /// The CPU feature must be present.
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
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn splat(byte: u8) -> Self;
    /// `table` repeated in every 16-byte lane, for [`Vector::lookup`].
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn table(table: &[u8; 16]) -> Self;
    /// Lane `i` is `table[self[i]]`, for lanes holding 0-15.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn lookup(self, table: Self) -> Self;
    /// Lane `i` is `table[self[i] >> 4]`: a lookup by high nibble.
    ///
    /// # Safety
    /// The CPU feature must be present.
    #[inline(always)]
    unsafe fn lookup_high(self, table: Self) -> Self {
        // SAFETY: the caller guarantees the CPU feature.
        unsafe { self.high_nibbles().lookup(table) }
    }
    /// Lane `i` is `table[self[i] & 0x0F]`: a lookup by low nibble.
    ///
    /// # Safety
    /// The CPU feature must be present.
    #[inline(always)]
    unsafe fn lookup_low(self, table: Self) -> Self {
        // SAFETY: the caller guarantees the CPU feature.
        unsafe { self.low_nibbles().lookup(table) }
    }
    /// Every lane shifted right by 4 bits (its high nibble, 0-15).
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn high_nibbles(self) -> Self;
    /// Every lane ANDed with 0x0F (its low nibble).
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn low_nibbles(self) -> Self;
    /// The bytes of `prev ++ self` that start `N` lanes before `self`, for
    /// `N` = 1, 2, 3: lane `i` is the byte `N` positions before lane `i` of `self`.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn prev1(self, prev: Self) -> Self;
    /// See [`Vector::prev1`].
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn prev2(self, prev: Self) -> Self;
    /// See [`Vector::prev1`].
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn prev3(self, prev: Self) -> Self;
    /// Lane-wise AND.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn and(self, other: Self) -> Self;
    /// Lane-wise OR.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn or(self, other: Self) -> Self;
    /// Lane-wise XOR.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn xor(self, other: Self) -> Self;
    /// Lane-wise unsigned maximum.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn max(self, other: Self) -> Self;
    /// 0xFF in the lanes where `self` and `other` are equal, 0 elsewhere.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn equal(self, other: Self) -> Self;
    /// 0xFF in the lanes where `self` is less than `other`, both read as signed
    /// bytes (`i8`), 0 elsewhere.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn less_signed(self, other: Self) -> Self;
    /// Lane-wise unsigned minimum.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn min(self, other: Self) -> Self;
    /// Lane-wise `self & !mask`.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn and_not(self, mask: Self) -> Self;
    /// Lane-wise unsigned saturating subtraction (`max(self - other, 0)`).
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// True iff some lane has its high bit set (some byte is not ASCII).
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn any_high_bit(self) -> bool;
    /// True iff some lane is not zero.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn any_nonzero(self) -> bool;
    /// True iff some lane among the first `len` (at most `BYTES`) is not zero: for a
    /// vector loaded zero-padded by [`Vector::load_prefix`], the lanes of the input.
    ///
    /// # Safety
    /// The CPU feature must be present.
    #[inline(always)]
    unsafe fn any_nonzero_in_prefix(self, len: usize) -> bool {
        let len = len.min(Self::BYTES);
        // SAFETY: the load reads `BYTES` bytes at `BLOCK - len`, inside the table's
        // `2 * BLOCK` bytes (`BYTES <= BLOCK`); the caller guarantees the feature.
        unsafe {
            self.and(Self::load(PREFIX_MASKS.as_ptr().add(super::BLOCK - len)))
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
static PREFIX_MASKS: [u8; 2 * super::BLOCK] = {
    let mut masks = [0; 2 * super::BLOCK];
    let mut i = 0;
    while i < super::BLOCK {
        masks[i] = 0xFF;
        i += 1;
    }
    masks
};
