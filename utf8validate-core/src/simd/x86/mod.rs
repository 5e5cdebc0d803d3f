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
