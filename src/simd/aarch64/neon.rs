//! The NEON back end: [`crate::simd::check`] on 16-byte vectors, four per block.
//! `tbl` does the table lookups and `ext` the byte shifts.

use core::arch::aarch64::*;

use crate::simd::{self, Vector};

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

/// True iff this CPU can run [`check`] (always, on the aarch64 targets Rust
/// supports with `std`, but asked rather than assumed).
pub(crate) fn available() -> bool {
    std::arch::is_aarch64_feature_detected!("neon")
}

/// [`crate::simd::check`] with NEON.
///
/// # Safety
/// The CPU must support NEON ([`available`]).
#[target_feature(enable = "neon")]
pub(crate) unsafe fn check(bytes: &[u8]) -> Option<usize> {
    // SAFETY: this function is only called with NEON present, and is compiled with
    // it, so the generic body is inlined here with NEON enabled.
    // (`check_long` and `check_tiered` need the same feature, present by the
    // same contract.)
    unsafe { simd::check::<V16>(bytes, |bytes| check_long(bytes)) }
}

/// [`check`]'s verdict alone (`check(bytes).is_none()`), with the C calling
/// convention, for `crate::dispatch`'s `validate`.
///
/// # Safety
/// As for [`check`], and `ptr` must be non-NULL with `len` readable bytes.
#[target_feature(enable = "neon")]
pub(crate) unsafe extern "C" fn validate(ptr: *const u8, len: usize) -> bool {
    if len > simd::BLOCK {
        // Not rare: for the layout of the short path, as in `simd::check`.
        simd::cold_path();
        // SAFETY: as here, and `len > BLOCK`. A jump: both are `extern "C"`.
        return unsafe { validate_long(ptr, len) };
    }
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    // SAFETY: as in `check`, and `len <= BLOCK`.
    unsafe { simd::check_block::<V16>(bytes) }.is_none()
}

/// [`validate`] for inputs longer than one block: [`check_long`]'s work with a
/// `bool` answer, out of line, so that [`validate`] reaches it by a jump and its
/// answer needs no conversion.
///
/// # Safety
/// As for [`check`], `ptr` must be non-NULL with `len` readable bytes, and
/// `len > simd::BLOCK`.
#[target_feature(enable = "neon")]
#[inline(never)]
unsafe extern "C" fn validate_long(ptr: *const u8, len: usize) -> bool {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    // SAFETY: as in `check`.
    unsafe { simd::check_long::<V16>(bytes, |bytes, at| check_tiered(bytes, at)) }.is_none()
}

/// [`simd::check_long`] with NEON, out of line.
///
/// # Safety
/// As for [`check`], and `bytes.len() > simd::BLOCK`.
#[target_feature(enable = "neon")]
#[inline(never)]
unsafe fn check_long(bytes: &[u8]) -> Option<usize> {
    // SAFETY: as in `check`.
    unsafe { simd::check_long::<V16>(bytes, |bytes, at| check_tiered(bytes, at)) }
}

/// [`simd::check_tiered`] with NEON, out of line.
///
/// # Safety
/// As for [`check_long`], and `at` is where it left the leading ASCII.
#[target_feature(enable = "neon")]
#[inline(never)]
unsafe fn check_tiered(bytes: &[u8], at: usize) -> Option<usize> {
    // SAFETY: as in `check`.
    unsafe { simd::check_tiered::<V16>(bytes, at) }
}
