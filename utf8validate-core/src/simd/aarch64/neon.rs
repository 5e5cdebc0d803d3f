//! The NEON back end: the ladder's workers (`crate::ladder`) on 16-byte vectors, four per block.
//! `tbl` does the table lookups and `ext` the byte shifts.

use core::arch::aarch64::*;

use crate::simd::vector::Vector;

/// 16 bytes in a NEON register.
#[derive(Clone, Copy)]
pub(crate) struct V16(uint8x16_t);

impl Vector for V16 {
    const BYTES: usize = 16;
    type Narrow = Self;
    const COMPARE_PAIRS: bool = true;

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `ptr` and NEON;
        // `vld1q_u8` has no alignment requirement beyond `u8`.
        V16(unsafe { vld1q_u8(ptr) })
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vdupq_n_u8(byte) })
    }
    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: NEON is present; `table` is 16 readable bytes.
        V16(unsafe { vld1q_u8(table.as_ptr()) })
    }
    #[inline(always)]
    unsafe fn lookup(self, table: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vqtbl1q_u8(table.0, self.0) })
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vshrq_n_u8::<4>(self.0) })
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vandq_u8(self.0, vdupq_n_u8(0x0F)) })
    }
    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vextq_u8::<15>(prev.0, self.0) })
    }
    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vextq_u8::<14>(prev.0, self.0) })
    }
    #[inline(always)]
    unsafe fn prev3(self, prev: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vextq_u8::<13>(prev.0, self.0) })
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vandq_u8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vorrq_u8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { veorq_u8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn max(self, other: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vmaxq_u8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn equal(self, other: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vceqq_u8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn less_signed(self, other: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vcltq_s8(vreinterpretq_s8_u8(self.0), vreinterpretq_s8_u8(other.0)) })
    }
    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vminq_u8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn and_not(self, mask: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vbicq_u8(self.0, mask.0) })
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: NEON is present (trait contract).
        V16(unsafe { vqsubq_u8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn any_high_bit(self) -> bool {
        // SAFETY: NEON is present (trait contract).
        unsafe { vmaxvq_u8(self.0) >= 0x80 }
    }
    #[inline(always)]
    unsafe fn any_nonzero(self) -> bool {
        // SAFETY: NEON is present (trait contract).
        unsafe { vmaxvq_u8(self.0) != 0 }
    }
}

/// True iff this CPU can run this back end (its instruction set, and the
/// operating system's support for its registers). always, as this
/// module is only compiled for targets that enable NEON (every aarch64 target with
/// an operating system: Linux, Android, Apple, Windows).
pub(crate) fn available() -> bool {
    true
}
