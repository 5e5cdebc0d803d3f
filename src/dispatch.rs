//! The one place where the validation entry points meet a back end.
//!
//! Every public validation function, in Rust and in C, comes through here. A back
//! end is one *check* function ([`CheckFn`]): `None` when the input is well-formed,
//! else `Some(g)` with `bytes[..g]` known to be a well-formed prefix. Around it,
//! written once for every back end:
//!
//! - inputs of at most one SIMD block ([`SHORT`]) that are all ASCII are answered
//!   inline, with no indirect call; other short inputs go to the back end, which
//!   checks them in one zero-padded masked load (AVX-512) or with the scalar machine;
//! - [`first_error`] resolves `g` to the exact offset by running the scalar machine
//!   from the last character boundary at or before `g`, so on valid input it costs
//!   exactly what [`validate`] costs;
//! - [`validate_chunk`] finishes the carried sequence with the scalar machine (at most
//!   3 bytes), checks the rest with the back end up to its last sequence, and runs the
//!   scalar machine over that last sequence (at most 4 bytes) for the final state.
//!
//! # Choosing the back end
//!
//! The best check this CPU supports is found on the first call and cached in
//! [`CHECK`], a function pointer that starts out pointing at [`detect`] (the scheme
//! of the `memchr` crate). Every later call costs one relaxed atomic load and one
//! indirect call. Threads racing through the first call all detect the same answer
//! and store the same pointer, so there is nothing to synchronise: any value a
//! thread loads is a valid function for this CPU.
//!
//! Back ends, best first: AVX-512 (F+BW+VBMI), AVX2, SSSE3 (x86-64), NEON (aarch64), the
//! scalar machine.
//!
//! # Forcing a back end (a testing aid)
//!
//! So that the C suite and the guard-page program can run on every back end, the
//! environment variable [`FORCE_VAR`] (`UTF8VALIDATE_BACKEND`) may name one: `scalar`,
//! `ssse3`, `avx2`, `avx512` or `neon`, as simdutf's `SIMDUTF_FORCE_IMPLEMENTATION`
//! does. When it names a back end this CPU supports, [`detect`] picks that one instead
//! of the best; when it is unset, empty, unknown or names a back end this CPU cannot
//! run, the choice is the usual one. It is read once, on the first call (the
//! first call of a process, or each of the threads racing through it, which all read
//! the same environment), never again: setting it later changes nothing. It is not
//! meant for production use. Reading it allocates only when it is set (`std::env::var_os`
//! looks the name up through a stack buffer and copies the value only when there is
//! one), and once per process at most.

use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use crate::scalar;
use crate::simd;
use crate::state_machine::State;

/// A back end's whole-buffer check; see the module docs and [`crate::simd::check`].
///
/// Calling one is `unsafe`: the CPU must support the back end's instruction set.
type CheckFn = unsafe fn(&[u8]) -> Option<usize>;

/// Inputs up to this long are first tried as all-ASCII, inline: one SIMD block.
const SHORT: usize = simd::BLOCK;

/// True iff `bytes` is at most [`SHORT`] bytes long and all ASCII: the inline test
/// that answers short ASCII input without calling a back end.
#[inline(always)]
fn short_ascii(bytes: &[u8]) -> bool {
    bytes.len() <= SHORT && simd::is_short_ascii(bytes)
}

/// One back end: its name for tests and reports, whether this CPU can run it, and
/// its check.
struct Implementation {
    name: &'static str,
    available: fn() -> bool,
    check: CheckFn,
}

fn always() -> bool {
    true
}

/// Every back end compiled for this target, best first; the last one always runs.
const IMPLEMENTATIONS: &[Implementation] = &[
    #[cfg(target_arch = "x86_64")]
    Implementation {
        name: "avx512",
        available: simd::x86_64::avx512::available,
        check: simd::x86_64::avx512::check,
    },
    #[cfg(target_arch = "x86_64")]
    Implementation {
        name: "avx2",
        available: simd::x86_64::avx2::available,
        check: simd::x86_64::avx2::check,
    },
    #[cfg(target_arch = "x86_64")]
    Implementation {
        name: "ssse3",
        available: simd::x86_64::ssse3::available,
        check: simd::x86_64::ssse3::check,
    },
    #[cfg(target_arch = "aarch64")]
    Implementation {
        name: "neon",
        available: simd::aarch64::neon::available,
        check: simd::aarch64::neon::check,
    },
    Implementation {
        name: "scalar",
        available: always,
        check: simd::scalar_check,
    },
];

