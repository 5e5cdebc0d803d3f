//! The AVX-512 back end: the ladder's workers (`crate::ladder`) on 64-byte vectors, one per block.
//! Needs AVX-512F, AVX-512BW (byte saturating subtraction, byte masks, masked byte
//! loads) and AVX-512VBMI: its `vpermb` looks bytes up in a 64-entry table using
//! only the low 6 bits of each index, so with the 16-entry table repeated four
//! times, a byte or the byte shifted right by 4 indexes it directly, without
//! masking off the other nibble first. The compiler also merges the algorithm's
//! chains of AND, OR and XOR into three-input `vpternlog` instructions.

use super::arch::*;

use crate::simd::vector::Vector;

/// The smallest page size of x86: a load that stays inside one such page
/// touches one page only.
const PAGE: usize = 4096;

/// 64 bytes in an AVX-512 register.
#[derive(Clone, Copy)]
pub(crate) struct V64(__m512i);

impl Vector for V64 {
    const BYTES: usize = 64;
    type Narrow = super::avx2::V32;
    const COMPARE_PAIRS: bool = false;
    const PREV_BY_SHUFFLE: bool = true;

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes at `ptr` and AVX-512F;
        // `loadu` has no alignment requirement.
        V64(unsafe { _mm512_loadu_si512(ptr.cast()) })
    }
    #[inline(always)]
    unsafe fn load_prefix(bytes: &[u8]) -> Option<Self> {
        let mask: __mmask64 = match bytes.len() {
            64 => u64::MAX,
            len @ 0..64 => (1u64 << len) - 1,
            _ => return None,
        };
        // The masked-off lanes never fault, but when they reach into a page that
        // is not present (unmapped, `PROT_NONE`, or not yet touched), the CPU
        // suppresses the fault in microcode, which costs about 20 times the check
        // itself (on Intel Sapphire Rapids) for a short input that ends within 63
        // bytes of such a page. So the load is only made when its 64 bytes stay in
        // the page of the input's last byte (all but 63 of every 4096 starting
        // addresses); else the scalar machine answers (about 9 ns).
        let first = bytes.as_ptr() as usize;
        let last = first.wrapping_add(bytes.len().max(1) - 1);
        if (last ^ first.wrapping_add(Self::BYTES - 1)) >= PAGE {
            return None;
        }
        // SAFETY: AVX-512BW is present (trait contract). The masked load reads only
        // the lanes whose mask bit is set, `bytes[..len]`; masked-off lanes are not
        // accessed (no fault even on an unmapped page) and come back zero.
        Some(V64(unsafe {
            _mm512_maskz_loadu_epi8(mask, bytes.as_ptr().cast())
        }))
    }
    #[inline(always)]
    fn prefetch(ptr: *const u8) {
        // SAFETY: a prefetch is a hint: it never faults, whatever the address,
        // and SSE (which has it) is part of AVX-512F.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr.cast()) }
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: AVX-512F is present (trait contract).
        V64(unsafe { _mm512_set1_epi8(byte as i8) })
    }
    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: AVX-512F is present; `table` is 16 readable bytes.
        V64(unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(table.as_ptr().cast())) })
    }
    #[inline(always)]
    unsafe fn lookup(self, table: Self) -> Self {
        // SAFETY: AVX-512BW is present (trait contract).
        V64(unsafe { _mm512_shuffle_epi8(table.0, self.0) })
    }
    #[inline(always)]
    unsafe fn lookup_high(self, table: Self) -> Self {
        // SAFETY: AVX-512BW/VBMI are present (trait contract). `table` holds the
        // 16-entry table in each 16-byte lane, so entry `i` is `t[i & 15]`, and
        // `vpermb` reads index bits 0-5 only: bits 0-3 of the shifted byte are the
        // high nibble, bits 4-5 (from the neighbouring byte) pick among copies.
        V64(unsafe { _mm512_permutexvar_epi8(_mm512_srli_epi16::<4>(self.0), table.0) })
    }
    #[inline(always)]
    unsafe fn lookup_low(self, table: Self) -> Self {
        // SAFETY: as in `lookup_high`: bits 0-3 are the low nibble, bits 4-5 pick
        // among identical copies of the table.
        V64(unsafe { _mm512_permutexvar_epi8(self.0, table.0) })
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // SAFETY: AVX-512BW is present (trait contract).
        V64(unsafe { _mm512_and_si512(_mm512_srli_epi16::<4>(self.0), _mm512_set1_epi8(0x0F)) })
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Self {
        // SAFETY: AVX-512F is present (trait contract).
        V64(unsafe { _mm512_and_si512(self.0, _mm512_set1_epi8(0x0F)) })
    }
    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: AVX-512F/BW are present. `alignr_epi64::<6>` gives each 128-bit
        // lane the lane before it (prev's last lane for the first), so the in-lane
        // `alignr_epi8` can shift across the lanes.
        V64(unsafe { _mm512_alignr_epi8::<15>(self.0, _mm512_alignr_epi64::<6>(self.0, prev.0)) })
    }
    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: as in `prev1`.
        V64(unsafe { _mm512_alignr_epi8::<14>(self.0, _mm512_alignr_epi64::<6>(self.0, prev.0)) })
    }
    #[inline(always)]
    unsafe fn prev3(self, prev: Self) -> Self {
        // SAFETY: as in `prev1`.
        V64(unsafe { _mm512_alignr_epi8::<13>(self.0, _mm512_alignr_epi64::<6>(self.0, prev.0)) })
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: AVX-512F is present (trait contract).
        V64(unsafe { _mm512_and_si512(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: AVX-512F is present (trait contract).
        V64(unsafe { _mm512_or_si512(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX-512F is present (trait contract).
        V64(unsafe { _mm512_xor_si512(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is present (trait contract).
        V64(unsafe { _mm512_max_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn equal(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is present (trait contract).
        V64(unsafe { _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(self.0, other.0)) })
    }
    #[inline(always)]
    unsafe fn less_signed(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is present (trait contract).
        V64(unsafe { _mm512_movm_epi8(_mm512_cmplt_epi8_mask(self.0, other.0)) })
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is present (trait contract).
        V64(unsafe { _mm512_min_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn and_not(self, mask: Self) -> Self {
        // SAFETY: AVX-512F is present (trait contract).
        V64(unsafe { _mm512_andnot_si512(mask.0, self.0) })
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: AVX-512BW is present (trait contract).
        V64(unsafe { _mm512_subs_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn any_high_bit(self) -> bool {
        // SAFETY: AVX-512BW is present (trait contract).
        unsafe { _mm512_movepi8_mask(self.0) != 0 }
    }
    #[inline(always)]
    unsafe fn any_nonzero(self) -> bool {
        // SAFETY: AVX-512F is present (trait contract).
        unsafe { _mm512_test_epi64_mask(self.0, self.0) != 0 }
    }
    #[inline(always)]
    unsafe fn any_nonzero_in_prefix(self, len: usize) -> bool {
        let mask: __mmask64 = match len {
            len @ 0..64 => (1u64 << len) - 1,
            _ => u64::MAX,
        };
        // SAFETY: AVX-512BW is present (trait contract).
        unsafe { _mm512_mask_test_epi8_mask(mask, self.0, self.0) != 0 }
    }
}

/// True iff this CPU can run this back end (its instruction set, and the
/// operating system's support for its registers).
pub(crate) fn available() -> bool {
    cpuid_avx512::get()
}

cpufeatures::new!(cpuid_avx512, "avx512f", "avx512bw", "avx512vbmi");
