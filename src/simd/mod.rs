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
//!    Each kind of ill-formed pair gets one bit ([`PAIR_RULES`]); three 16-entry
//!    tables map each nibble to the set of kinds it can take part in, and the AND of
//!    the three lookups is the set of kinds the pair actually is. One byte-shuffle
//!    instruction does 16 or 32 lookups at once.
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
//! the gathered error lanes are tested once per run of up to [`GROUP`] blocks
//! rather than per block, whether a block ends inside a sequence is only asked
//! when an ASCII block follows it, and the cache line [`PREFETCH_DISTANCE`] ahead
//! is requested in advance (measured: 9% faster on L2-resident text).
//!
//! Most text never uses the whole check. Step 2 only matters next to 3- and 4-byte
//! leads, so each block is checked in the cheapest *tier* its bytes allow: no byte
//! E0-FF in the block and the three bytes before it (Latin, Greek, Cyrillic,
//! Hebrew, Arabic text) leaves the pair flags alone, 11 instructions per vector;
//! no byte F0-FF (CJK, Indic) drops the 4-byte lead's part, 14; anything else
//! takes all 16. The tier is read off the largest byte of the block (`max` of its
//! vectors, which also answers the ASCII test), and only rises within a run of
//! blocks, so text that needs the whole check pays one test per run for it.
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
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

/// Bytes per block: the unit of the ASCII fast path and of the error checks.
pub(crate) const BLOCK: usize = 64;

/// Blocks per step inside a run of ASCII (one OR-reduction and one branch per
/// 256 bytes).
const ASCII_RUN: usize = 4;

/// Inputs at least this long are read in 64-byte aligned blocks after the first.
const ALIGN_FROM: usize = 16 * BLOCK;

/// Non-ASCII blocks between tests of the gathered error lanes.
const GROUP: usize = 8;

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

// ---------------------------------------------------------------------------------
// The pair rules and the three nibble tables derived from them.
// ---------------------------------------------------------------------------------

/// A set of nibble values 0-15, as a bit set.
type Nibbles = u16;

/// The nibbles `lo..=hi`.
const fn span(lo: u8, hi: u8) -> Nibbles {
    let mut set = 0;
    let mut n = lo;
    while n <= hi {
        set |= 1 << n;
        n += 1;
    }
    set
}

const ANY: Nibbles = span(0x0, 0xF);
/// High nibbles of ASCII bytes (00-7F).
const ASCII: Nibbles = span(0x0, 0x7);
/// High nibbles of continuation bytes (80-BF).
const CONT: Nibbles = span(0x8, 0xB);
/// High nibbles of lead bytes and of the never-used C0, C1, F5-FF (C0-FF).
const LEAD: Nibbles = span(0xC, 0xF);

/// One kind of ill-formed pair of adjacent bytes `(prev, this)`: the pairs whose
/// `prev` high nibble, `prev` low nibble and `this` high nibble are in the three
/// sets. `flag` is the kind's bit in the tables.
#[derive(Clone, Copy)]
pub(crate) struct PairRule {
    flag: u8,
    prev_high: Nibbles,
    prev_low: Nibbles,
    this_high: Nibbles,
}

/// Bit 7: two continuation bytes in a row. Not an error by itself (see step 2 of
/// the algorithm); it must be bit 7 so that the byte-wise XOR with "needed here"
/// (0x80 or 0) cancels it.
const TWO_CONTINUATIONS: u8 = 0x80;

