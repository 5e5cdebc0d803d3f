//! The plain check: inputs (and chunks) of at most four blocks, checked
//! straight through with no set-up, and one test of the gathered error lanes at
//! the end. Up to one block: plain vectors ([`check_vectors`]), or one zero-padded
//! vector ([`check_short`]); up to [`MEDIUM`]: plain vectors, or block by block
//! after an ASCII first block ([`check_medium`]). Longer inputs take the tiered
//! loop (`super::tiers`), whose set-up costs more than it saves on so few blocks.

use super::rules::before;
use super::rules::{
    block_errors, block_errors_after, block_max, ends_inside_lanes, errors, failing_block,
    inner_block_errors, is_ascii, vector_errors, vector_errors_after, Constants, FULL,
};
use super::vector::Vector;
use crate::answer::Answer;
use crate::chunk::{checked_chunk_state, ChunkEnd};
use crate::hint::cold_path;
use crate::sequence::open_state;
use crate::sizes::{BLOCK, CHUNK_FROM, MEDIUM};
use crate::state_machine::State;

/// True iff an input of at most one vector, loaded zero-padded in `this`,
/// passes: the zeros after a shorter input are ASCII, so a sequence cut short by
/// its end is caught like one cut short by ASCII.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn check_short<V: Vector>(this: V) -> bool {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe { !(this.any_high_bit() && short_errors_after(V::splat(0), this).any_nonzero()) }
}

/// The error lanes of `this`, with `before` the vector before it: non-zero where a
/// byte cannot follow the three before it.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn short_errors_after<V: Vector>(before: V, this: V) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        let k = Constants::<V>::new();
        vector_errors_after(&k, before, this)
    }
}

/// True iff `bytes` (`V::BYTES <= bytes.len()`) passes, checked as plain vectors
/// (when the vector cannot be loaded zero-padded): whole vectors from the start
/// (the bytes before each taken from the vector before it or loaded again, as
/// [`Vector::PREV_BY_SHUFFLE`] says), then one vector that ends at the end of the
/// input (overlapping bytes already checked, unless the length is a multiple of
/// `BYTES`), and one test of the gathered error lanes. The last vector is always
/// the one that ends at the end, even when a whole vector would fit there: one
/// code path instead of two, and fewer instructions per call at every length. On
/// `false`, the caller reports the error as found after offset 0:
/// [`crate::scalar::first_error_from_boundary`] finds it within these few bytes (up
/// to [`BLOCK`]); for longer inputs (up to [`MEDIUM`]) the caller asks only for
/// the verdict and finds the block first.
///
/// # Safety
/// The CPU feature of `V` must be present, and `V::BYTES <= bytes.len()`.
#[inline(always)]
unsafe fn check_vectors<V: Vector>(bytes: &[u8]) -> bool {
    // SAFETY: as the caller guarantees.
    unsafe { check_vectors_after::<V, false>(V::splat(0), bytes) }
}

/// [`check_vectors`] with `before` the vector before `bytes` (of which only the
/// last three lanes count): zeros, or a lead byte in the last lane for the
/// chunk of an input that went before (see [`chunk_block`]). With `OPEN`, an input
/// that ends inside a sequence passes: the end is left open for the next chunk.
///
/// # Safety
/// As for [`check_vectors`].
#[inline(always)]
unsafe fn check_vectors_after<V: Vector, const OPEN: bool>(before: V, bytes: &[u8]) -> bool {
    let len = bytes.len();
    let p = bytes.as_ptr();
    // SAFETY: the caller guarantees the CPU feature and `BYTES <= len`; each load
    // reads `q..q + BYTES` with `q + BYTES <= len` (or `q - 1..q - 3` with `q >= 3`),
    // as the comments at the loads show.
    unsafe {
        // In bounds: BYTES <= len.
        let first = V::load(p);
        let k = Constants::<V>::new();
        let mut error = vector_errors_after(&k, before, first);
        let mut at = V::BYTES;
        let mut prev = first;
        while at + V::BYTES < len {
            // In bounds: at >= BYTES > 3 and at + BYTES < len.
            if V::PREV_BY_SHUFFLE {
                let this = V::load(p.add(at));
                error = error.or(vector_errors_after(&k, prev, this));
                prev = this;
            } else {
                error = error.or(vector_errors::<V, FULL>(&k, p.add(at)));
            }
            at += V::BYTES;
        }
        if at < len {
            let from = len - V::BYTES;
            if from < 3 {
                // One or two bytes after the first vector (the loop did not run):
                // the last vector's bytes one to three back start before the
                // input, in `before`, and are the first vector's own, shifted.
                // In bounds: from is 1 or 2 and from + BYTES = len.
                cold_path();
                let (this, back1, back2, back3) = if from == 2 {
                    (
                        V::load(p.add(2)),
                        V::load(p.add(1)),
                        first,
                        first.prev1(before),
                    )
                } else {
                    (
                        V::load(p.add(1)),
                        first,
                        first.prev1(before),
                        first.prev2(before),
                    )
                };
                error = error.or(errors::<V, FULL>(&k, this, back1, back2, back3));
            } else {
                // In bounds: from >= 3 and from + BYTES = len.
                error = error.or(vector_errors::<V, FULL>(&k, p.add(from)));
            }
        }
        // The input must not end inside a sequence, unless the end is open. In
        // bounds: BYTES <= len.
        if !OPEN {
            error = error.or(ends_inside_lanes(p.add(len - V::BYTES)));
        }
        !error.any_nonzero()
    }
}

