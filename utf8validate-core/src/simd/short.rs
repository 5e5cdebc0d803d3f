//! Inputs of at most one block ([`check`]), and whole inputs of a few vectors
//! ([`check_vectors`], also used by [`super::medium`] for inputs of a few blocks).

use super::answer::Answer;
use super::rules::{ends_inside_lanes, errors, Constants, FULL};
use super::tiers::{vector_errors, vector_errors_after};
use super::vector::{Vector, BLOCK};
use crate::hint::cold_path;

/// Validates `bytes`, answering as `A` ([`Answer`]): the verdict, or the offset of
/// the first error (`bytes.len()` when there is none). An input of at most one
/// block is one zero-padded vector where the instruction set can load that
/// (AVX-512), else overlapping vectors, else (shorter than the narrowest vector)
/// the scalar machine. A longer
/// input goes to `long`, the back end's `validate_long` or `first_error_long` (the
/// generic [`super::long::check_long`]), which its `validate` and `first_error` reach by
/// a jump, out of line, so that short inputs do not share its code.
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
        } else if let Some(this) = V::load_prefix(bytes) {
            // Shorter than a vector, loaded zero-padded (AVX-512): one vector and
            // one path for every length, and the zeros after the input cut short
            // a sequence its end cuts short.
            match check_short(this) {
                None => A::valid(len),
                Some(passed) => A::invalid(bytes, passed),
            }
        } else if len >= N1::<V>::BYTES {
            check_vectors::<N1<V>, A>(bytes)
        } else if len >= N2::<V>::BYTES {
            check_vectors::<N2<V>, A>(bytes)
        } else {
            A::scalar(bytes)
        }
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
    unsafe { check_short_after(V::splat(0), this) }
}

/// [`check_short`] with `before` the vector before `this` (see
/// [`check_vectors_after`]).
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
unsafe fn check_short_after<V: Vector>(before: V, this: V) -> Option<usize> {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        if this.or(before).any_high_bit() && short_errors_after(before, this).any_nonzero() {
            Some(0)
        } else {
            None
        }
    }
}

/// The error lanes of `this`, with `before` the vector before it: non-zero where a
/// byte cannot follow the three before it.
///
/// # Safety
/// The CPU feature of `V` must be present.
#[inline(always)]
pub(super) unsafe fn short_errors_after<V: Vector>(before: V, this: V) -> V {
    // SAFETY: the caller guarantees the CPU feature.
    unsafe {
        let k = Constants::<V>::new();
        vector_errors_after(&k, before, this)
    }
}

/// [`check`] for `V::BYTES <= bytes.len()`, when the vector cannot be loaded
/// zero-padded: whole vectors from the start (the bytes before each taken from the
/// vector before it or loaded again, as [`Vector::PREV_BY_SHUFFLE`] says), then one
/// vector that ends at the end of the input (overlapping bytes already checked,
/// unless the length is a multiple of `BYTES`), and one test of the gathered error
/// lanes. The last vector is always
/// the one that ends at the end, even when a whole vector would fit there: one
/// code path instead of two, and fewer instructions per call at every length. An
/// error is reported as found after offset 0:
/// [`crate::scalar::first_error_from_boundary`] finds it within these few bytes (up
/// to [`BLOCK`]); for longer inputs (up to `medium::MEDIUM`) the caller asks only for
/// the verdict and finds the block first.
///
/// # Safety
/// The CPU feature of `V` must be present, and `V::BYTES <= bytes.len()`.
#[inline(always)]
pub(super) unsafe fn check_vectors<V: Vector, A: Answer>(bytes: &[u8]) -> A {
    // SAFETY: as the caller guarantees.
    unsafe { check_vectors_after::<V, A, false>(V::splat(0), bytes) }
}

/// [`check_vectors`] with `before` the vector before `bytes` (of which only the
/// last three lanes count): zeros, or a lead byte in the last lane for the
/// chunk of an input that went before (see `super::chunk`). With `OPEN`, an input
/// that ends inside a sequence passes: the end is left open for the next chunk.
///
/// # Safety
/// As for [`check_vectors`].
#[inline(always)]
pub(super) unsafe fn check_vectors_after<V: Vector, A: Answer, const OPEN: bool>(
    before: V,
    bytes: &[u8],
) -> A {
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
        if error.any_nonzero() {
            A::invalid(bytes, 0)
        } else {
            A::valid(len)
        }
    }
}