/// Every kind of ill-formed pair (RFC 3629 §4; Unicode §3.9, Table 3-7).
pub(crate) const PAIR_RULES: [PairRule; 8] = [
    // A lead byte (or C0, C1, F5-FF) followed by ASCII or another lead: too short.
    PairRule {
        flag: 0x01,
        prev_high: LEAD,
        prev_low: ANY,
        this_high: ASCII | LEAD,
    },
    // ASCII followed by a continuation byte: a stray continuation byte.
    PairRule {
        flag: 0x02,
        prev_high: ASCII,
        prev_low: ANY,
        this_high: CONT,
    },
    // E0 80-9F: overlong 3-byte form (U+0000-U+07FF).
    PairRule {
        flag: 0x04,
        prev_high: span(0xE, 0xE),
        prev_low: span(0x0, 0x0),
        this_high: span(0x8, 0x9),
    },
    // F4 90-BF and F5-FF 90-BF: above U+10FFFF.
    PairRule {
        flag: 0x08,
        prev_high: span(0xF, 0xF),
        prev_low: span(0x4, 0xF),
        this_high: span(0x9, 0xB),
    },
    // ED A0-BF: UTF-16 surrogates (U+D800-U+DFFF).
    PairRule {
        flag: 0x10,
        prev_high: span(0xE, 0xE),
        prev_low: span(0xD, 0xD),
        this_high: span(0xA, 0xB),
    },
    // C0, C1 with a continuation byte: overlong 2-byte form (U+0000-U+007F).
    PairRule {
        flag: 0x20,
        prev_high: span(0xC, 0xC),
        prev_low: span(0x0, 0x1),
        this_high: CONT,
    },
    // F0 80-8F: overlong 4-byte form; F5-FF 80-8F: above U+10FFFF.
    PairRule {
        flag: 0x40,
        prev_high: span(0xF, 0xF),
        prev_low: span(0x0, 0x0) | span(0x5, 0xF),
        this_high: span(0x8, 0x8),
    },
    // Two continuation bytes: checked against the lead two or three bytes back.
    PairRule {
        flag: TWO_CONTINUATIONS,
        prev_high: CONT,
        prev_low: ANY,
        this_high: CONT,
    },
];

/// Which of the three nibbles of a pair a table is indexed by.
#[derive(Clone, Copy)]
enum Nibble {
    PrevHigh,
    PrevLow,
    ThisHigh,
}

/// `table[n]`: the flags of every rule whose set for `which` contains `n`.
const fn build_table(which: Nibble) -> [u8; 16] {
    let mut table = [0u8; 16];
    let mut r = 0;
    while r < PAIR_RULES.len() {
        let rule = PAIR_RULES[r];
        let set = match which {
            Nibble::PrevHigh => rule.prev_high,
            Nibble::PrevLow => rule.prev_low,
            Nibble::ThisHigh => rule.this_high,
        };
        let mut n = 0;
        while n < 16 {
            if set & (1 << n) != 0 {
                table[n] |= rule.flag;
            }
            n += 1;
        }
        r += 1;
    }
    table
}

/// Rules by the high nibble of the previous byte.
pub(crate) static PREV_HIGH: [u8; 16] = build_table(Nibble::PrevHigh);
/// Rules by the low nibble of the previous byte.
pub(crate) static PREV_LOW: [u8; 16] = build_table(Nibble::PrevLow);
/// Rules by the high nibble of this byte.
pub(crate) static THIS_HIGH: [u8; 16] = build_table(Nibble::ThisHigh);

/// The pair flags of `(prev, this)` as one lane of the vector code computes them.
#[cfg(test)]
fn pair_flags(prev: u8, this: u8) -> u8 {
    PREV_HIGH[(prev >> 4) as usize]
        & PREV_LOW[(prev & 0xF) as usize]
        & THIS_HIGH[(this >> 4) as usize]
}

/// `x - (0xE0 - 0x80)` saturating has bit 7 set iff `x >= 0xE0` (the largest
/// result, 0xFF - 0x60 = 0x9F, stays below 0x100): a 3- or 4-byte lead.
const THIRD_BYTE_BIAS: u8 = 0xE0 - 0x80;
/// Likewise, bit 7 of `x - (0xF0 - 0x80)` is set iff `x >= 0xF0`: a 4-byte lead.
const FOURTH_BYTE_BIAS: u8 = 0xF0 - 0x80;

