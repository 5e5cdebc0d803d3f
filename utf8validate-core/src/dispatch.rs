//! The one place where the validation entry points meet a back end.
//!
//! Every public validation function, in Rust and in C, comes through here. A back
//! end has entry points with the C calling convention and the arguments of the C
//! functions: its verdict ([`ValidateFn`]), the offset of the first error
//! ([`FirstErrorFn`], `len` when valid), the state after a chunk of data
//! ([`ValidateChunkFn`]) and the same state handed on to the caller's data
//! ([`HandOffFn`], for the stream). The
//! C functions `utf8_validate`, `utf8_first_error`, `utf8_validate_chunk` and
//! `utf8_stream_feed` end in a jump to them (a tail call), with no saved register
//! and no conversion of the answer. Around them, written once for every back end:
//!
//! - inputs of at most one SIMD block (`crate::ascii::SHORT`) that are all ASCII
//!   are answered inline, with no indirect call (inlined into the callers of the
//!   crate's `validate` and `first_error`, in other crates too); other short inputs
//!   go to the back end, which checks them in one zero-padded masked load
//!   (AVX-512), with overlapping vectors, or (shorter than the narrowest vector)
//!   with the scalar machine;
//! - inputs shorter than [`FEW`] bytes go to the scalar machine, one shift a byte,
//!   instead of a back end: from `utf8_validate` ([`validate`]) all of them, before
//!   any ASCII test; from a Rust caller of the crate's `validate`
//!   ([`validate_in_caller`]) those that are not all ASCII, after the short-ASCII
//!   test in a shape laid out for inlining;
//! - [`first_error`] is the same check as [`validate`] up to the first error, whose
//!   exact offset the back end finds by running the scalar machine from the last
//!   character boundary before it, so on valid input it costs what [`validate`]
//!   costs;
//! - [`validate_chunk`] answers inline what needs no vector check (ERROR, chunks
//!   of 1-2 bytes, short ASCII: `crate::chunk::quick_chunk_state`) and jumps to the
//!   back end for the rest: one check of the chunk from the carried state (its lead
//!   byte taken as the byte before the chunk), the end left open, and the state the
//!   chunk ends in read off its last three bytes. The stream's `feed` answers the
//!   same chunks inline, and jumps to the back end's [`hand_off`] for the rest: the
//!   same check, then the stream's bookkeeping, compiled in from the stream's
//!   `ChunkEnd` for `crate::chunk::HandOff`; the back ends know the stream only as
//!   a pointer.
//!
//! # Choosing the back end
//!
//! The best back end this CPU supports is found on the first call and cached in
//! [`CURRENT`], a pointer to its [`Implementation`] that starts out pointing at
//! [`DETECT`], whose functions detect it (the scheme of the `memchr` crate, with a
//! table instead of one function). Every later call costs one relaxed atomic load
//! and one indirect call (or jump) through the table. Threads racing through the
//! first call all detect the same answer and store the same pointer, so there is
//! nothing to synchronise: any value a thread loads points at a back end this CPU
//! runs, or at [`DETECT`].
//!
//! Back ends, best first: AVX-512 (F+BW+VBMI), AVX2, SSSE3 (x86-64 and 32-bit x86),
//! NEON (aarch64), the scalar machine.
//!
//! # Forcing a back end (a testing aid)
//!
//! So that the C suite and the guard-page program can run on every back end, the
//! environment variable [`FORCE_VAR`] (`UTF8VALIDATE_BACKEND`) may name one: `scalar`,
//! `ssse3`, `avx2`, `avx512` or `neon`, as simdutf's `SIMDUTF_FORCE_IMPLEMENTATION`
//! does. It is read only with the cargo feature `backend-env`, which the C library
//! turns on and Rust users leave off. When it names a back end this CPU supports,
//! [`detect`] picks that one instead of the best; when it is unset, empty, unknown or
//! names a back end this CPU cannot run, the choice is the usual one. It is read
//! once, on the first call (the first call of a process, or each of the threads
//! racing through it, which all read the same environment), never again: setting it
//! later changes nothing. It is not meant for production use. It is read with the C
//! library's `getenv`, which allocates nothing.
//!
//! [`FirstErrorFn`]: crate::implementation::FirstErrorFn
//! [`HandOffFn`]: crate::implementation::HandOffFn
//! [`ValidateChunkFn`]: crate::implementation::ValidateChunkFn
//! [`ValidateFn`]: crate::implementation::ValidateFn

