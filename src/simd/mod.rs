//! Vectorised validation: the Keiser-Lemire "lookup" algorithm, written once over a
//! small [`Vector`] trait and instantiated per instruction set in the submodules.
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
//! the gathered error lanes are tested once per group of up to [`GROUP`] blocks
//! rather than per block (on an error, the group is checked again block by block
//! to find the block), whether a block ends inside a sequence is only asked when
//! an ASCII block follows it, and the cache line [`PREFETCH_DISTANCE`] ahead is
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
//! [`check`] answers `None` (valid) or `Some(g)`: invalid, and every check before
//! offset `g` passed, so `bytes[..g]` is a prefix of some well-formed string. The
//! caller ([`crate::dispatch`]) turns `g` into the exact offset of the first error
//! with the scalar machine, started at the last character boundary at or before `g`.
//!
//! Nothing here allocates, and no load touches memory outside the given slice.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
mod rules;
mod tiers;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

use rules::{errors, Constants, FULL};
use tiers::{block_errors, check_stretch, vector_errors, Stretch};

/// Marks the path that calls it as unlikely, for the code layout: a cold function,
/// inlined (as hashbrown does; `core::hint::cold_path` is newer than this crate's
/// minimum Rust, 1.89). Same code as `cold_path` on 1.95.
#[cold]
#[inline(always)]
fn cold_path() {}

/// The entry points of a back end, for its vector type `$V` and target feature
/// `$feature` (named `$name` in the docs): `check` and `validate`, which
/// `crate::dispatch` caches, and the out-of-line `check_long`, `validate_long`
/// and `check_tiered` they call. Each is the generic function of this module
/// compiled with the back end's instruction set, so that the generic body and
/// every `Vector` method in it are inlined with that feature enabled.
macro_rules! entry_points {
    ($V:ty, $feature:literal, $name:literal) => {
        #[doc = concat!("[`crate::simd::check`] with ", $name, ".")]
        ///
        /// # Safety
        /// The CPU must support the back end's instruction set ([`available`]).
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn check(bytes: &[u8]) -> Option<usize> {
            // SAFETY: this function is only called with the feature present, and
            // `check_long` needs the same feature, present by the same contract.
            unsafe { $crate::simd::check::<$V, _>(bytes, |bytes| check_long(bytes)) }
        }

        #[doc = concat!("[`crate::simd::check`]'s verdict with ", $name, ", with the C")]
        /// calling convention, for `crate::dispatch`'s `validate`: a jump from the
        /// C entry point, and on to [`validate_long`] or a scalar fallback by
        /// another (see `crate::simd::Answer`).
        ///
        /// # Safety
        /// As for [`check`], and `ptr` must be non-NULL with `len` readable bytes.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe extern "C" fn validate(ptr: *const u8, len: usize) -> bool {
            // SAFETY: as in `check`; the caller guarantees `len` readable bytes at
            // the non-NULL `ptr`, and `validate_long` gets them back unchanged.
            unsafe {
                $crate::simd::check::<$V, bool>(core::slice::from_raw_parts(ptr, len), |bytes| {
                    validate_long(bytes.as_ptr(), bytes.len())
                })
            }
        }

        #[doc = concat!("[`crate::simd::check_long`] with ", $name, ", out of line.")]
        ///
        /// # Safety
        /// As for [`check`], and `bytes.len() > simd::BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe fn check_long(bytes: &[u8]) -> Option<usize> {
            // SAFETY: as in `check`.
            unsafe { $crate::simd::check_long::<$V>(bytes, |bytes, at| check_tiered(bytes, at)) }
        }

        /// [`validate`] for inputs longer than one block: [`check_long`]'s work
        /// with a `bool` answer and the C calling convention, out of line, so that
        /// [`validate`] reaches it by a jump and its answer needs no conversion.
        ///
        /// # Safety
        /// As for [`validate`], and `len > simd::BLOCK`.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe extern "C" fn validate_long(ptr: *const u8, len: usize) -> bool {
            // SAFETY: the caller guarantees `len` readable bytes at the non-NULL
            // `ptr`, the feature and `len > BLOCK`.
            unsafe {
                let bytes = core::slice::from_raw_parts(ptr, len);
                $crate::simd::check_long::<$V>(bytes, |bytes, at| check_tiered(bytes, at)).is_none()
            }
        }

        #[doc = concat!("[`crate::simd::check_tiered`] with ", $name, ", out of line.")]
        ///
        /// # Safety
        /// As for [`check_long`], and `at` is where it left the leading ASCII.
        #[target_feature(enable = $feature)]
        #[inline(never)]
        unsafe fn check_tiered(bytes: &[u8], at: usize) -> Option<usize> {
            // SAFETY: as in `check`.
            unsafe { $crate::simd::check_tiered::<$V>(bytes, at) }
        }
    };
}
pub(crate) use entry_points;