/// The vectors of constants the loop uses, loaded once per call.
#[derive(Clone, Copy)]
struct Constants<V> {
    prev_high: V,
    prev_low: V,
    this_high: V,
    third_bias: V,
    fourth_bias: V,
    high_bit: V,
}

impl<V: Vector> Constants<V> {
    /// # Safety
    /// The CPU feature of `V` must be present.
    #[inline(always)]
    unsafe fn new() -> Self {
        // SAFETY: the caller guarantees the CPU feature.
        unsafe {
            Constants {
                prev_high: V::table(&PREV_HIGH),
                prev_low: V::table(&PREV_LOW),
                this_high: V::table(&THIS_HIGH),
                third_bias: V::splat(THIRD_BYTE_BIAS),
                fourth_bias: V::splat(FOURTH_BYTE_BIAS),
                high_bit: V::splat(0x80),
            }
        }
    }
}

/// The error lanes of `this`, given the vectors of the bytes 1, 2 and 3 positions
/// earlier: non-zero exactly where a byte cannot follow the three before it.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn errors<V: Vector>(k: &Constants<V>, this: V, prev1: V, prev2: V, prev3: V) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        let flags = pair_flag_lanes(k, this, prev1);
        let needs_continuation = prev2
            .saturating_sub(k.third_bias)
            .or(prev3.saturating_sub(k.fourth_bias))
            .and(k.high_bit);
        needs_continuation.xor(flags)
    }
}