use core::ffi::c_void;
use core::sync::atomic::{AtomicPtr, Ordering};

use crate::ascii::{short_ascii, short_ascii_in_caller, SHORT};
use crate::chunk::quick_chunk_state;
use crate::implementation::{always, Implementation, SCALAR};
use crate::scalar::{self, validate_few};
#[cfg(simd_back_end)]
use crate::simd;
use crate::state_machine::State;

/// Every back end compiled for this target, best first; the last one always runs.
static IMPLEMENTATIONS: &[Implementation] = &[
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    simd::x86::avx512::IMPLEMENTATION,
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    simd::x86::avx2::IMPLEMENTATION,
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    simd::x86::ssse3::IMPLEMENTATION,
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    simd::aarch64::neon::IMPLEMENTATION,
    SCALAR,
];

/// The environment variable that forces a back end, for tests; see the module docs.
#[cfg_attr(not(feature = "backend-env"), allow(dead_code))]
const FORCE_VAR: &core::ffi::CStr = c"UTF8VALIDATE_BACKEND";

/// The best back end this CPU supports.
fn best() -> &'static Implementation {
    IMPLEMENTATIONS
        .iter()
        .find(|imp| (imp.available)())
        .unwrap_or(&SCALAR)
}

/// The back end [`FORCE_VAR`] names, if it names one this CPU supports.
///
/// A testing aid, read by [`detect`] once per process: see the module docs.
#[cfg(feature = "backend-env")]
fn forced() -> Option<&'static Implementation> {
    extern "C" {
        /// C's `getenv` (C11 7.22.4.6): the variable's value, or NULL when unset.
        fn getenv(name: *const core::ffi::c_char) -> *const core::ffi::c_char;
    }
    // SAFETY: `FORCE_VAR` is NUL-terminated. `getenv` returns NULL or a NUL-terminated
    // string, read here before this function returns (only a concurrent `setenv`,
    // which C forbids alongside `getenv`, could change it meanwhile).
    let name = unsafe {
        let value = getenv(FORCE_VAR.as_ptr());
        if value.is_null() {
            return None;
        }
        core::ffi::CStr::from_ptr(value).to_bytes()
    };
    IMPLEMENTATIONS
        .iter()
        .find(|imp| name == imp.name.as_bytes() && (imp.available)())
}

/// Without the feature `backend-env`, the environment never forces a back end.
#[cfg(not(feature = "backend-env"))]
fn forced() -> Option<&'static Implementation> {
    None
}

/// Stands in [`CURRENT`] until the first call, whose functions choose the back
/// end, store it there and run it. Its `available` is never asked.
static DETECT: Implementation = Implementation {
    name: "undetected",
    available: always,
    first_error: detect_first_error,
    validate: detect_validate,
    validate_chunk: detect_validate_chunk,
    validate_chunk_long: detect_validate_chunk_long,
    hand_off: detect_hand_off,
    hand_off_long: detect_hand_off_long,
};

/// The cached back end: [`DETECT`] until the first call, then the chosen one. Only
/// ever points at [`DETECT`] or at an entry of [`IMPLEMENTATIONS`] that this CPU
/// supports.
///
/// Read only by functions that other crates cannot inline (the public functions
/// of `lib.rs` are not `#[inline]`, or, for `validate` and `first_error`, read it
/// only through `validate_rest` and `first_error_rest`, which are not), so that it
/// is local to this crate's object code: the C entry points then read it
/// directly, not through the global offset table, which an inlinable reader would
/// make it need (an `R_X86_64_GOTPCREL` relocation in the `.a` that no linker can
/// turn back into a direct access: one more dependent load before every jump to a
/// back end).
static CURRENT: AtomicPtr<Implementation> =
    AtomicPtr::new(&DETECT as *const Implementation as *mut Implementation);