/// Bytes per block: the unit of the ASCII fast path and of the error checks.
pub(crate) const BLOCK: usize = 64;

/// Blocks per step inside a run of ASCII (one OR-reduction and one branch per
/// 256 bytes).
const ASCII_RUN: usize = 4;

/// Inputs up to this long whose first block is not all ASCII are checked with
/// plain vectors ([`check_vectors`]), not with the tiered loop of [`check_tiered`],
/// whose set-up (saved registers, constants, the tier of each group) costs more
/// than it saves on so few blocks. Measured with AVX2 on 80-256-byte slices of
/// Wikipedia text, against the tiered loop alone: Russian, Chinese and Thai 2-24%
/// faster, English 4-14% (but 6% slower at 80 bytes), random mixed text 20-25%;
/// German 9-13% slower at 200-256 bytes (mostly ASCII with scattered accents: the
/// tiered loop skips its ASCII blocks). 8 or 16 blocks lose up to 20% at 512-1000
/// bytes of German and Russian text, which the tiers check more cheaply.
const MEDIUM: usize = 4 * BLOCK;

/// Inputs at least this long are read in 64-byte aligned blocks after the first.
const ALIGN_FROM: usize = 16 * BLOCK;

/// Non-ASCII blocks between tests of the gathered error lanes, and between two
/// choices of tier. 16 measured 2-4% faster than 8 on long non-ASCII text; on an
/// error, `tiers::failing_block` finds the block, so the size costs nothing there.
const GROUP: usize = 16;

/// How far ahead of the block being checked a run of non-ASCII blocks asks for
/// the cache line to be fetched.
const PREFETCH_DISTANCE: usize = 8 * BLOCK;

/// One SIMD register of bytes, with the handful of operations the algorithm needs.
///
/// # Safety
///
/// Every method may only be called when the CPU supports the instruction set of
/// the implementation (the `check` function of each back end is compiled with that
/// feature enabled and is itself only called when it is present).
pub(crate) trait Vector: Copy {
    /// Lanes (bytes) per vector; divides [`BLOCK`].
    const BYTES: usize;
    /// Whether blocks with no byte E0-FF are checked with comparisons (true) or
    /// with the table lookups of the whole check (false): see
    /// `rules::pairs_fine`. False where a comparison costs two instructions
    /// (AVX-512: into a mask register and back).
    const COMPARE_PAIRS: bool;
    /// The narrowest vector of the same instruction set (or one it implies), for
    /// inputs shorter than `BYTES`; `Self` when there is none narrower.
    type Narrow: Vector;

