//! The lengths at which the route of an input changes, each named once. The
//! ladder (`crate::ladder`) chooses by them which check runs for `n` bytes, whole
//! or as a chunk; the engines size their loops by [`BLOCK`].

/// Whole inputs shorter than this go to the scalar machine, one shift a byte: a
/// back end's indirect call and vector set-up cost more than that.
pub(crate) const FEW: usize = 8;

/// The bytes of a `u64`: a Rust caller of `crate::validate` checks input of up to
/// this many bytes that is not all ASCII in its own code, by the scalar machine over
/// one word (`crate::ladder::in_caller`).
pub(crate) const WORD: usize = 8;

/// Chunks shorter than this go through the draft's machine, at most two steps:
/// with fewer than 3 bytes a chunk could end before the sequence it carries on
/// does, and its last bytes would not tell its state (`tests/backends.rs` fails
/// with 2).
pub(crate) const CHUNK_FROM: usize = 3;

/// One block: the unit of every vector loop (one AVX-512 vector, two AVX2, four
/// SSSE3 or NEON). Inputs and chunks of at most one block are tested for ASCII
/// before a back end is asked, and otherwise checked in one pass of overlapping
/// vectors.
pub(crate) const BLOCK: usize = 64;

/// Up to four blocks: checked straight through, with no set-up; longer inputs take
/// the tiered loop (`crate::simd::tiers`), whose set-up costs more than it saves on
/// so few blocks.
pub(crate) const MEDIUM: usize = 4 * BLOCK;