/// Chooses the back end (the best one, or the one `UTF8VALIDATE_BACKEND` forces for
/// tests: see the module docs) and caches it in [`CURRENT`]. The variable is read
/// here, that is once, on the first call.
#[cold]
fn detect() -> &'static Implementation {
    let chosen = forced().unwrap_or_else(best);
    CURRENT.store(
        chosen as *const Implementation as *mut Implementation,
        Ordering::Relaxed,
    );
    chosen
}

/// [`DETECT`]'s first error: detects, then runs the chosen back end's.
///
/// # Safety
/// None beyond `FirstErrorFn`'s: it only calls one that this CPU supports.
unsafe extern "C" fn detect_first_error(ptr: *const u8, len: usize) -> usize {
    // SAFETY: `forced` and `best` return only back ends whose `available` said
    // yes; `ptr` and `len` are forwarded unchanged.
    unsafe { (detect().first_error)(ptr, len) }
}

/// [`DETECT`]'s verdict: detects, then runs the chosen back end's verdict.
///
/// # Safety
/// None beyond `ValidateFn`'s: it only calls a verdict that this CPU supports.
unsafe extern "C" fn detect_validate(ptr: *const u8, len: usize) -> bool {
    // SAFETY: as in `detect_first_error`.
    unsafe { (detect().validate)(ptr, len) }
}

/// [`DETECT`]'s answer for a chunk: detects, then runs the chosen back end's.
///
/// # Safety
/// None beyond `ValidateChunkFn`'s: it only calls one that this CPU supports.
unsafe extern "C" fn detect_validate_chunk(state: State, ptr: *const u8, len: usize) -> State {
    // SAFETY: as in `detect_first_error`.
    unsafe { (detect().validate_chunk)(state, ptr, len) }
}

/// [`DETECT`]'s answer for a longer chunk: detects, then runs the chosen back
/// end's.
///
/// # Safety
/// None beyond `ValidateChunkFn`'s: it only calls one that this CPU supports.
unsafe extern "C" fn detect_validate_chunk_long(state: State, ptr: *const u8, len: usize) -> State {
    // SAFETY: as in `detect_first_error`.
    unsafe { (detect().validate_chunk_long)(state, ptr, len) }
}

/// [`DETECT`]'s hand-off: detects, then runs the chosen back end's.
///
/// # Safety
/// None beyond `HandOffFn`'s: it only calls one that this CPU supports.
unsafe extern "C" fn detect_hand_off(
    state: State,
    ptr: *const u8,
    len: usize,
    to: *mut c_void,
) -> bool {
    // SAFETY: as in `detect_first_error`.
    unsafe { (detect().hand_off)(state, ptr, len, to) }
}

/// [`DETECT`]'s hand-off of a longer chunk: detects, then runs the chosen back
/// end's.
///
/// # Safety
/// None beyond `HandOffFn`'s: it only calls one that this CPU supports.
unsafe extern "C" fn detect_hand_off_long(
    state: State,
    ptr: *const u8,
    len: usize,
    to: *mut c_void,
) -> bool {
    // SAFETY: as in `detect_first_error`.
    unsafe { (detect().hand_off_long)(state, ptr, len, to) }
}

/// The cached back end.
#[inline(always)]
fn current() -> &'static Implementation {
    let ptr = CURRENT.load(Ordering::Relaxed);
    // SAFETY: `CURRENT` only ever holds pointers made from `&'static` references
    // (to `DETECT` and to entries of `IMPLEMENTATIONS`, both statics), never null.
    unsafe { &*ptr }
}

/// True iff `bytes` is well-formed UTF-8, in the shape of the C function
/// `utf8_validate`, which inlines it: fewer than [`FEW`] bytes by the scalar
/// machine at once (a test for ASCII first would cost text that is not ASCII as
/// much as it saves ASCII, which C callers answer in their own code with the
/// header's `utf8_validate_inline`); then short ASCII, without reading [`CURRENT`];
/// the rest by [`validate_rest`], which does.
#[inline(always)]
pub(crate) fn validate(bytes: &[u8]) -> bool {
    // This shape: inputs of 8 bytes or more first, so that LLVM lays them out as the
    // straight path (with the short ones first, 16-64 bytes of ASCII took one more
    // taken branch); and not `short_ascii(bytes) || validate_rest(bytes)`, with
    // which it laid the short-ASCII path out with one more too.
    if bytes.len() >= FEW {
        if short_ascii(bytes) {
            return true;
        }
        return validate_rest(bytes);
    }
    validate_few(bytes)
}