    /// Loads `BYTES` bytes from `ptr` (no alignment needed).
    ///
    /// # Safety
    /// `ptr..ptr + BYTES` must be readable; the CPU feature must be present.
    unsafe fn load(ptr: *const u8) -> Self;
    /// `bytes` (at most `BYTES` long) in the low lanes and zeros above, or `None`
    /// when the instruction set cannot load it without touching memory past its
    /// end (then the caller uses the scalar machine).
    ///
    /// # Safety
    /// The CPU feature must be present.
    #[inline(always)]
    unsafe fn load_prefix(bytes: &[u8]) -> Option<Self> {
        let _ = bytes;
        None
    }
    /// A hint that the cache line at `ptr` will be read soon; it never faults, so
    /// `ptr` may point anywhere. The default does nothing.
    #[inline(always)]
    fn prefetch(ptr: *const u8) {
        let _ = ptr;
    }
    /// Every lane set to `byte`.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn splat(byte: u8) -> Self;
    /// `table` repeated in every 16-byte lane, for [`Vector::lookup`].
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn table(table: &[u8; 16]) -> Self;
    /// Lane `i` is `table[self[i]]`, for lanes holding 0-15.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn lookup(self, table: Self) -> Self;
    /// Lane `i` is `table[self[i] >> 4]`: a lookup by high nibble.
    ///
    /// # Safety
    /// The CPU feature must be present.
    #[inline(always)]
    unsafe fn lookup_high(self, table: Self) -> Self {
        // SAFETY: the caller guarantees the CPU feature.
        unsafe { self.high_nibbles().lookup(table) }
    }
    /// Lane `i` is `table[self[i] & 0x0F]`: a lookup by low nibble.
    ///
    /// # Safety
    /// The CPU feature must be present.
    #[inline(always)]
    unsafe fn lookup_low(self, table: Self) -> Self {
        // SAFETY: the caller guarantees the CPU feature.
        unsafe { self.low_nibbles().lookup(table) }
    }
    /// Every lane shifted right by 4 bits (its high nibble, 0-15).
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn high_nibbles(self) -> Self;
    /// Every lane ANDed with 0x0F (its low nibble).
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn low_nibbles(self) -> Self;
    /// The bytes of `prev ++ self` that start `N` lanes before `self`, for
    /// `N` = 1, 2, 3: lane `i` is the byte `N` positions before lane `i` of `self`.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn prev1(self, prev: Self) -> Self;
    /// See [`Vector::prev1`].
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn prev2(self, prev: Self) -> Self;
    /// See [`Vector::prev1`].
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn prev3(self, prev: Self) -> Self;
    /// Lane-wise AND.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn and(self, other: Self) -> Self;
    /// Lane-wise OR.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn or(self, other: Self) -> Self;
    /// Lane-wise XOR.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn xor(self, other: Self) -> Self;
    /// Lane-wise unsigned maximum.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn max(self, other: Self) -> Self;
    /// 0xFF in the lanes where `self` and `other` are equal, 0 elsewhere.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn equal(self, other: Self) -> Self;
    /// 0xFF in the lanes where `self` is less than `other`, both read as signed
    /// bytes (`i8`), 0 elsewhere.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn less_signed(self, other: Self) -> Self;
    /// Lane-wise unsigned minimum.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn min(self, other: Self) -> Self;
    /// Lane-wise `self & !mask`.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn and_not(self, mask: Self) -> Self;
    /// Lane-wise unsigned saturating subtraction (`max(self - other, 0)`).
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// True iff some lane has its high bit set (some byte is not ASCII).
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn any_high_bit(self) -> bool;
    /// True iff some lane is not zero.
    ///
    /// # Safety
    /// The CPU feature must be present.
    unsafe fn any_nonzero(self) -> bool;
}

/// [`check`] for an input of at most one vector, loaded zero-padded in `this`:
/// the zeros after a shorter input are ASCII, so a sequence cut short by its end is
/// caught like one cut short by ASCII (a full vector's end is the caller's to check).
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn check_short<V: Vector>(this: V) -> Option<usize> {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        let k = Constants::<V>::new();
        let zero = V::splat(0);
        if this.any_high_bit()
            && errors::<V, FULL>(
                &k,
                this,
                this.prev1(zero),
                this.prev2(zero),
                this.prev3(zero),
            )
            .any_nonzero()
        {
            Some(0)
        } else {
            None
        }
    }
}

/// The offset of the block after the one at `at`: the last 64-byte aligned
/// address in `at + 1..=at + BLOCK` (relative to `start`), so it overlaps the block
/// at `at` by `(start + at) % BLOCK` bytes and leaves no gap.
#[inline(always)]
fn next_block(start: *const u8, at: usize) -> usize {
    let end = (start as usize).wrapping_add(at + BLOCK);
    at + BLOCK - end % BLOCK
}

/// True iff the `blocks` blocks at `p` are all ASCII.
///
/// # Safety
/// `p..p + blocks * BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn is_ascii<V: Vector>(p: *const u8, blocks: usize) -> bool {
    // SAFETY: the loads cover `p..p + blocks * BLOCK`, readable by the contract.
    unsafe {
        let mut any = V::load(p);
        for i in 1..blocks * (BLOCK / V::BYTES) {
            any = any.or(V::load(p.add(i * V::BYTES)));
        }
        !any.any_high_bit()
    }
}

