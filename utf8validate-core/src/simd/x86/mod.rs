//! x86 back ends, for 64-bit (x86-64) and 32-bit (i686) x86 alike: AVX-512 (64-byte
//! vectors), AVX2 (32-byte vectors) and SSSE3 (16-byte vectors, `pshufb`).
//! SSE2 alone has no byte shuffle, so CPUs without SSSE3 use the scalar machine.
//!
//! The CPU's features are detected with the `cpufeatures` crate (`CPUID`, and for AVX
//! and AVX-512 also `XGETBV`: the operating system must save the wider registers, or
//! the back end would not be safe to run even on a CPU that has the instructions).

#[cfg(target_arch = "x86")]
use core::arch::x86 as arch;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64 as arch;

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod ssse3;

/// True iff `bytes` is all ASCII. For 16 to [`super::BLOCK`] bytes: the OR of two
/// or four overlapping 16-byte loads, leaving after the first 16 bytes when they
/// are not ASCII (SSE2 is part of the target's baseline: x86-64, and the i686
/// targets, so no feature test is needed); other lengths go to `core`'s loop.
#[cfg(target_feature = "sse2")]
#[inline(always)]
pub(crate) fn is_short_ascii_sse2(bytes: &[u8]) -> bool {
    use arch::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    let len = bytes.len();
    if !(16..=super::BLOCK).contains(&len) {
        return bytes.is_ascii();
    }
    let p = bytes.as_ptr();
    // SAFETY: SSE2 is enabled for the whole target (cfg above). Each load reads 16 bytes at an
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

#[cfg(test)]
mod tests {
    /// The `cpufeatures` detection each back end uses agrees with the standard
    /// library's, feature by feature, on this machine.
    #[test]
    fn detection_agrees_with_std() {
        let std_avx512 = std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vbmi");
        assert_eq!(
            super::avx512::available(),
            std_avx512,
            "avx512f+avx512bw+avx512vbmi"
        );
        assert_eq!(
            super::avx2::available(),
            std::is_x86_feature_detected!("avx2"),
            "avx2"
        );
        assert_eq!(
            super::ssse3::available(),
            std::is_x86_feature_detected!("ssse3"),
            "ssse3"
        );
    }
}