/// Inputs shorter than this go to the scalar machine, not to a back end: from the C
/// entry points at once ([`validate`], [`first_error_offset`]), from a Rust caller
/// when they are not all ASCII ([`validate_rest`], [`first_error_rest`]).
pub(crate) const FEW: usize = 8;

/// The verdict for a Rust caller of `crate::validate`, which inlines this: short
/// ASCII answered in the caller, as [`validate`] does but in the shape for inlining
/// (`crate::ascii::short_ascii_in_caller`), the rest by [`validate_rest`]. The C
/// entry point keeps [`validate`].
#[inline(always)]
pub(crate) fn validate_in_caller(bytes: &[u8]) -> bool {
    if short_ascii_in_caller(bytes) {
        return true;
    }
    validate_rest(bytes)
}

/// [`validate`] past the short-ASCII test: fewer than [`FEW`] bytes by the scalar
/// machine (one shift a byte costs less there than the back end's indirect call
/// and vector check), the rest by a jump to the cached back end. Not `#[inline]`,
/// so that other crates call it rather than compile their own copy: [`CURRENT`] is
/// only read in this crate's object code (see there).
pub(crate) fn validate_rest(bytes: &[u8]) -> bool {
    if bytes.len() < FEW {
        return validate_few(bytes);
    }
    // SAFETY: `current` returns a back end this CPU supports (or `DETECT`); `as_ptr`
    // and `len` describe the readable bytes of a slice, non-NULL even when empty.
    unsafe { (current().validate)(bytes.as_ptr(), bytes.len()) }
}

/// Offset of the first byte of the first ill-formed sequence, `None` when valid:
/// short ASCII answered in the caller, as [`validate`] does, the rest by
/// [`first_error_rest`].
#[inline(always)]
pub(crate) fn first_error(bytes: &[u8]) -> Option<usize> {
    if short_ascii(bytes) {
        return None;
    }
    error_at(first_error_rest(bytes), bytes)
}

/// [`first_error_offset`] past the short-ASCII test: fewer than [`FEW`] bytes by
/// [`first_error_few`], the rest by a jump to the cached back end. Not `#[inline]`,
/// for the reason [`validate_rest`] is not.
pub(crate) fn first_error_rest(bytes: &[u8]) -> usize {
    if bytes.len() < FEW {
        return first_error_few(bytes);
    }
    // SAFETY: `current` returns a back end this CPU supports (or `DETECT`); `as_ptr`
    // and `len` describe the readable bytes of a slice, non-NULL even when empty.
    unsafe { (current().first_error)(bytes.as_ptr(), bytes.len()) }
}

/// The first error in fewer than [`FEW`] bytes, `bytes.len()` when valid, by the
/// scalar machine, as [`validate`] answers them: the verdict first, in one shift a
/// byte ([`validate_few`]); only ill-formed input then goes through the machine
/// again to find where (`scalar::first_error`).
#[inline(always)]
fn first_error_few(bytes: &[u8]) -> usize {
    if validate_few(bytes) {
        return bytes.len();
    }
    // `None` (valid) cannot follow a false verdict; `len` would be the answer for it.
    scalar::first_error(bytes).unwrap_or(bytes.len())
}

/// A back end's first error (`bytes.len()` when valid) as `Option`.
#[inline(always)]
fn error_at(offset: usize, bytes: &[u8]) -> Option<usize> {
    (offset < bytes.len()).then_some(offset)
}

/// Offset of the first byte of the first ill-formed sequence, `bytes.len()` when
/// valid: the answer of the C function `utf8_first_error`, in the shape of
/// [`validate`]: fewer than [`FEW`] bytes by the scalar machine at once
/// ([`first_error_few`]), the rest as short ASCII or by the cached back end.
#[inline]
pub(crate) fn first_error_offset(bytes: &[u8]) -> usize {
    if bytes.len() < FEW {
        return first_error_few(bytes);
    }
    // SAFETY: `current` returns a back end this CPU supports (or `DETECT`).
    unsafe { first_error_with(bytes, current) }
}