/// The offset of the first block at or after `at` that is not all ASCII, or the
/// first offset past `at` with less than a whole block left. Runs of ASCII in text
/// with scattered non-ASCII characters are short, so the first blocks are taken
/// one at a time; a longer run goes on [`ASCII_RUN`] blocks at a time.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn skip_ascii<V: Vector>(bytes: &[u8], mut at: usize) -> usize {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY: every `is_ascii` reads `at..at + n * BLOCK`, inside `bytes` by the
    // test before it; the caller guarantees the CPU feature.
    unsafe {
        for _ in 0..ASCII_RUN {
            if at + BLOCK > len || !is_ascii::<V>(start.add(at), 1) {
                return at;
            }
            at += BLOCK;
        }
        while at + ASCII_RUN * BLOCK <= len && is_ascii::<V>(start.add(at), ASCII_RUN) {
            at += ASCII_RUN * BLOCK;
        }
        while at + BLOCK <= len && is_ascii::<V>(start.add(at), 1) {
            at += BLOCK;
        }
    }
    at
}

/// True iff `bytes` is all ASCII, without a back end: the inline test for short
/// inputs (up to [`BLOCK`] bytes; on x86-64 with overlapping SSE2 loads from 16
/// bytes on, see [`x86_64::is_short_ascii_sse2`]). Reads nothing outside `bytes`.
#[inline(always)]
pub(crate) fn is_short_ascii(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    return x86_64::is_short_ascii_sse2(bytes);
    #[cfg(not(target_arch = "x86_64"))]
    bytes.is_ascii()
}

/// True iff `bytes[..end]` ends inside a sequence: its last byte is a lead byte
/// (C0-FF), the one before a 3- or 4-byte lead (E0-FF), or the one before that a
/// 4-byte lead (F0-FF).
#[inline(always)]
fn ends_inside_sequence(bytes: &[u8], end: usize) -> bool {
    let back = |n: usize| end.checked_sub(n).and_then(|i| bytes.get(i));
    back(1).is_some_and(|&b| b >= 0xC0)
        || back(2).is_some_and(|&b| b >= 0xE0)
        || back(3).is_some_and(|&b| b >= 0xF0)
}

/// Validates `bytes`, answering as `A` ([`Answer`]): `None` when it is well-formed
/// UTF-8, else `Some(g)` with every check before offset `g` passed (see the module
/// docs), or the verdict alone. An input of at most one block is one zero-padded
/// vector where the instruction set can load that (AVX-512), else overlapping
/// vectors, else (shorter than the narrowest vector) the scalar machine. A longer
/// input goes to `long`, the back end's [`check_long`] (or its `validate_long`,
/// which the back end's `validate` reaches by a jump), out of line, so that short
/// inputs do not share its code.
///
/// # Safety
/// The CPU feature of `V` must be present. Call it only from a function compiled
/// with that feature, so that this body is inlined and compiled with it.
#[inline(always)]
pub(crate) unsafe fn check<V: Vector, A: Answer>(bytes: &[u8], long: impl FnOnce(&[u8]) -> A) -> A {
    if bytes.len() > BLOCK {
        // Not rare, but for the layout: the short path below then runs without
        // a taken branch (a long input pays one jump, next to its own work).
        cold_path();
        return long(bytes);
    }
    // SAFETY: the caller guarantees the CPU feature; `bytes.len() <= BLOCK`.
    unsafe { check_block::<V, A>(bytes) }
}

/// [`check`] for an input of at most one block.
///
/// # Safety
/// As for [`check`], and `bytes.len() <= BLOCK`.
#[inline(always)]
unsafe fn check_block<V: Vector, A: Answer>(bytes: &[u8]) -> A {
    let len = bytes.len();
    type N1<V> = <V as Vector>::Narrow;
    type N2<V> = <N1<V> as Vector>::Narrow;
    // SAFETY (each arm): the caller guarantees the CPU feature of `V`, which
    // implies those of its narrower vectors; each `check_vectors::<W>` is called
    // with `W::BYTES <= len`, and `load_prefix` reads only `bytes`.
    unsafe {
        if len >= V::BYTES {
            check_vectors::<V, A>(bytes)
        } else if len >= N1::<V>::BYTES {
            check_vectors::<N1<V>, A>(bytes)
        } else if len >= N2::<V>::BYTES {
            check_vectors::<N2<V>, A>(bytes)
        } else if let Some(this) = V::load_prefix(bytes) {
            // Shorter than the narrowest vector, loaded zero-padded (AVX-512).
            match check_short(this) {
                // A whole vector has no zero after it: check its end here.
                None if ends_inside_sequence(bytes, len) => A::invalid(len),
                None => A::VALID,
                Some(passed) => A::invalid(passed),
            }
        } else {
            A::scalar(bytes)
        }
    }
}