/// True iff `before` followed by `bytes` (`BLOCK < bytes.len() <= MEDIUM`) passes
/// the vector check; on `false` the caller finds the error.
///
/// The first block decides how. Text whose first block is not all ASCII is
/// mostly not ASCII: the input is checked with plain vectors
/// ([`check_vectors_after`]), one chain of work without a branch per block.
/// Otherwise one test of the other blocks answers an input that is all ASCII;
/// else (but for 65 or 66 bytes, which take plain vectors too) they are taken one
/// by one, the whole blocks from the start and then one that ends at the end of the
/// input (overlapping the one before unless the length is a multiple of `BLOCK`):
/// an ASCII block costs its test, plus one more after a block that is not ASCII
/// (whether that block ends inside a sequence), and any other block the full check.
/// The gathered error lanes are tested once.
///
/// Why not a test of every block, as the tiered loop makes: it costs text without
/// ASCII blocks a test and a branch per block, and where inputs vary from call to
/// call (windows of Wikipedia text, one per call) it wins nothing on mostly-ASCII
/// text either, as its branches are not learnt.
///
/// `before` is the vector before the input: zeros, or the carried sequence's lead
/// byte in its last lane for a chunk of data ([`chunk_medium`]). With
/// `OPEN`, an input that ends inside a sequence passes.
///
/// # Safety
/// The CPU feature of `V` must be present, and `BLOCK < bytes.len() <= MEDIUM`.
/// Call it only from a function compiled with that feature, so that this body is
/// inlined and compiled with it.
#[inline(always)]
unsafe fn check_medium<V: Vector, const OPEN: bool>(before: V, bytes: &[u8]) -> bool {
    let len = bytes.len();
    let p = bytes.as_ptr();
    // The offset of the last block: 1 to MEDIUM - BLOCK.
    let last = len - BLOCK;
    // SAFETY (for the whole body): the caller guarantees the CPU feature and
    // `BLOCK < len`. Each block read is `q..q + BLOCK` with `q <= last`, and the
    // bytes before it as the comments at the reads say.
    unsafe {
        if !is_ascii::<V>(p, 1) {
            return check_vectors_after::<V, OPEN>(before, bytes);
        }
        let rest = block_max::<V>(p.add(BLOCK.min(last)))
            .max(block_max::<V>(p.add((2 * BLOCK).min(last))))
            .max(block_max::<V>(p.add(last)));
        if !rest.any_high_bit() {
            // All ASCII: wrong only right after a carried lead byte, which
            // `before` holds when there is one.
            return !before.any_nonzero();
        }
        if last < 3 {
            // 65 or 66 bytes: the block at `last` starts inside the first, too
            // close to its start to take the three bytes before it from memory.
            // Plain vectors take them from the vector before.
            return check_vectors_after::<V, OPEN>(before, bytes);
        }
        let k = Constants::<V>::new();
        // ASCII right after a carried lead byte is an error.
        let mut error = before;
        // Whether the block before the one at `at` is all ASCII.
        let mut after_ascii = true;
        let mut at = BLOCK;
        // The whole blocks before the last: at most two more (a loop LLVM unrolls).
        for _ in 0..MEDIUM / BLOCK - 2 {
            if at >= last {
                break;
            }
            if !is_ascii::<V>(p.add(at), 1) {
                error = error.or(inner_block_errors(&k, p.add(at)));
                after_ascii = false;
            } else if !after_ascii {
                // In bounds: at >= BLOCK >= BYTES.
                error = error.or(ends_inside_lanes(p.add(at - V::BYTES)));
                after_ascii = true;
            }
            at += BLOCK;
        }
        // The last block, at `last <= at`.
        if !is_ascii::<V>(p.add(last), 1) {
            // In bounds: last >= 3.
            error = error.or(block_errors::<V, FULL>(&k, p.add(last)));
            if !OPEN {
                // In bounds: BYTES <= len.
                error = error.or(ends_inside_lanes(p.add(len - V::BYTES)));
            }
        } else if at == last && !after_ascii {
            // Bytes before `last` that end inside a sequence are cut short by
            // this block's ASCII, which the block before caught if it overlaps
            // this one; if not, and it is not ASCII, its end is checked here. In
            // bounds: at = last >= BLOCK.
            error = error.or(ends_inside_lanes(p.add(at - V::BYTES)));
        }
        !error.any_nonzero()
    }
}