/// The environment variable that forces a back end, for tests; see the module docs.
pub(crate) const FORCE_VAR: &str = "UTF8VALIDATE_BACKEND";

/// The best back end this CPU supports.
fn best() -> &'static Implementation {
    let mut chosen = &IMPLEMENTATIONS[IMPLEMENTATIONS.len() - 1];
    for imp in IMPLEMENTATIONS.iter().rev() {
        if (imp.available)() {
            chosen = imp;
        }
    }
    chosen
}

/// The back end [`FORCE_VAR`] names, if it names one this CPU supports.
///
/// A testing aid, read by [`detect`] once per process: see the module docs. Allocates
/// only when the variable is set (`var_os` copies the value out of the environment).
fn forced() -> Option<&'static Implementation> {
    let name = std::env::var_os(FORCE_VAR)?;
    IMPLEMENTATIONS
        .iter()
        .find(|imp| name == imp.name && (imp.available)())
}

/// The back end [`detect`] caches: the one [`FORCE_VAR`] forces, else the best.
fn choose() -> (usize, &'static Implementation) {
    let chosen = forced().unwrap_or_else(best);
    let index = IMPLEMENTATIONS
        .iter()
        .position(|imp| core::ptr::eq(imp, chosen))
        .unwrap_or(usize::MAX);
    (index, chosen)
}

/// The cached check: [`detect`] until the first call, then the chosen back end.
/// Only ever holds a [`CheckFn`] that this CPU supports.
static CHECK: AtomicPtr<()> = AtomicPtr::new(detect as CheckFn as *mut ());