/// The machine's state after `bytes`, starting from `state`.
#[inline]
pub(crate) fn validate_chunk(state: State, bytes: &[u8]) -> State {
    // SAFETY: `current` returns a back end this CPU supports (or `DETECT`).
    unsafe { validate_chunk_with(state, bytes, current) }
}

/// A chunk that `crate::chunk::quick_chunk_state` left to a back end, from the
/// carried `state`: the jump to the cached back end's `HandOffFn`, which checks
/// it and hands the state on with `to`; its answer.
///
/// # Safety
/// `state` is not ERROR, `bytes` has at least 3 bytes, and `to` must be what
/// `crate::chunk::HandOff`'s end takes.
#[inline(always)]
pub(crate) unsafe fn hand_off(state: State, bytes: &[u8], to: *mut c_void) -> bool {
    // SAFETY: `current` returns a back end this CPU supports (or `DETECT`); the
    // rest is the caller's contract.
    unsafe { hand_off_with(state, bytes, to, current) }
}

/// [`validate`] with the back end that `backend()` returns (asked only when the
/// input is not short ASCII).
///
/// # Safety
/// `backend` must return a back end that this CPU supports.
#[inline(always)]
unsafe fn validate_with(bytes: &[u8], backend: impl FnOnce() -> &'static Implementation) -> bool {
    if short_ascii(bytes) {
        return true;
    }
    // SAFETY: the caller guarantees the back end runs on this CPU; `as_ptr` and
    // `len` describe the readable bytes of a slice, non-NULL even when empty.
    unsafe { (backend().validate)(bytes.as_ptr(), bytes.len()) }
}

/// [`first_error_offset`] with the back end that `backend()` returns (asked only
/// when the input is not short ASCII).
///
/// # Safety
/// `backend` must return a back end that this CPU supports.
#[inline(always)]
unsafe fn first_error_with(
    bytes: &[u8],
    backend: impl FnOnce() -> &'static Implementation,
) -> usize {
    if short_ascii(bytes) {
        return bytes.len();
    }
    // SAFETY: the caller guarantees the back end runs on this CPU; `as_ptr` and
    // `len` describe the readable bytes of a slice, non-NULL even when empty.
    unsafe { (backend().first_error)(bytes.as_ptr(), bytes.len()) }
}

/// [`validate_chunk`] with the back end that `backend()` returns (asked only when
/// the chunk needs a vector check): `crate::chunk`'s answers without a check, then
/// a jump to the back end. The stream's `feed` makes the same answers inline and
/// jumps to the back end's hand-off ([`hand_off_with`]).
///
/// # Safety
/// `backend` must return a back end that this CPU supports.
#[inline(always)]
unsafe fn validate_chunk_with(
    state: State,
    bytes: &[u8],
    backend: impl FnOnce() -> &'static Implementation,
) -> State {
    if let Some(state) = quick_chunk_state(state, bytes) {
        return state;
    }
    // SAFETY: forwarded caller contract; `quick_chunk_state` left this chunk to a
    // back end.
    unsafe { check_chunk_with(state, bytes, backend) }
}

/// The jump to the `validate_chunk` of the back end that `backend()` returns or, for
/// a chunk longer than [`SHORT`], its `validate_chunk_long`.
///
/// # Safety
/// `backend` must return a back end that this CPU supports; `state` is not ERROR
/// and `bytes` has at least 3 bytes (what `quick_chunk_state` leaves to a back end:
/// the contract of `ValidateChunkFn`).
#[inline(always)]
unsafe fn check_chunk_with(
    state: State,
    bytes: &[u8],
    backend: impl FnOnce() -> &'static Implementation,
) -> State {
    let imp = backend();
    let (ptr, len) = (bytes.as_ptr(), bytes.len());
    // SAFETY: the caller guarantees the back end runs on this CPU, the state and
    // the length; `ptr` and `len` describe the readable bytes of a slice. A call in
    // each arm, not one through a chosen pointer: each becomes a jump of its own,
    // without an instruction to choose.
    unsafe {
        if len > SHORT {
            (imp.validate_chunk_long)(state, ptr, len)
        } else {
            (imp.validate_chunk)(state, ptr, len)
        }
    }
}