/// The pair flags ([`PAIR_RULES`]) of `this` and the bytes one position earlier.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn pair_flag_lanes<V: Vector>(k: &Constants<V>, this: V, prev1: V) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        prev1
            .lookup_high(k.prev_high)
            .and(prev1.lookup_low(k.prev_low))
            .and(this.lookup_high(k.this_high))
    }
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
            && errors(
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

/// The lane-wise maximum of the vectors of the block at `p`.
///
/// # Safety
/// `p..p + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn block_max<V: Vector>(p: *const u8) -> V {
    // SAFETY: the loads cover `p..p + BLOCK`, readable by the contract.
    unsafe {
        let mut most = V::load(p);
        for i in 1..BLOCK / V::BYTES {
            most = most.max(V::load(p.add(i * V::BYTES)));
        }
        most
    }
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

/// True iff `bytes` ends inside a sequence: its last byte is a lead byte (C0-FF),
/// the one before a 3- or 4-byte lead (E0-FF), or the one before that a 4-byte lead
/// (F0-FF).
#[inline(always)]
fn ends_inside_sequence(bytes: &[u8]) -> bool {
    let back = |n: usize| bytes.len().checked_sub(n).and_then(|i| bytes.get(i));
    back(1).is_some_and(|&b| b >= 0xC0)
        || back(2).is_some_and(|&b| b >= 0xE0)
        || back(3).is_some_and(|&b| b >= 0xF0)
}

/// Validates `bytes`: `None` when it is well-formed UTF-8, else `Some(g)` with every
/// check before offset `g` passed (see the module docs). An input of at most one
/// block is one zero-padded vector where the instruction set can load that
/// (AVX-512), else overlapping vectors, else (shorter than the narrowest vector)
/// the scalar machine.
///
/// # Safety
/// The CPU feature of `V` must be present. Call it only from a function compiled
/// with that feature, so that this body is inlined and compiled with it.
#[inline(always)]
pub(crate) unsafe fn check<V: Vector>(
    bytes: &[u8],
    long: impl FnOnce(&[u8]) -> Option<usize>,
) -> Option<usize> {
    if bytes.len() > BLOCK {
        return long(bytes);
    }
    let len = bytes.len();
    type N1<V> = <V as Vector>::Narrow;
    type N2<V> = <N1<V> as Vector>::Narrow;
    // SAFETY (each arm): the caller guarantees the CPU feature of `V`, which
    // implies those of its narrower vectors; each `check_vectors::<W>` is called
    // with `W::BYTES <= len`, and `load_prefix` reads only `bytes`.
    unsafe {
        if len >= V::BYTES {
            check_vectors::<V>(bytes)
        } else if len >= N1::<V>::BYTES {
            check_vectors::<N1<V>>(bytes)
        } else if len >= N2::<V>::BYTES {
            check_vectors::<N2<V>>(bytes)
        } else if let Some(this) = V::load_prefix(bytes) {
            // Shorter than the narrowest vector, loaded zero-padded (AVX-512).
            match check_short(this) {
                // A whole vector has no zero after it: check its end here.
                None if ends_inside_sequence(bytes) => Some(len),
                result => result,
            }
        } else {
            crate::scalar::first_error(bytes)
        }
    }
}

/// [`check`] for inputs longer than one block. Each back end compiles it into a
/// function of its own that [`check`] calls (`long`), so that short inputs do not
/// pay for its set-up (saved registers, constants).
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() > BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(crate) unsafe fn check_long<V: Vector>(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY (for the whole body): the caller guarantees the CPU feature. Every
    // `V::load(p)` below reads `p..p + BYTES` where the comment at the load shows
    // that range is inside `bytes`.
    unsafe {
        // Leading ASCII, the common case of protocol text: a load pair and a branch
        // per block, and nothing else set up. Long inputs move to 64-byte aligned
        // blocks after the first (a load that straddles two cache lines costs
        // twice as much); the second block may then overlap the first by up to 63
        // bytes, which are checked twice. No byte is skipped. In shorter inputs the
        // overlap would cost more than the straddling loads save.
        // The block after the first: aligned in long inputs, unless the aligned
        // address is 1 or 2 bytes into the input, where the three bytes before the
        // block would start before the input.
        let second = match next_block(start, 0) {
            aligned if len >= ALIGN_FROM && aligned >= 3 => aligned,
            _ => BLOCK,
        };
        let mut at = 0;
        // In bounds: BLOCK < len.
        if is_ascii::<V>(start, 1) {
            at = skip_ascii::<V>(bytes, second);
            // In bounds: BLOCK < len.
            if at + BLOCK > len && is_ascii::<V>(start.add(len - BLOCK), 1) {
                return None;
            }
        }

        let k = Constants::<V>::new();
        // `after_non_ascii`: the block before `at` had non-ASCII bytes, so it may
        // end inside a sequence.
        let mut after_non_ascii = false;
        if at == 0 {
            // The first block, with the bytes before it taken as ASCII (the start
            // of the input is a character boundary).
            if first_block_errors(&k, start).any_nonzero() {
                return Some(0);
            }
            after_non_ascii = true;
            at = second;
        }

        // Whole blocks. Before `at` every check has passed, except within a run of
        // non-ASCII blocks, whose error lanes gather in `error`.
        let mut error = V::splat(0);
        while at + BLOCK <= len {
            // In bounds: at + BLOCK <= len.
            if is_ascii::<V>(start.add(at), 1) {
                // An ASCII block is wrong only if the block before it ended inside a
                // sequence.
                if after_non_ascii && ends_inside_sequence(&bytes[..at]) {
                    return Some(at);
                }
                after_non_ascii = false;
                at = skip_ascii::<V>(bytes, at + BLOCK);
                continue;
            }
            // A run of up to GROUP non-ASCII blocks, cut short by an ASCII block or
            // the end, then one test of the gathered error lanes (testing them per
            // block costs a few percent). An error is reported at the start of the
            // run, and `locate` finds it within the run. The run starts in the
            // cheapest tier its first block allows and moves up when a block needs
            // more; separate loops per tier, not a branch per block between the
            // checks, kept the 16-instruction loop as fast as before (BENCHMARKS.md).
            let run = at;
            let last = at + (GROUP - 1) * BLOCK;
            let mut tier = tier_of(&k, window_max::<V>(start.add(at)));
            if tier == PAIRS {
                tier = match run_in_tier::<V, PAIRS>(&k, bytes, &mut at, last, &mut error) {
                    Some(most) => tier_of(&k, most),
                    None => RUN_ENDED,
                };
            }
            if tier == NO_FOUR_BYTE {
                tier = match run_in_tier::<V, NO_FOUR_BYTE>(&k, bytes, &mut at, last, &mut error) {
                    Some(_) => FULL,
                    None => RUN_ENDED,
                };
            }
            if tier == FULL {
                run_in_tier::<V, FULL>(&k, bytes, &mut at, last, &mut error);
            }
            if error.any_nonzero() {
                return Some(run);
            }
            after_non_ascii = true;
        }

        // The tail: the bytes after the last whole block (fewer than 64), checked as
        // one more block over the last 64 bytes of the input, which overlaps bytes
        // already checked (the first block covers 0..64 even when `at` is below).
        if at.max(BLOCK) < len {
            let from = len - BLOCK;
            // In bounds: from + BLOCK = len.
            if is_ascii::<V>(start.add(from), 1) {
                if ends_inside_sequence(&bytes[..from]) {
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
                // the scalar machine checks the last bytes from a boundary.
                let from = boundary_at_or_before(bytes, BLOCK);
                if crate::scalar::first_error(&bytes[from..]).is_some() {
                    return Some(from);
                }
            }
        }
    }
    if ends_inside_sequence(bytes) {
        return Some(len);
    }
    None
}

/// [`check`] for `V::BYTES <= bytes.len() <= BLOCK`, when the vector cannot be
/// loaded zero-padded: whole vectors from the start, then one vector that ends
/// at the end of the input and overlaps bytes already checked. An error is
/// reported at 0 (`locate` finds it within these few bytes).
///
/// # Safety
/// The CPU feature of `V` must be present, and `V::BYTES <= bytes.len()`.
#[inline(always)]
unsafe fn check_vectors<V: Vector>(bytes: &[u8]) -> Option<usize> {
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
        let mut error = errors(
            &k,
            first,
            first.prev1(zero),
            first.prev2(zero),
            first.prev3(zero),
        );
        let mut at = V::BYTES;
        while at + V::BYTES <= len {
            // In bounds: at >= BYTES > 3 and at + BYTES <= len.
            error = error.or(vector_errors::<V, FULL>(&k, p.add(at)));
            at += V::BYTES;
        }
        if at < len {
            let from = len - V::BYTES;
            if from >= 3 {
                // In bounds: from >= 3 and from + BYTES = len.
                error = error.or(vector_errors::<V, FULL>(&k, p.add(from)));
            } else if crate::scalar::first_error(&bytes[boundary_at_or_before(bytes, at)..])
                .is_some()
            {
                // One or two bytes after the first vector: the scalar machine.
                return Some(0);
            }
        }
        // The input must not end inside a sequence. In bounds: BYTES <= len.
        let end = V::load(p.add(len - V::BYTES)).saturating_sub(V::load(
            INCOMPLETE_LIMITS
                .as_ptr()
                .add(INCOMPLETE_LIMITS.len() - V::BYTES),
        ));
        error.or(end).any_nonzero().then_some(0)
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

/// The error lanes of the vector at `q` in `TIER` (see [`errors_in`]), reading
/// the three bytes before it from memory.
///
/// # Safety
/// `q - 3..q + BYTES` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn vector_errors<V: Vector, const TIER: u8>(k: &Constants<V>, q: *const u8) -> V {
    // SAFETY: the loads read within `q - 3..q + BYTES`, readable by the contract;
    // the caller guarantees the CPU feature. A load whose value `TIER` does not use
    // is never made.
    unsafe {
        errors_in::<V, TIER>(
            k,
            V::load(q),
            V::load(q.sub(1)),
            V::load(q.sub(2)),
            V::load(q.sub(3)),
        )
    }
}

/// Tiers of the check, by the largest byte of a block and the three bytes before
/// it: which leads the block can hold decides which parts of [`errors`] can ever
/// be non-zero, and the cheaper tiers leave out the parts that cannot.
///
/// No byte E0-FF: no byte has to be the third or fourth of a sequence, so the
/// pair flags are the whole answer (two continuation bytes in a row are then
/// always an error).
const PAIRS: u8 = 0;
/// No byte F0-FF: no byte has to be the fourth of a sequence.
const NO_FOUR_BYTE: u8 = 1;
/// Any bytes: the whole check.
const FULL: u8 = 2;
/// Not a tier: the run of blocks has ended.
const RUN_ENDED: u8 = 3;

/// The tier of a block (and the three bytes before it) whose lane-wise maximum
/// is `most`.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn tier_of<V: Vector>(k: &Constants<V>, most: V) -> u8 {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        if fits_tier::<V, PAIRS>(k, most) {
            PAIRS
        } else if fits_tier::<V, NO_FOUR_BYTE>(k, most) {
            NO_FOUR_BYTE
        } else {
            FULL
        }
    }
}

