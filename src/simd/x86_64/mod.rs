//! x86-64 back ends: AVX-512 (64-byte vectors), AVX2 (32-byte vectors) and SSSE3
//! (16-byte vectors, `pshufb`).
//! SSE2 alone has no byte shuffle, so CPUs without SSSE3 use the scalar machine.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod ssse3;
