//! The AVX2 back end: the ladder's workers (`crate::ladder`) on 32-byte vectors, two per block.

use super::arch::*;

use crate::simd::vector::Vector;

/// 32 bytes in an AVX2 register.
#[derive(Clone, Copy)]
pub(crate) struct V32(__m256i);

impl Vector for V32 {
    const BYTES: usize = 32;
    type Narrow = super::ssse3::V16;
    const COMPARE_PAIRS: bool = true;

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 32 readable bytes at `ptr` and AVX2;
        // `loadu` has no alignment requirement.
        V32(unsafe { _mm256_loadu_si256(ptr.cast()) })
    }
    #[inline(always)]
    fn prefetch(ptr: *const u8) {
        // SAFETY: a prefetch is a hint: it never faults, whatever the address,
        // and SSE (which has it) is part of AVX2.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr.cast()) }
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_set1_epi8(byte as i8) })
    }
    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: AVX2 is present; `table` is 16 readable bytes.
        V32(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(table.as_ptr().cast())) })
    }
    #[inline(always)]
    unsafe fn lookup(self, table: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_shuffle_epi8(table.0, self.0) })
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_and_si256(_mm256_srli_epi16::<4>(self.0), _mm256_set1_epi8(0x0F)) })
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_and_si256(self.0, _mm256_set1_epi8(0x0F)) })
    }
    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: AVX2 is present. `permute2x128` puts prev's high lane below
        // self's low lane, so the in-lane `alignr` can shift across the lanes.
        V32(unsafe {
            _mm256_alignr_epi8::<15>(self.0, _mm256_permute2x128_si256::<0x21>(prev.0, self.0))
        })
    }
    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: as in `prev1`.
        V32(unsafe {
            _mm256_alignr_epi8::<14>(self.0, _mm256_permute2x128_si256::<0x21>(prev.0, self.0))
        })
    }
    #[inline(always)]
    unsafe fn prev3(self, prev: Self) -> Self {
        // SAFETY: as in `prev1`.
        V32(unsafe {
            _mm256_alignr_epi8::<13>(self.0, _mm256_permute2x128_si256::<0x21>(prev.0, self.0))
        })
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_and_si256(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_or_si256(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_xor_si256(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_max_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn equal(self, other: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_cmpeq_epi8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn less_signed(self, other: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_cmpgt_epi8(other.0, self.0) })
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_min_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn and_not(self, mask: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_andnot_si256(mask.0, self.0) })
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: AVX2 is present (trait contract).
        V32(unsafe { _mm256_subs_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn any_high_bit(self) -> bool {
        // SAFETY: AVX2 is present (trait contract).
        unsafe { _mm256_movemask_epi8(self.0) != 0 }
    }
    #[inline(always)]
    unsafe fn any_nonzero(self) -> bool {
        // SAFETY: AVX2 is present (trait contract).
        unsafe { _mm256_testz_si256(self.0, self.0) == 0 }
    }
}

/// True iff this CPU can run this back end (its instruction set, and the
/// operating system's support for its registers).
pub(crate) fn available() -> bool {
    cpuid_avx2::get()
}

cpufeatures::new!(cpuid_avx2, "avx2");