/// True iff no lane of `most` holds a byte that `TIER` leaves out.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn fits_tier<V: Vector, const TIER: u8>(k: &Constants<V>, most: V) -> bool {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        match TIER {
            // Bit 7 of `b - 0x60` (saturating) is set iff b >= 0xE0.
            PAIRS => !most.saturating_sub(k.third_bias).any_high_bit(),
            // Bit 7 of `b - 0x70` (saturating) is set iff b >= 0xF0.
            NO_FOUR_BYTE => !most.saturating_sub(k.fourth_bias).any_high_bit(),
            _ => true,
        }
    }
}

/// The lane-wise maximum of `q - 3..q + BLOCK`: the block at `q` and the three
/// bytes before it, for [`tier_of`].
///
/// # Safety
/// `q - 3..q + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn window_max<V: Vector>(q: *const u8) -> V {
    // SAFETY: the loads read `q - 3 + i * BYTES..q - 3 + (i + 1) * BYTES` for
    // `i < BLOCK / BYTES` and `q + BLOCK - BYTES..q + BLOCK`, all inside
    // `q - 3..q + BLOCK`; the caller guarantees the CPU feature.
    unsafe {
        let from = q.sub(3);
        let mut most = V::load(from);
        for i in 1..BLOCK / V::BYTES {
            most = most.max(V::load(from.add(i * V::BYTES)));
        }
        most.max(V::load(q.add(BLOCK - V::BYTES)))
    }
}