/// The index in [`IMPLEMENTATIONS`] of the back end [`detect`] stored in [`CHECK`]
/// (`usize::MAX` before the first call), for [`backends::selected`].
static CHOSEN: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Chooses the back end (the best one, or the one `UTF8VALIDATE_BACKEND` forces for
/// tests: see the module docs), caches it in [`CHECK`] and runs it. The variable is
/// read here, that is once, on the first call.
///
/// # Safety
/// None beyond [`CheckFn`]'s: it only calls a check that this CPU supports.
unsafe fn detect(bytes: &[u8]) -> Option<usize> {
    let (index, chosen) = choose();
    let check = chosen.check;
    CHOSEN.store(index, Ordering::Relaxed);
    CHECK.store(check as *mut (), Ordering::Relaxed);
    // SAFETY: `forced` and `best` return only back ends whose `available` said yes.
    unsafe { check(bytes) }
}

/// The cached check.
#[inline(always)]
fn current() -> CheckFn {
    let ptr = CHECK.load(Ordering::Relaxed);
    // SAFETY: `CHECK` only ever holds pointers made from `CheckFn` values (its
    // initial value and the stores in `detect`), and a function pointer round-trips
    // through `*mut ()` on every platform Rust supports.
    unsafe { core::mem::transmute::<*mut (), CheckFn>(ptr) }
}

/// True iff `bytes` is well-formed UTF-8.
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> bool {
    // SAFETY: `current` returns a check this CPU supports.
    unsafe { validate_with(bytes, current) }
}

/// Offset of the first byte of the first ill-formed sequence, `None` when valid.
#[inline]
pub(crate) fn first_error(bytes: &[u8]) -> Option<usize> {
    // SAFETY: `current` returns a check this CPU supports.
    unsafe { first_error_with(bytes, current) }
}

/// The machine's state after `bytes`, starting from `state`.
#[inline]
pub(crate) fn validate_chunk(state: State, bytes: &[u8]) -> State {
    // SAFETY: `current` returns a check this CPU supports.
    unsafe { validate_chunk_with(state, bytes, current) }
}

/// [`validate`] with the check that `check()` returns.
///
/// # Safety
/// `check` must return a check that this CPU supports.
#[inline(always)]
unsafe fn validate_with(bytes: &[u8], check: impl FnOnce() -> CheckFn) -> bool {
    if short_ascii(bytes) {
        return true;
    }
    // SAFETY: the caller guarantees the check runs on this CPU.
    unsafe { check()(bytes) }.is_none()
}

/// [`first_error`] with the check that `check()` returns.
///
/// # Safety
/// `check` must return a check that this CPU supports.
#[inline(always)]
unsafe fn first_error_with(bytes: &[u8], check: impl FnOnce() -> CheckFn) -> Option<usize> {
    if short_ascii(bytes) {
        return None;
    }
    // SAFETY: the caller guarantees the check runs on this CPU.
    let passed = unsafe { check()(bytes) }?;
    simd::first_error_from_boundary(bytes, passed)
}

/// [`validate_chunk`] with the check that `check()` returns.
///
/// # Safety
/// `check` must return a check that this CPU supports.
#[inline(always)]
unsafe fn validate_chunk_with(
    state: State,
    bytes: &[u8],
    check: impl FnOnce() -> CheckFn,
) -> State {
    let rest = match state {
        State::Error => return State::Error,
        State::Start => bytes,
        _ => {
            // Finish the carried sequence: at most 3 bytes.
            let (carried, rest) = bytes.split_at(state.pending_continuations().min(bytes.len()));
            match scalar::validate_chunk(state, carried) {
                State::Start => rest,
                // ERROR, or the input ended inside the carried sequence.
                other => return other,
            }
        }
    };
    // `rest` starts on a character boundary. Everything before its last sequence
    // must be complete, well-formed UTF-8; the last sequence (at most 4 bytes) may
    // stop short, and decides the final state.
    let (whole, last) = rest.split_at(simd::last_boundary(rest));
    // SAFETY: the caller guarantees the check runs on this CPU.
    if !unsafe { validate_with(whole, check) } {
        return State::Error;
    }
    scalar::validate_chunk(State::Start, last)
}

/// Every back end this CPU supports, one by one, for tests and benchmarks. Not part
/// of the API: users always get the best one through the crate's functions.
pub mod backends {
    use super::{CheckFn, IMPLEMENTATIONS};
    use crate::state_machine::State;
    use core::sync::atomic::Ordering;

    /// A back end that this CPU supports, with the crate's three entry points run
    /// through it (short-input path included, exactly as the crate runs them).
    #[derive(Clone, Copy, Debug)]
    pub struct Backend {
        name: &'static str,
        /// Only constructed (in [`available`]) for checks this CPU supports.
        check: CheckFn,
    }

    impl Backend {
        /// The back end's name: `avx512`, `avx2`, `ssse3`, `neon` or `scalar`.
        pub fn name(&self) -> &'static str {
            self.name
        }

        /// [`crate::validate`] through this back end.
        pub fn validate(&self, bytes: &[u8]) -> bool {
            // SAFETY: `self.check` runs on this CPU (see `available`).
            unsafe { super::validate_with(bytes, || self.check) }
        }

        /// [`crate::first_error`] through this back end.
        pub fn first_error(&self, bytes: &[u8]) -> Option<usize> {
            // SAFETY: `self.check` runs on this CPU (see `available`).
            unsafe { super::first_error_with(bytes, || self.check) }
        }

        /// [`crate::validate_chunk`] through this back end.
        pub fn validate_chunk(&self, state: State, bytes: &[u8]) -> State {
            // SAFETY: `self.check` runs on this CPU (see `available`).
            unsafe { super::validate_chunk_with(state, bytes, || self.check) }
        }
    }

    /// Every back end this CPU supports, best first (the crate uses the first).
    pub fn available() -> impl Iterator<Item = Backend> {
        IMPLEMENTATIONS
            .iter()
            .filter(|imp| (imp.available)())
            .map(|imp| Backend {
                name: imp.name,
                check: imp.check,
            })
    }

    /// The names of every back end compiled for this target, supported or not.
    pub fn compiled() -> impl Iterator<Item = &'static str> {
        IMPLEMENTATIONS.iter().map(|imp| imp.name)
    }

    /// The name of the back end the crate's functions use in this process: the one
    /// cached on the first call (the best this CPU supports, unless
    /// `UTF8VALIDATE_BACKEND` forced another; see the module docs). Makes that first
    /// call if no validation has run yet.
    pub fn selected() -> &'static str {
        if super::CHOSEN.load(Ordering::Relaxed) == usize::MAX {
            // SAFETY: `detect` only runs a check this CPU supports (on a short,
            // valid input that any check handles, as validation passes it on).
            let _ = unsafe { super::detect("\u{e9}".as_bytes()) };
        }
        IMPLEMENTATIONS
            .get(super::CHOSEN.load(Ordering::Relaxed))
            .map_or("unknown", |imp| imp.name)
    }
}
