//! Vectorised validation: the Keiser-Lemire "lookup" algorithm, written once over a
//! small [`Vector`](vector::Vector) trait and instantiated per instruction set in
//! the submodules.
//!
//! # The algorithm
//!
//! Well-formed UTF-8 (RFC 3629 §4) can be checked by looking at every byte together
//! with the three bytes before it:
//!
//! 1. **Pairs.** Every ill-formed *pair* of adjacent bytes (a lead byte not followed
//!    by a continuation byte, a continuation byte after ASCII, an overlong form, a
//!    surrogate, a value above U+10FFFF) is a product of three nibble sets: the high
//!    nibble of the previous byte, its low nibble, and the high nibble of this byte.
//!    Each kind of ill-formed pair gets one bit ([`rules::PAIR_RULES`]); three
//!    16-entry tables map each nibble to the set of kinds it can take part in, and
//!    the AND of the three lookups is the set of kinds the pair actually is. One
//!    byte-shuffle instruction does 16 or 32 lookups at once.
//! 2. **Continuation counts.** A continuation byte after a continuation byte is
//!    legal only as the third or fourth byte of a sequence, i.e. exactly when the
//!    byte two back is a 3- or 4-byte lead (E0-FF) or the byte three back is a
//!    4-byte lead (F0-FF). The pair tables mark "two continuation bytes in a row"
//!    with bit 7; XOR with "two or three back is a lead that needs it" leaves bit 7
//!    set exactly where the count is wrong.
//! 3. **The end.** A sequence cut short by the end of the input has no byte after it
//!    to be caught by step 1; the last three bytes are checked separately.
//!
//! Bytes 1, 2 and 3 positions back are read with unaligned loads at `p - 1`, `p - 2`,
//! `p - 3` inside the buffer (loads are cheap; cross-lane byte shifts are not), and
//! with in-register shifts for the very first block, which has nothing before it.
//! A 64-byte block whose bytes are all ASCII only needs the previous block not to
//! end inside a sequence.
//!
//! # Cost
//!
//! On non-ASCII text the work is about 16 vector instructions per vector: five
//! to split nibbles, three lookups, two ANDs, four for the continuation count,
//! one XOR and one OR into the gathered errors. Everything else is kept out of
//! the loop: the three earlier bytes come from loads (the load ports are idle),
//! the gathered error lanes are tested once per group of up to [`tiers::GROUP`] blocks
//! rather than per block (on an error, the group is checked again block by block
//! to find the block), whether a block ends inside a sequence is only asked when
//! an ASCII block follows it, and the cache line [`tiers::PREFETCH_DISTANCE`] ahead is
//! requested in advance (measured: 9% faster on L2-resident text).
//!
//! Most text never uses the whole check. Step 2 only matters next to 3- and
//! 4-byte leads, so each block is checked in the cheapest *tier* its bytes allow
//! ([`tiers`]): no byte E0-FF in the block and the three bytes before it (Latin,
//! Greek, Cyrillic, Hebrew, Arabic text) leaves only the pairs to check, which
//! comparisons do without lookups (`rules::pairs_fine`): 7 instructions per
//! vector, 15 per block with AVX2 against 22 for the lookups (which AVX-512
//! keeps: its comparisons cost two instructions each); no byte F0-FF (CJK,
//! Indic) drops the 4-byte lead's part, 14; anything else takes all 16. The tier
//! is read off the largest byte of the block (`max` of its vectors, which also
//! answers the ASCII test), and only rises within a group of blocks, so text that
//! needs the whole check pays one test per group for it.
//!
//! # Result
//!
//! The vector checks find that the input passes, or that it does not: for a long
//! input, `Some(g)`, every check before offset `g` passed, so `bytes[..g]` is a
//! prefix of some well-formed string. A back end's `validate` answers the verdict,
//! its `first_error` the exact offset of the first error, found by the scalar
//! machine started at the last character boundary at or before `g`
//! (`crate::scalar::first_error_from_boundary`).
//!
//! Nothing here allocates, and no load touches memory outside the given slice.
//!
//! # Layout
//!
//! Each module uses only those listed before it.
//!
//! - [`vector`]: the [`Vector`](vector::Vector) trait, the few operations each
//!   instruction set provides.
//! - [`rules`]: the algorithm's three steps, for one vector and for one block:
//!   the pair rules and their nibble tables, the error lanes, whether the bytes
//!   end inside a sequence, the ASCII test, the bytes before a chunk.
//! - [`plain`]: the workers for inputs and chunks of at most four blocks, checked
//!   straight through.
//! - [`tiers`]: the workers for longer ones: the leading ASCII skipped, then the
//!   tiered loop.
//! - `x86` (SSSE3, AVX2, AVX-512) and `aarch64` (NEON): one file per back end,
//!   its `Vector` and its test of the CPU; its row of `crate::dispatch`'s table
//!   is one line there, which `crate::ladder::back_end!` expands into the
//!   workers compiled with its instruction set. Which worker runs for `n` bytes
//!   is `crate::ladder`'s to say.

// In the order of the data flow (see Layout above), one group per step.
mod vector;

mod rules;

pub(crate) mod plain;
pub(crate) mod tiers;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub(crate) mod aarch64;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod x86;