/// The jump to the `hand_off` of the back end that `backend()` returns or, for a
/// chunk longer than [`SHORT`], its `hand_off_long`.
///
/// # Safety
/// `backend` must return a back end that this CPU supports; `state` is not ERROR,
/// `bytes` has at least 3 bytes, and `to` is what `crate::chunk::HandOff`'s end
/// takes (the contract of `HandOffFn`).
#[inline(always)]
unsafe fn hand_off_with(
    state: State,
    bytes: &[u8],
    to: *mut c_void,
    backend: impl FnOnce() -> &'static Implementation,
) -> bool {
    let imp = backend();
    let (ptr, len) = (bytes.as_ptr(), bytes.len());
    // SAFETY: as in `check_chunk_with`, and the caller's guarantee on `to`.
    unsafe {
        if len > SHORT {
            (imp.hand_off_long)(state, ptr, len, to)
        } else {
            (imp.hand_off)(state, ptr, len, to)
        }
    }
}

/// Every back end this CPU supports, one by one, for tests and benchmarks. Not part
/// of the API: users always get the best one through the crate's functions.
pub mod backends {
    use super::{Implementation, IMPLEMENTATIONS};
    use crate::state_machine::State;
    use core::ffi::c_void;

    /// A back end that this CPU supports, with the crate's entry points run
    /// through it (short-input path included, exactly as the crate runs them).
    #[derive(Clone, Copy)]
    pub struct Backend {
        /// Only constructed (in [`available`]) for back ends this CPU supports.
        imp: &'static Implementation,
    }

    impl core::fmt::Debug for Backend {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("Backend")
                .field("name", &self.name())
                .finish()
        }
    }

    impl Backend {
        /// The back end's name: `avx512`, `avx2`, `ssse3`, `neon` or `scalar`.
        pub fn name(&self) -> &'static str {
            self.imp.name
        }

        /// [`crate::validate`] through this back end.
        pub fn validate(&self, bytes: &[u8]) -> bool {
            // SAFETY: `self.imp` runs on this CPU (see `available`).
            unsafe { super::validate_with(bytes, || self.imp) }
        }

        /// [`crate::first_error`] through this back end.
        pub fn first_error(&self, bytes: &[u8]) -> Option<usize> {
            // SAFETY: `self.imp` runs on this CPU (see `available`).
            let offset = unsafe { super::first_error_with(bytes, || self.imp) };
            super::error_at(offset, bytes)
        }

        /// [`crate::validate_chunk`] through this back end.
        pub fn validate_chunk(&self, state: State, bytes: &[u8]) -> State {
            // SAFETY: `self.imp` runs on this CPU (see `available`).
            unsafe { super::validate_chunk_with(state, bytes, || self.imp) }
        }

        /// `crate::dispatch::hand_off` through this back end (for the stream's
        /// `feed`: see `Backend::feed` in `crate::stream`).
        ///
        /// # Safety
        /// As for `crate::dispatch::hand_off`.
        pub(crate) unsafe fn hand_off(&self, state: State, bytes: &[u8], to: *mut c_void) -> bool {
            // SAFETY: `self.imp` runs on this CPU (see `available`); the rest is
            // the caller's contract.
            unsafe { super::hand_off_with(state, bytes, to, || self.imp) }
        }
    }

    /// Every back end this CPU supports, best first (the crate uses the first).
    pub fn available() -> impl Iterator<Item = Backend> {
        IMPLEMENTATIONS
            .iter()
            .filter(|imp| (imp.available)())
            .map(|imp| Backend { imp })
    }

    /// The names of every back end compiled for this target, supported or not.
    pub fn compiled() -> impl Iterator<Item = &'static str> {
        IMPLEMENTATIONS.iter().map(|imp| imp.name)
    }

    /// The name of the back end the crate's functions use in this process: the one
    /// cached on the first call (the best this CPU supports, unless
    /// `UTF8VALIDATE_BACKEND` forced another; see the module docs). Chooses and caches
    /// it, as the first call would, if no validation has run yet.
    pub fn selected() -> &'static str {
        let current = super::current();
        if core::ptr::eq(current, &super::DETECT) {
            super::detect().name
        } else {
            current.name
        }
    }
}