/// After [`check_medium`] failed on a whole input `bytes` (`BLOCK < bytes.len() <=
/// MEDIUM`): the offset of its first block whose error lanes are not all zero, or
/// of its last block when none before it has any (the error is then in that block,
/// or the input ends inside a sequence): the first block here, the others by the
/// tiered loop's [`failing_block`]. Every check before that offset passed: the
/// answer's scalar machine starts from the last character boundary before it
/// (`crate::answer::Answer::invalid`). A block, not the failing lane: the offset then comes
/// from a branch, which the processor predicts and runs ahead of, not from the
/// lanes' values, which the scalar machine would have to wait for. Only called on
/// invalid input; pure, so that a verdict alone (which needs no offset) leaves it
/// out.
///
/// # Safety
/// As for [`check_medium`].
#[inline(always)]
unsafe fn failing_medium_block<V: Vector>(bytes: &[u8]) -> usize {
    let p = bytes.as_ptr();
    // SAFETY: the caller guarantees the CPU feature; the first block is `p..p +
    // BLOCK`, and the blocks from `BLOCK` (>= 3) on lie inside `bytes`.
    unsafe {
        let k = Constants::<V>::new();
        if block_errors_after(&k, p, V::splat(0)).any_nonzero() {
            return 0;
        }
        failing_block(&k, p, BLOCK, bytes.len())
    }
}

// The workers of the ladder's two middle rungs (`crate::ladder`), each compiled
// into a back end's entry by `crate::ladder::back_end!`: a whole input or a chunk
// of at most one block ([`block`], [`chunk_block`]), and of at most four
// ([`medium`], [`chunk_medium`]).

/// The answer `A` for a whole input of at most one block: one zero-padded vector
/// where the instruction set can load that (AVX-512), else overlapping vectors of
/// the widest type that fits, else (shorter than the narrowest vector) the scalar
/// machine.
///
/// # Safety
/// The CPU feature of `V` must be present and `bytes.len() <= BLOCK`. Call it only
/// from a function compiled with that feature, so that this body is inlined and
/// compiled with it.
#[inline(always)]
pub(crate) unsafe fn block<V: Vector, A: Answer>(bytes: &[u8]) -> A {
    let len = bytes.len();
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(len <= BLOCK) };
    type N1<V> = <V as Vector>::Narrow;
    type N2<V> = <N1<V> as Vector>::Narrow;
    // SAFETY (each arm): the caller guarantees the CPU feature of `V`, which
    // implies those of its narrower vectors; each `check_vectors::<W>` is called
    // with `W::BYTES <= len`, and `load_prefix` reads only `bytes`.
    unsafe {
        if len >= V::BYTES {
            A::of(check_vectors::<V>(bytes), bytes)
        } else if let Some(this) = V::load_prefix(bytes) {
            // Shorter than a vector, loaded zero-padded (AVX-512): one vector and
            // one path for every length, and the zeros after the input cut short
            // a sequence its end cuts short.
            A::of(check_short(this), bytes)
        } else if len >= N1::<V>::BYTES {
            A::of(check_vectors::<N1<V>>(bytes), bytes)
        } else if len >= N2::<V>::BYTES {
            A::of(check_vectors::<N2<V>>(bytes), bytes)
        } else {
            A::scalar(bytes)
        }
    }
}

/// The answer `A` for a whole input of more than one block and at most
/// [`MEDIUM`] bytes, by [`check_medium`]; on an error, the block it is in by
/// [`failing_medium_block`], for the offset.
///
/// # Safety
/// The CPU feature of `V` must be present and `BLOCK < bytes.len() <= MEDIUM`.
/// Call it only from a function compiled with that feature.
#[inline(always)]
pub(crate) unsafe fn medium<V: Vector, A: Answer>(bytes: &[u8]) -> A {
    // SAFETY: the caller guarantees the CPU feature and the length.
    unsafe {
        core::hint::assert_unchecked(BLOCK < bytes.len() && bytes.len() <= MEDIUM);
        if check_medium::<V, false>(V::splat(0), bytes) {
            A::valid(bytes.len())
        } else if A::OFFSET {
            A::invalid(bytes, failing_medium_block::<V>(bytes))
        } else {
            A::invalid(bytes, 0)
        }
    }
}

