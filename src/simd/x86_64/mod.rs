//! x86-64 back ends: AVX-512 (64-byte vectors), AVX2 (32-byte vectors) and SSSE3
//! (16-byte vectors, `pshufb`).
//! SSE2 alone has no byte shuffle, so CPUs without SSSE3 use the scalar machine.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod ssse3;

/// True iff `bytes` is all ASCII. For 16 to [`super::BLOCK`] bytes: the OR of two
/// or four overlapping 16-byte loads, leaving after the first 16 bytes when they
/// are not ASCII (SSE2 is part of the x86-64 baseline, so no feature test is
/// needed); other lengths go to the standard library's loop.
#[inline(always)]
pub(crate) fn is_short_ascii_sse2(bytes: &[u8]) -> bool {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    let len = bytes.len();
    if !(16..=super::BLOCK).contains(&len) {
        return bytes.is_ascii();
    }
    let p = bytes.as_ptr();
    // SAFETY: SSE2 is part of the x86-64 baseline. Each load reads 16 bytes at an
    // offset in 0..=len - 16 (16 <= len, and 16 <= len - 16 when len > 32), so
    // inside `bytes`; `loadu` needs no alignment.
    unsafe {
        let load = |at: usize| _mm_loadu_si128(p.add(at).cast::<__m128i>());
        let first = load(0);
        if _mm_movemask_epi8(first) != 0 {
            return false;
        }
        let mut any = _mm_or_si128(first, load(len - 16));
        if len > 32 {
            any = _mm_or_si128(any, _mm_or_si128(load(16), load(len - 32)));
        }
        _mm_movemask_epi8(any) == 0
    }
}
