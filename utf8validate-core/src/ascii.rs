//! Short all-ASCII input, answered without a back end's vector check: [`short_ascii`].

use crate::sizes::BLOCK;

/// The high bit of every byte of a `u64`: a byte is non-ASCII iff its bit is set.
pub(crate) const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// True iff `bytes` is at most [`BLOCK`] bytes long and all ASCII: the test that
/// answers short ASCII input (a whole input, or a chunk of data) before
/// any vector check. On x86 with overlapping loads ([`short_ascii_sse2`]), one
/// or two branches whatever the length.
#[inline(always)]
pub(crate) fn short_ascii(bytes: &[u8]) -> bool {
    if bytes.len() > BLOCK {
        return false;
    }
    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    ))]
    return short_ascii_sse2(bytes);
    #[cfg(not(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    )))]
    bytes.is_ascii()
}

/// The same answer as [`short_ascii`], in the shape a Rust caller compiles into its
/// own code (`crate::validate` is inlined there): a tree on the length with the
/// shortest inputs first, each case with its own test and answer, the shape of
/// smoothutf8's short path. 4-7 bytes are the OR of two overlapping 4-byte loads,
/// 2-3 of two 2-byte loads, 1 the byte itself, 8-15 two 8-byte loads, 16-[`BLOCK`]
/// as [`short_ascii`]. [`short_ascii`] keeps the shape of the C entry points, which
/// are compiled once: this one made their code a cycle slower at 8-64 bytes.
#[inline(always)]
pub(crate) fn short_ascii_in_caller(bytes: &[u8]) -> bool {
    let len = bytes.len();
    if len < 8 {
        // `map_or`'s defaults are never taken (the length is tested first).
        let word = |w: Option<&[u8; 4]>| w.map_or(0x80, |w| u32::from_le_bytes(*w));
        let half = |h: Option<&[u8; 2]>| h.map_or(0x80, |h| u16::from_le_bytes(*h));
        if len >= 4 {
            return (word(bytes.first_chunk()) | word(bytes.last_chunk())) & 0x8080_8080 == 0;
        }
        if len >= 2 {
            return (half(bytes.first_chunk()) | half(bytes.last_chunk())) & 0x8080 == 0;
        }
        bytes.first().is_none_or(u8::is_ascii)
    } else if len < 16 {
        match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
            (Some(a), Some(b)) => {
                (u64::from_le_bytes(*a) | u64::from_le_bytes(*b)) & HIGH_BITS == 0
            }
            _ => false,
        }
    } else {
        short_ascii(bytes)
    }
}

/// The bytes of `bytes` (at most 8) in a `u64`, the first in its low 8 bits, and
/// zero bytes after them, for `crate::scalar::validate_word`: from two overlapping
/// loads of 4 or 2 bytes, the second shifted to its place (where the two overlap,
/// both hold the same bytes), or the byte itself.
#[inline(always)]
pub(crate) fn few_word(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    if let (Some(a), Some(b)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        u64::from(u32::from_le_bytes(*a)) | u64::from(u32::from_le_bytes(*b)) << (8 * (len - 4))
    } else if let (Some(a), Some(b)) = (bytes.first_chunk::<2>(), bytes.last_chunk::<2>()) {
        u64::from(u16::from_le_bytes(*a)) | u64::from(u16::from_le_bytes(*b)) << (8 * (len - 2))
    } else {
        bytes.first().map_or(0, |&b| u64::from(b))
    }
}

/// True iff `bytes` (at most [`BLOCK`] bytes) is all ASCII. For 16 to [`BLOCK`]
/// bytes: the OR of two or four overlapping 16-byte loads, leaving after the first
/// 16 bytes when they are not ASCII (SSE2 is part of the target's baseline: x86-64,
/// and the i686 targets, so no feature test is needed); shorter inputs by
/// [`tiny_ascii`], not `core`'s loop, whose byte-by-byte tail took twice the
/// instructions on 5-15 bytes.
#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
#[inline(always)]
fn short_ascii_sse2(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "x86")]
    use core::arch::x86::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    let len = bytes.len();
    if len < 16 {
        return tiny_ascii(bytes);
    }
    let p = bytes.as_ptr();
    // SAFETY: SSE2 is enabled for the whole target (cfg above). Each load reads 16
    // bytes at an offset in 0..=len - 16 (16 <= len, and 16 <= len - 16 when
    // len > 32), so inside `bytes`; `loadu` needs no alignment.
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

/// True iff `bytes` (fewer than 16) is all ASCII: the OR of two overlapping 8- or
/// 4-byte loads, or of the bytes themselves below 4.
#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
#[inline(always)]
fn tiny_ascii(bytes: &[u8]) -> bool {
    let any = if let (Some(a), Some(b)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        u64::from_le_bytes(*a) | u64::from_le_bytes(*b)
    } else if let (Some(a), Some(b)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        u64::from(u32::from_le_bytes(*a) | u32::from_le_bytes(*b))
    } else {
        bytes.iter().fold(0, |any, &b| any | u64::from(b))
    };
    any & HIGH_BITS == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `few_word` holds the bytes in order and zeros after them, at every length
    /// up to 8.
    #[test]
    fn few_word_is_the_bytes_then_zeros() {
        let bytes = [0x81u8, 0x92, 0xA3, 0xB4, 0xC5, 0xD6, 0xE7, 0xF8];
        for len in 0..=8 {
            let mut padded = [0u8; 8];
            padded[..len].copy_from_slice(&bytes[..len]);
            assert_eq!(
                few_word(&bytes[..len]),
                u64::from_le_bytes(padded),
                "len {len}"
            );
        }
    }

    /// Both shapes against `is_ascii`: every length up to 70, with one non-ASCII
    /// byte at each position (and none).
    #[test]
    fn agrees_with_is_ascii() {
        let mut bytes = [b'a'; 70];
        for len in 0..=70 {
            for at in (0..len).map(Some).chain([None]) {
                bytes.fill(b'a');
                if let Some(at) = at {
                    bytes[at] = 0x80 | (at as u8);
                }
                let chunk = &bytes[..len];
                let expected = len <= BLOCK && chunk.is_ascii();
                assert_eq!(short_ascii(chunk), expected, "len {len}, at {at:?}");
                assert_eq!(
                    short_ascii_in_caller(chunk),
                    expected,
                    "len {len}, at {at:?}"
                );
            }
        }
    }
}