/// Checks the non-ASCII blocks from `*at` in `TIER` into `error`, up to the
/// block at `last`, the end of the whole blocks, or an ASCII block (then `None`),
/// or up to a block that does not fit `TIER`: then `Some` of its lane-wise
/// maximum, with `*at` at that block. The block at `*at` and the three bytes
/// before it must fit `TIER`.
///
/// # Safety
/// `*at >= 3` and `*at + BLOCK <= bytes.len()`; the CPU feature of `V` must be
/// present.
#[inline(always)]
unsafe fn run_in_tier<V: Vector, const TIER: u8>(
    k: &Constants<V>,
    bytes: &[u8],
    at: &mut usize,
    last: usize,
    error: &mut V,
) -> Option<V> {
    let len = bytes.len();
    let start = bytes.as_ptr();
    // SAFETY: `block_errors` reads `*at - 3..*at + BLOCK`, inside `bytes` by
    // the contract and by the test before the next block; `block_max` reads
    // `*at..*at + BLOCK` after that test; the caller guarantees the CPU feature.
    unsafe {
        loop {
            V::prefetch(start.wrapping_add(*at + PREFETCH_DISTANCE));
            *error = error.or(block_errors::<V, TIER>(k, start.add(*at)));
            *at += BLOCK;
            if *at > last || *at + BLOCK > len {
                return None;
            }
            let most = block_max::<V>(start.add(*at));
            if !most.any_high_bit() {
                return None;
            }
            // The block before it fitted TIER, so its last three bytes do.
            if !fits_tier::<V, TIER>(k, most) {
                return Some(most);
            }
        }
    }
}