/// The scalar machine's check of `bytes`, out of line: for the few inputs too short
/// for a vector, and as the scalar back end's check (its exact first error is a
/// valid `g`). Inlined, it and [`first_error_from_boundary`] made every short input
/// save registers around them: moving both out of line took callgrind's count from
/// 96 to 87 instructions per call on 64 bytes of mixed text with AVX2.
/// (The `bool` answer's fallbacks are reached by jumps: see [`Answer`].)
#[inline(never)]
pub(crate) fn scalar_check(bytes: &[u8]) -> Option<usize> {
    crate::scalar::first_error(bytes)
}

/// The scalar back end's verdict, with the C calling convention (see
/// `crate::dispatch`'s `ValidateFn`), and the `bool` [`Answer`] for inputs too
/// short for a vector.
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[inline(never)]
pub(crate) unsafe extern "C" fn scalar_validate(ptr: *const u8, len: usize) -> bool {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    crate::scalar::first_error(unsafe { core::slice::from_raw_parts(ptr, len) }).is_none()
}

/// What [`check`] answers: `Option<usize>` (see the module docs) for the back
/// ends' `check`, or the verdict alone, `bool`, for their `validate`, each with
/// its own out-of-line scalar fallbacks. With `bool`, the fallbacks are
/// `extern "C"` functions with the arguments and answer of `validate` itself, so
/// that it ends in a jump to them (a tail call) and needs neither a saved
/// register around a call nor a conversion of `Option<usize>` to `bool` after
/// one (callgrind, AVX2, 64 mixed bytes: 77 instead of 83 instructions per call).
pub(crate) trait Answer {
    /// Well-formed.
    const VALID: Self;
    /// Ill-formed, with every check before offset `passed` passed.
    fn invalid(passed: usize) -> Self;
    /// The scalar machine's answer for `bytes`.
    fn scalar(bytes: &[u8]) -> Self;
    /// The answer for `bytes`, whose `bytes[..passed]` is a well-formed prefix.
    fn from_boundary(bytes: &[u8], passed: usize) -> Self;
}

impl Answer for Option<usize> {
    const VALID: Self = None;
    #[inline(always)]
    fn invalid(passed: usize) -> Self {
        Some(passed)
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        scalar_check(bytes)
    }
    #[inline(always)]
    fn from_boundary(bytes: &[u8], passed: usize) -> Self {
        first_error_from_boundary(bytes, passed)
    }
}