/// The state after `state` (not ERROR) followed by `bytes`, a chunk of
/// `crate::sizes::CHUNK_FROM` to [`BLOCK`] bytes, handed to `end`: one check of
/// overlapping vectors from the carried state's lead byte, the end left open
/// ([`chunk_vectors`]), as `crate::chunk::checked_chunk_state` answers it; the
/// scalar machine's answer where the chunk is too short for a vector of `V`.
///
/// # Safety
/// The CPU feature of `V` must be present, and `CHUNK_FROM <= bytes.len() <=
/// BLOCK`. Call it only from a function compiled with that feature.
#[inline(always)]
pub(crate) unsafe fn chunk_block<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(CHUNK_FROM <= bytes.len() && bytes.len() <= BLOCK) };
    let last = open_state(bytes);
    // SAFETY: the caller guarantees the CPU feature; `bytes` is at most one block.
    match unsafe { chunk_vectors::<V>(state, bytes) } {
        Some(passed) => end.end(bytes, checked_chunk_state(last, passed)),
        // SAFETY: the caller guarantees the state and the length.
        None => unsafe { end.scalar(state, bytes) },
    }
}

/// The state after `state` (not ERROR) followed by `bytes`, a chunk of more than
/// one block and at most [`MEDIUM`] bytes, handed to `end`: [`check_medium`] as for
/// a whole input, but with the carried state's lead byte before the first block
/// and the end left open.
///
/// # Safety
/// The CPU feature of `V` must be present, `state` is not ERROR, and `BLOCK <
/// bytes.len() <= MEDIUM`. Call it only from a function compiled with that feature.
#[inline(always)]
pub(crate) unsafe fn chunk_medium<V: Vector, E: ChunkEnd>(
    state: State,
    bytes: &[u8],
    end: E,
) -> E::Output {
    // SAFETY: the caller guarantees the length.
    unsafe { core::hint::assert_unchecked(BLOCK < bytes.len() && bytes.len() <= MEDIUM) };
    let last = open_state(bytes);
    // SAFETY: the caller guarantees the CPU feature and the length.
    let passed = unsafe { check_medium::<V, true>(before::<V>(state), bytes) };
    end.end(bytes, checked_chunk_state(last, passed))
}

/// Whether `state` (not ERROR) followed by `bytes` (at most one block) holds
/// nothing ill-formed, the end aside (`bytes` may end inside a sequence), by one
/// vector check; `None` for a chunk shorter than the narrowest vector that `V`
/// cannot load zero-padded, which the caller leaves to the scalar machine.
///
/// # Safety
/// The CPU feature of `V` must be present, and `bytes.len() <= BLOCK`.
#[inline(always)]
#[allow(
    clippy::manual_map,
    reason = "a closure can be left out of line, compiled without the back end's target feature"
)]
unsafe fn chunk_vectors<V: Vector>(state: State, bytes: &[u8]) -> Option<bool> {
    let len = bytes.len();
    type N1<V> = <V as Vector>::Narrow;
    type N2<V> = <N1<V> as Vector>::Narrow;
    // SAFETY (each arm): the caller guarantees the CPU feature of `V`, which
    // implies those of its narrower vectors; each `check_vectors_after::<W>` is
    // called with `W::BYTES <= len`, and `load_prefix` reads only `bytes`.
    unsafe {
        if len >= V::BYTES {
            Some(check_vectors_after::<V, true>(before::<V>(state), bytes))
        } else if len >= N1::<V>::BYTES {
            Some(check_vectors_after::<N1<V>, true>(
                before::<N1<V>>(state),
                bytes,
            ))
        } else if len >= N2::<V>::BYTES {
            Some(check_vectors_after::<N2<V>, true>(
                before::<N2<V>>(state),
                bytes,
            ))
        } else if let Some(this) = V::load_prefix(bytes) {
            // Zero-padded: a sequence the chunk leaves open is cut short by a zero,
            // which marks the lane after the chunk; only the chunk's lanes count.
            Some(!short_errors_after(before::<V>(state), this).any_nonzero_in_prefix(len))
        } else {
            None
        }
    }
}