/// The error lanes of `this` as [`errors`] computes them, for a vector whose
/// bytes and the three before them fit `TIER`: the parts of the check that
/// cannot be non-zero there are left out.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn errors_in<V: Vector, const TIER: u8>(
    k: &Constants<V>,
    this: V,
    prev1: V,
    prev2: V,
    prev3: V,
) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        match TIER {
            // No 3- or 4-byte lead two or three back: "needs a continuation" is
            // zero in every lane.
            PAIRS => pair_flag_lanes(k, this, prev1),
            // No 4-byte lead three back: its part of "needs" is zero.
            NO_FOUR_BYTE => prev2
                .saturating_sub(k.third_bias)
                .and(k.high_bit)
                .xor(pair_flag_lanes(k, this, prev1)),
            _ => errors(k, this, prev1, prev2, prev3),
        }
    }
}

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
            error = error.or(errors(
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

/// The error lanes of the block at `p` in `TIER` (see [`errors_in`]), reading the
/// three bytes before each vector from memory.
///
/// # Safety
/// `p - 3..p + BLOCK` must be readable; the CPU feature of `V` must be present.
#[inline(always)]
unsafe fn block_errors<V: Vector, const TIER: u8>(k: &Constants<V>, p: *const u8) -> V {
    // SAFETY: each `vector_errors` reads within `q - 3..q + BYTES` for `q` in
    // `p..p + BLOCK` (step BYTES), inside `p - 3..p + BLOCK`; the caller guarantees
    // the CPU feature.
    unsafe {
        let mut error = V::splat(0);
        for i in 0..BLOCK / V::BYTES {
            error = error.or(vector_errors::<V, TIER>(k, p.add(i * V::BYTES)));
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
    use crate::state_machine::{byte_class, next_state, State};

    /// The non-error states.
    const LIVE: [State; 8] = [
        State::Start,
        State::A,
        State::B,
        State::C,
        State::D,
        State::E,
        State::F,
        State::G,
    ];

    /// The tables flag exactly the pairs the draft's machine rejects wherever they
    /// occur, and bit 7 marks exactly the continuation-continuation pairs.
    #[test]
    fn pair_tables_agree_with_the_draft_machine() {
        for prev in 0..=255u8 {
            for this in 0..=255u8 {
                let flags = pair_flags(prev, this);
                let both_cont = is_continuation(prev) && is_continuation(this);
                assert_eq!(
                    flags & TWO_CONTINUATIONS != 0,
                    both_cont,
                    "{prev:02X} {this:02X}"
                );
                let possible = if byte_class(this) == 4 {
                    // C0, C1, F5-FF are rejected when they become `prev`; here the
                    // pair is only wrong if `prev` leaves the machine mid-sequence.
                    LIVE.iter().any(|&s| next_state(s, prev) == State::Start)
                } else {
                    LIVE.iter().any(|&s| {
                        let t = next_state(s, prev);
                        t != State::Error && next_state(t, this) != State::Error
                    })
                };
                assert_eq!(
                    flags & !TWO_CONTINUATIONS == 0,
                    possible,
                    "{prev:02X} {this:02X}"
                );
            }
        }
    }

    #[test]
    fn lead_biases_mark_exactly_the_needed_leads() {
        for b in 0..=255u8 {
            assert_eq!(b.saturating_sub(THIRD_BYTE_BIAS) & 0x80 != 0, b >= 0xE0);
            assert_eq!(b.saturating_sub(FOURTH_BYTE_BIAS) & 0x80 != 0, b >= 0xF0);
        }
    }

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