impl Answer for bool {
    const VALID: Self = true;
    #[inline(always)]
    fn invalid(_: usize) -> Self {
        false
    }
    #[inline(always)]
    fn scalar(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` is readable and its pointer is non-NULL.
        unsafe { scalar_validate(bytes.as_ptr(), bytes.len()) }
    }
    #[inline(always)]
    fn from_boundary(bytes: &[u8], passed: usize) -> Self {
        // SAFETY: as in `scalar`, and `passed` is forwarded unchanged.
        unsafe { validate_from_boundary(bytes.as_ptr(), bytes.len(), passed) }
    }
}

/// [`first_error_from_boundary`]'s verdict, with the C calling convention, for
/// the `bool` [`Answer`].
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
#[cold]
#[inline(never)]
unsafe extern "C" fn validate_from_boundary(ptr: *const u8, len: usize, passed: usize) -> bool {
    // SAFETY: the caller guarantees `len` readable bytes at the non-NULL `ptr`.
    first_error_from_boundary(unsafe { core::slice::from_raw_parts(ptr, len) }, passed).is_none()
}

/// The exact first error of `bytes`, given that `bytes[..passed]` is a well-formed
/// prefix: the scalar machine from the last character boundary at or before
/// `passed`, where it is in START. The machine is the source of truth: if it finds
/// no error, there is none. Turns a back end's `g` into the answer of
/// `first_error` (`crate::dispatch`), and checks the last bytes of inputs one or
/// two bytes longer than a vector. Out of line and cold: only rare inputs (an
/// error, or an odd length) get here.
#[cold]
#[inline(never)]
pub(crate) fn first_error_from_boundary(bytes: &[u8], passed: usize) -> Option<usize> {
    let from = boundary_at_or_before(bytes, passed);
    crate::scalar::first_error(bytes.get(from..)?).map(|error| from + error)
}

/// [`check`] for inputs longer than one block: their leading ASCII is skipped
/// ([`leading_ascii`]); then an input of at most [`MEDIUM`] bytes whose first
/// block is not all ASCII is checked with plain vectors, and anything else with
/// the tiered loop, `tiered` (the back end's [`check_tiered`]), which on an error
/// in the plain vectors also finds the failing block. Each back end compiles it
/// into a function of its own that [`check`] calls (`long`).
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(crate) unsafe fn check_long<V: Vector>(
    bytes: &[u8],
    tiered: impl FnOnce(&[u8], usize) -> Option<usize>,
) -> Option<usize> {
    let len = bytes.len();
    // SAFETY: the caller guarantees the CPU feature and `BLOCK < len`.
    match unsafe { leading_ascii::<V>(bytes) } {
        None => None,
        // At least 3 bytes before the last vector, so that `check_vectors` never
        // falls back to the scalar machine here: with 64-byte vectors, inputs of
        // 65 or 66 bytes go to `tiered`.
        // SAFETY: the caller guarantees the CPU feature; `BYTES < len`.
        Some(0) if len <= MEDIUM && len >= V::BYTES + 3 => {
            match unsafe { check_vectors::<V, Option<usize>>(bytes) } {
                None => None,
                Some(_) => tiered(bytes, 0),
            }
        }
        Some(at) => tiered(bytes, at),
    }
}

/// Skips the leading ASCII of an input longer than one block, the common case of
/// protocol text: a load pair and a branch per block, and nothing else set up, so
/// that an input that is all ASCII never pays for [`check_tiered`]'s set-up (saved
/// registers, constants). `None` when every byte is ASCII, else `Some(at)`: every
/// byte before `at` is ASCII, and `at` is 0, or the offset of the first whole block
/// that is not all ASCII, or the last offset with less than a whole block after it.
///
/// Long inputs move to 64-byte aligned blocks after the first (a load that
/// straddles two cache lines costs twice as much): see [`second_block`].
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`.
#[inline(always)]
unsafe fn leading_ascii<V: Vector>(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY: the caller guarantees the CPU feature; both `is_ascii` read one
    // block inside `bytes` as `BLOCK < len`.
    unsafe {
        if !is_ascii::<V>(start, 1) {
            return Some(0);
        }
        let at = skip_ascii::<V>(bytes, second_block(bytes));
        if at + BLOCK > len && (at == len || is_ascii::<V>(start.add(len - BLOCK), 1)) {
            return None;
        }
        Some(at)
    }
}

/// The offset of the block checked after the first: the first 64-byte aligned
/// address in long inputs (the second block may then overlap the first by up to
/// 63 bytes, which are checked twice; no byte is skipped), unless it is 1 or 2 bytes
/// into the input, where the three bytes before the block would start before the
/// input. In shorter inputs the overlap would cost more than the straddling loads
/// save.
#[inline(always)]
fn second_block(bytes: &[u8]) -> usize {
    match next_block(bytes.as_ptr(), 0) {
        aligned if bytes.len() >= ALIGN_FROM && aligned >= 3 => aligned,
        _ => BLOCK,
    }
}

/// [`check_long`] from `at`, where [`leading_ascii`] stopped: the tiered loop
/// (see [`tiers`]). Each back end compiles it into a function of its own, so that
/// inputs that never get here do not pay for its set-up (saved registers,
/// constants).
///
/// # Safety
/// The CPU feature of `V` must be present, `bytes.len() > BLOCK`, and `at` is what
/// [`leading_ascii`] answered for `bytes`. Call it only from a function compiled
/// with that feature, so that this body is inlined and compiled with it.
#[inline(always)]
pub(crate) unsafe fn check_tiered<V: Vector>(bytes: &[u8], mut at: usize) -> Option<usize> {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY (for the whole body): the caller guarantees the CPU feature. Every
    // `V::load(p)` below reads `p..p + BYTES` where the comment at the load shows
    // that range is inside `bytes`.
    unsafe {
        let second = second_block(bytes);
        let k = Constants::<V>::new();
        if at == 0 {
            // The first block, with the bytes before it taken as ASCII (the start
            // of the input is a character boundary).
            if first_block_errors(&k, start).any_nonzero() {
                return Some(0);
            }
            at = second;
            // In bounds: at + BLOCK <= len.
            if at + BLOCK <= len && is_ascii::<V>(start.add(at), 1) {
                // An ASCII block is wrong only if the block before it ended inside
                // a sequence.
                if ends_inside_sequence(bytes, at) {
                    return Some(at);
                }
                at = skip_ascii::<V>(bytes, at + BLOCK);
            }
        }

        // Whole blocks: stretches of non-ASCII blocks (`tiers::check_stretch`)
        // and the runs of ASCII blocks between them. Before `at` every check has
        // passed, and the block at `at`, if whole, is not all ASCII.
        while at + BLOCK <= len {
            match check_stretch(&k, bytes, &mut at) {
                Stretch::BeforeAscii => at = skip_ascii::<V>(bytes, at + BLOCK),
                Stretch::AtEnd => break,
                Stretch::Error(block) => return Some(block),
            }
        }

        // The tail: the bytes after the last whole block (fewer than 64), checked as
        // one more block over the last 64 bytes of the input, which overlaps bytes
        // already checked (the first block covers 0..64 even when `at` is below).
        if at.max(BLOCK) < len {
            let from = len - BLOCK;
            // In bounds: from + BLOCK = len.
            if is_ascii::<V>(start.add(from), 1) {
                if ends_inside_sequence(bytes, from) {
                    return Some(from);
                }
                return None;
            }
            if from >= 3 {
                // In bounds: from >= 3 and from + BLOCK = len.
                if block_errors::<V, FULL>(&k, start.add(from)).any_nonzero() {
                    return Some(from);
                }
            } else {
                // 65 or 66 bytes: too few to look 3 bytes back from `len - 64`;
                // the scalar machine checks the last bytes (and the end) from a
                // boundary in the first block, which passed.
                return first_error_from_boundary(bytes, BLOCK);
            }
        }
    }
    if ends_inside_sequence(bytes, bytes.len()) {
        return Some(len);
    }
    None
}

/// [`check`] for `V::BYTES <= bytes.len()`, when the vector cannot be loaded
/// zero-padded: whole vectors from the start, then one vector that ends at the end
/// of the input (overlapping bytes already checked, unless the length is a multiple
/// of `BYTES`), and one test of the gathered error lanes. The last vector is always
/// the one that ends at the end, even when a whole vector would fit there: one
/// code path instead of two (callgrind, AVX2, mixed text: 128 bytes 147 → 135
/// instructions per call, 256 bytes 247 → 227, 64 bytes 85 → 84). An error is
/// reported at 0: [`first_error_from_boundary`] finds it within these few bytes
/// (up to [`BLOCK`]); for longer inputs (up to [`MEDIUM`]) the caller finds the
/// block first.
///
/// # Safety
/// The CPU feature of `V` must be present, and `V::BYTES <= bytes.len()`.
#[inline(always)]
unsafe fn check_vectors<V: Vector, A: Answer>(bytes: &[u8]) -> A {
    let len = bytes.len();
    let p = bytes.as_ptr();
    // SAFETY: the caller guarantees the CPU feature and `BYTES <= len`; each load
    // reads `q..q + BYTES` with `q + BYTES <= len` (or `q - 1..q - 3` with `q >= 3`),
    // as the comments at the loads show.
    unsafe {
        // In bounds: BYTES <= len.
        let first = V::load(p);
        let k = Constants::<V>::new();
        let zero = V::splat(0);
        let mut error = errors::<V, FULL>(
            &k,
            first,
            first.prev1(zero),
            first.prev2(zero),
            first.prev3(zero),
        );
        let mut at = V::BYTES;
        while at + V::BYTES < len {
            // In bounds: at >= BYTES > 3 and at + BYTES < len.
            error = error.or(vector_errors::<V, FULL>(&k, p.add(at)));
            at += V::BYTES;
        }
        if at < len {
            let from = len - V::BYTES;
            if from < 3 {
                // One or two bytes after the first vector: the scalar machine
                // checks them from the last boundary in the first vector.
                cold_path();
                if error.any_nonzero() {
                    return A::invalid(0);
                }
                return A::from_boundary(bytes, at);
            }
            // In bounds: from >= 3 and from + BYTES = len.
            error = error.or(vector_errors::<V, FULL>(&k, p.add(from)));
        }
        // The input must not end inside a sequence. In bounds: BYTES <= len.
        let error = error.or(ends_inside_lanes(p.add(len - V::BYTES)));
        if error.any_nonzero() {
            A::invalid(0)
        } else {
            A::VALID
        }
    }
}

/// Non-zero lanes iff the `BYTES` bytes at `p` end inside a sequence (see
/// [`INCOMPLETE_LIMITS`]).
///
/// # Safety
/// `p..p + BYTES` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn ends_inside_lanes<V: Vector>(p: *const u8) -> V {
    // SAFETY: `p..p + BYTES` is readable by the contract, and the table's last
    // `BYTES <= BLOCK` bytes are inside it; the caller guarantees the CPU feature.
    unsafe {
        V::load(p).saturating_sub(V::load(
            INCOMPLETE_LIMITS
                .as_ptr()
                .add(INCOMPLETE_LIMITS.len() - V::BYTES),
        ))
    }
}

/// Subtracted (saturating) from the last `n` bytes of an input, the last `n` bytes
/// of this table leave a non-zero byte iff the input ends inside a sequence: the
/// last byte is a lead byte (C0-FF), the one before a 3- or 4-byte lead (E0-FF),
/// or the one before that a 4-byte lead (F0-FF).
static INCOMPLETE_LIMITS: [u8; BLOCK] = {
    let mut limits = [0xFF; BLOCK];
    limits[BLOCK - 3] = 0xF0 - 1;
    limits[BLOCK - 2] = 0xE0 - 1;
    limits[BLOCK - 1] = 0xC0 - 1;
    limits
};

/// The error lanes of the first block of an input (at `p`, its start), taking the
/// bytes before it as ASCII.
///
/// # Safety
/// `p..p + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn first_block_errors<V: Vector>(k: &Constants<V>, p: *const u8) -> V {
    // SAFETY: every load reads `p + i * BYTES..p + (i + 1) * BYTES`, inside
    // `p..p + BLOCK`; the caller guarantees the CPU feature.
    unsafe {
        let mut error = V::splat(0);
        let mut prev = V::splat(0);
        for i in 0..BLOCK / V::BYTES {
            let this = V::load(p.add(i * V::BYTES));
            error = error.or(errors::<V, FULL>(
                k,
                this,
                this.prev1(prev),
                this.prev2(prev),
                this.prev3(prev),
            ));
            prev = this;
        }
        error
    }
}

