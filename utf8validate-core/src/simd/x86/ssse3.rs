//! The SSSE3 back end: the ladder's workers (`crate::ladder`) on 16-byte vectors, four per block,
//! for x86 CPUs without AVX2. `pshufb` (SSSE3) does the table lookups and
//! `palignr` (SSSE3) the byte shifts; everything else is SSE2.

use super::arch::*;

use crate::simd::vector::Vector;

/// 16 bytes in an SSE register.
#[derive(Clone, Copy)]
pub(crate) struct V16(__m128i);

impl Vector for V16 {
    const BYTES: usize = 16;
    type Narrow = Self;
    const COMPARE_PAIRS: bool = true;

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `ptr`; `loadu` has no
        // alignment requirement; SSSE3 includes SSE2.
        V16(unsafe { _mm_loadu_si128(ptr.cast()) })
    }
    #[inline(always)]
    fn prefetch(ptr: *const u8) {
        // SAFETY: a prefetch is a hint: it never faults, whatever the address,
        // and SSE (which has it) is part of SSSE3.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr.cast()) }
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_set1_epi8(byte as i8) })
    }
    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: `table` is 16 readable bytes; SSSE3 includes SSE2.
        V16(unsafe { _mm_loadu_si128(table.as_ptr().cast()) })
    }
    #[inline(always)]
    unsafe fn lookup(self, table: Self) -> Self {
        // SAFETY: SSSE3 is present (trait contract).
        V16(unsafe { _mm_shuffle_epi8(table.0, self.0) })
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_and_si128(_mm_srli_epi16::<4>(self.0), _mm_set1_epi8(0x0F)) })
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_and_si128(self.0, _mm_set1_epi8(0x0F)) })
    }
    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: SSSE3 is present (trait contract).
        V16(unsafe { _mm_alignr_epi8::<15>(self.0, prev.0) })
    }
    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: SSSE3 is present (trait contract).
        V16(unsafe { _mm_alignr_epi8::<14>(self.0, prev.0) })
    }
    #[inline(always)]
    unsafe fn prev3(self, prev: Self) -> Self {
        // SAFETY: SSSE3 is present (trait contract).
        V16(unsafe { _mm_alignr_epi8::<13>(self.0, prev.0) })
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_and_si128(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_or_si128(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_xor_si128(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_max_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn equal(self, other: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_cmpeq_epi8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn less_signed(self, other: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_cmplt_epi8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_min_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn and_not(self, mask: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_andnot_si128(mask.0, self.0) })
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        V16(unsafe { _mm_subs_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn any_high_bit(self) -> bool {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        unsafe { _mm_movemask_epi8(self.0) != 0 }
    }
    #[inline(always)]
    unsafe fn any_nonzero(self) -> bool {
        // SAFETY: SSSE3, which includes SSE2, is present (trait contract).
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self.0, _mm_setzero_si128())) != 0xFFFF }
    }
}

/// True iff this CPU can run this back end (its instruction set, and the
/// operating system's support for its registers).
pub(crate) fn available() -> bool {
    cpuid_ssse3::get()
}

cpufeatures::new!(cpuid_ssse3, "ssse3");