/// True for continuation bytes (80-BF).
#[inline(always)]
fn is_continuation(byte: u8) -> bool {
    (byte as i8) < -0x40
}

/// The last character boundary at or before `at` in `bytes[..at]`, assuming
/// `bytes[..at]` is a prefix of well-formed UTF-8: steps back over at most 3
/// continuation bytes and onto the lead byte before them.
#[inline]
pub(crate) fn boundary_at_or_before(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    let end = i;
    while i > 0 && end - i < 3 && bytes.get(i - 1).is_some_and(|&b| is_continuation(b)) {
        i -= 1;
    }
    if i > 0 && bytes.get(i - 1).is_some_and(|&b| b >= 0xC0) {
        i -= 1;
    }
    i
}

/// The start of the last sequence of `bytes` (a character boundary when `bytes`
/// is a well-formed prefix that starts on one): at most 4 bytes before the end.
#[inline]
pub(crate) fn last_boundary(bytes: &[u8]) -> usize {
    boundary_at_or_before(bytes, bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries() {
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 5), 2);
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 4), 2);
        assert_eq!(boundary_at_or_before(b"ab\xE2\x82\xAC", 2), 2);
        assert_eq!(boundary_at_or_before(b"ab\xF0\x9F\x98\x80", 6), 2);
        assert_eq!(boundary_at_or_before(b"abc", 3), 3);
        assert_eq!(boundary_at_or_before(b"", 0), 0);
        assert_eq!(last_boundary(b"\xC3"), 0);
    }
}
