//! The one place where the validation entry points meet a back end.
//!
//! The validation entry points, in Rust and in C ([`validate`], [`first_error`],
//! [`valid_up_to`], [`validate_chunk`], and the stream's hand-off), are here, and
//! this module does one thing for them: it chooses the back end. What runs for an
//! input of `n` bytes is the ladder's to say (`crate::ladder`), which each entry
//! point runs with the cached back end ([`current`]): inline in the C entry point,
//! so that the arms that need no back end answer with no call, and the others end
//! in one jump (a tail call) to the back end's entry for the length.
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
use core::ffi::c_void;
use core::sync::atomic::{AtomicPtr, Ordering};

use crate::ascii::short_ascii;
use crate::chunk::{HandOff, ReturnState};
use crate::implementation::{always, Entries, Implementation, SCALAR};
use crate::ladder;
#[cfg(simd_back_end)]
use crate::ladder::back_end;
use crate::state_machine::State;

/// Every back end compiled for this target, best first; the last one always runs.
/// A SIMD back end is its module's vector type, the target feature its entries
/// are compiled with, and its test of the CPU.
static IMPLEMENTATIONS: &[Implementation] = &[
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    back_end!(
        avx512,
        crate::simd::x86::avx512::V64,
        "avx512f,avx512bw,avx512vbmi",
        crate::simd::x86::avx512::available
    ),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    back_end!(
        avx2,
        crate::simd::x86::avx2::V32,
        "avx2",
        crate::simd::x86::avx2::available
    ),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    back_end!(
        ssse3,
        crate::simd::x86::ssse3::V16,
        "ssse3",
        crate::simd::x86::ssse3::available
    ),
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    back_end!(
        neon,
        crate::simd::aarch64::neon::V16,
        "neon",
        crate::simd::aarch64::neon::available
    ),
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

/// Stands in [`CURRENT`] until the first call, whose entries choose the back
/// end, store it there and run the ladder again with it. Its `available` is
/// never asked.
static DETECT: Implementation = Implementation {
    name: "undetected",
    available: always,
    block: DETECT_ENTRIES,
    medium: DETECT_ENTRIES,
    long: DETECT_ENTRIES,
};

/// [`DETECT`]'s entries, the same on every rung.
const DETECT_ENTRIES: Entries = Entries {
    validate: detect_validate,
    first_error: detect_first_error,
    validate_chunk: detect_validate_chunk,
    hand_off: detect_hand_off,
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

/// [`DETECT`]'s verdict: detects, then runs the ladder with the chosen back end.
///
/// # Safety
/// `ptr` must be non-NULL with `len` readable bytes.
unsafe extern "C" fn detect_validate(ptr: *const u8, len: usize) -> bool {
    // SAFETY: `detect` returns only back ends whose `available` said yes; the
    // caller guarantees the bytes.
    unsafe { ladder::whole(core::slice::from_raw_parts(ptr, len), false, detect) }
}

/// [`DETECT`]'s first error: detects, then runs the ladder with the chosen back
/// end.
///
/// # Safety
/// As for [`detect_validate`].
unsafe extern "C" fn detect_first_error(ptr: *const u8, len: usize) -> usize {
    // SAFETY: as in `detect_validate`.
    unsafe { ladder::whole(core::slice::from_raw_parts(ptr, len), false, detect) }
}

/// [`DETECT`]'s answer for a chunk: detects, then runs the ladder with the
/// chosen back end.
///
/// # Safety
/// As for [`detect_validate`].
unsafe extern "C" fn detect_validate_chunk(state: State, ptr: *const u8, len: usize) -> State {
    // SAFETY: as in `detect_validate`.
    unsafe {
        ladder::chunk(
            state,
            core::slice::from_raw_parts(ptr, len),
            ReturnState,
            detect,
        )
    }
}

/// [`DETECT`]'s hand-off: detects, then runs the ladder with the chosen back end.
///
/// # Safety
/// As for [`detect_validate`], and `to` must be what `HandOff`'s end takes.
unsafe extern "C" fn detect_hand_off(
    state: State,
    ptr: *const u8,
    len: usize,
    to: *mut c_void,
) -> bool {
    // SAFETY: as in `detect_validate`, and the caller's guarantee on `to`.
    unsafe {
        let bytes = core::slice::from_raw_parts(ptr, len);
        ladder::chunk(state, bytes, HandOff::new(to), detect)
    }
}

/// The cached back end.
#[inline(always)]
fn current() -> &'static Implementation {
    let ptr = CURRENT.load(Ordering::Relaxed);
    // SAFETY: `CURRENT` only ever holds pointers made from `&'static` references
    // (to `DETECT` and to entries of `IMPLEMENTATIONS`, both statics), never null.
    unsafe { &*ptr }
}

// The entry points of the Rust API and the C library: the ladder with the cached
// back end.

/// True iff `bytes` is well-formed UTF-8 (RFC 3629 §4; Unicode §3.9, Table 3-7).
///
/// The empty slice is valid. Equivalent to `core::str::from_utf8(bytes).is_ok()`.
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// assert!(utf8validate_core::validate("naïve €".as_bytes()));
/// assert!(!utf8validate_core::validate(b"\xC0\xAF")); // overlong '/'
/// ```
// `#[inline]`: a caller in another crate runs the rungs of the ladder that need no
// back end in its own code (`crate::ladder::in_caller`); the rest is a call to
// [`validate_rest`], which is not inlinable, so that [`CURRENT`] stays local: see
// there.
#[inline]
pub fn validate(bytes: &[u8]) -> bool {
    ladder::in_caller(bytes, validate_rest)
}

/// True iff `bytes` is well-formed UTF-8 (RFC 3629 §4; Unicode §3.9): the answer
/// of [`validate`], in the shape for an entry point that is compiled once rather
/// than inlined into its callers (the C library's `utf8_validate`, whose machine
/// code is measured as it stands). Thread-safe, allocation-free, reads only
/// `bytes`. Not a stable API: Rust callers use [`validate`].
#[doc(hidden)]
#[inline]
pub fn validate_entry_point(bytes: &[u8]) -> bool {
    // SAFETY: `current` returns a back end this CPU supports (or `DETECT`).
    unsafe { ladder::whole(bytes, false, current) }
}

/// The byte offset of the first byte of the first ill-formed sequence in `bytes`, or
/// `None` when `bytes` is well-formed UTF-8 (RFC 3629 §4; Unicode §3.9).
///
/// The offset is counted in bytes from the start of `bytes`. It equals Rust's
/// [`core::str::Utf8Error::valid_up_to`] and Python's `UnicodeDecodeError.start`:
/// `bytes[..offset]` is the longest valid prefix that ends on a character boundary.
/// A sequence cut short by the end of `bytes` (for example a lone `E2 82`) reports the
/// offset of its lead byte. Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// assert_eq!(utf8validate_core::first_error(b"abc"), None);
/// assert_eq!(utf8validate_core::first_error(b"ab\xED\xA0\x80"), Some(2)); // surrogate
/// assert_eq!(utf8validate_core::first_error(b"ab\xE2\x82"), Some(2));     // truncated
/// ```
// `#[inline]`, as `validate` is (short ASCII in the caller, the rest in
// [`first_error_rest`], which keeps [`CURRENT`] local).
#[inline]
pub fn first_error(bytes: &[u8]) -> Option<usize> {
    if short_ascii(bytes) {
        return None;
    }
    let offset = first_error_rest(bytes);
    (offset < bytes.len()).then_some(offset)
}

/// The length of the longest prefix of `bytes` that is well-formed UTF-8 (RFC 3629
/// §4; Unicode §3.9): the offset of the first byte of the first ill-formed sequence,
/// or `bytes.len()` when `bytes` is well-formed.
///
/// The same number as [`first_error`] without the `Option`, and as Rust's
/// [`core::str::Utf8Error::valid_up_to`]; the C function `utf8_first_error` returns it.
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// assert_eq!(utf8validate_core::valid_up_to(b"abc"), 3);
/// assert_eq!(utf8validate_core::valid_up_to(b"ab\xC0\xAF"), 2); // overlong '/'
/// ```
// Not `#[inline]`, so that [`CURRENT`] stays local: see there.
pub fn valid_up_to(bytes: &[u8]) -> usize {
    // SAFETY: as in `validate_entry_point`.
    unsafe { ladder::whole(bytes, false, current) }
}

/// Runs the draft's state machine over `bytes`, starting from `state`, and returns
/// the state it ends in: the streaming form of [`validate`].
///
/// Feeding the chunks of a buffer in order, starting from [`State::Start`], ends in
/// `State::Start` iff the whole buffer is well-formed UTF-8 (RFC 3629 §4; Unicode
/// §3.9, Table 3-7), however it was split. A final state
/// other than `Start` and `Error` means the data ended inside a sequence;
/// [`State::Error`] is absorbing (once there, every later call returns it).
/// Thread-safe, allocation-free, reads only `bytes`.
///
/// ```
/// use utf8validate_core::{validate_chunk, State};
/// let s = validate_chunk(State::Start, b"caf\xC3");  // 'é' split in two
/// assert_eq!(s, State::A);
/// assert_eq!(validate_chunk(s, b"\xA9!"), State::Start);
/// ```
// Not `#[inline]`, so that [`CURRENT`] stays local: see there.
pub fn validate_chunk(state: State, bytes: &[u8]) -> State {
    // SAFETY: as in `validate_entry_point`.
    unsafe { ladder::chunk(state, bytes, ReturnState, current) }
}

// Their out-of-line halves and the stream's hand-off.

/// [`validate`] past the short-ASCII test. Not `#[inline]`, so that other crates
/// call it rather than compile their own copy: [`CURRENT`] is only read in this
/// crate's object code (see there).
pub(crate) fn validate_rest(bytes: &[u8]) -> bool {
    // SAFETY: as in `validate_entry_point`.
    unsafe { ladder::whole(bytes, true, current) }
}

/// [`valid_up_to`] past the short-ASCII test. Not `#[inline]`, for the
/// reason [`validate_rest`] is not.
pub(crate) fn first_error_rest(bytes: &[u8]) -> usize {
    // SAFETY: as in `validate_entry_point`.
    unsafe { ladder::whole(bytes, true, current) }
}

/// The chunk `bytes` after `state`, its state handed on with `to` (the stream's
/// `feed`): the ladder with the cached back end.
///
/// # Safety
/// `to` must be what `crate::chunk::HandOff`'s end takes.
#[inline(always)]
pub(crate) unsafe fn hand_off(state: State, bytes: &[u8], to: *mut c_void) -> bool {
    // SAFETY: as in `validate_entry_point`, and the caller's guarantee on `to`.
    unsafe { ladder::chunk(state, bytes, HandOff::new(to), current) }
}

/// Every back end this CPU supports, one by one, for tests and benchmarks. Not part
/// of the API: users always get the best one through the crate's functions.
pub mod backends {
    use super::{Implementation, IMPLEMENTATIONS};
    use crate::chunk::{HandOff, ReturnState};
    use crate::ladder;
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
            unsafe { ladder::whole(bytes, false, || self.imp) }
        }

        /// [`crate::first_error`] through this back end.
        pub fn first_error(&self, bytes: &[u8]) -> Option<usize> {
            // SAFETY: `self.imp` runs on this CPU (see `available`).
            let offset: usize = unsafe { ladder::whole(bytes, false, || self.imp) };
            (offset < bytes.len()).then_some(offset)
        }

        /// [`crate::validate_chunk`] through this back end.
        pub fn validate_chunk(&self, state: State, bytes: &[u8]) -> State {
            // SAFETY: `self.imp` runs on this CPU (see `available`).
            unsafe { ladder::chunk(state, bytes, ReturnState, || self.imp) }
        }

        /// `crate::dispatch::hand_off` through this back end (for the stream's
        /// `feed`: see `Backend::feed` in `crate::stream`).
        ///
        /// # Safety
        /// As for `crate::dispatch::hand_off`.
        pub(crate) unsafe fn hand_off(&self, state: State, bytes: &[u8], to: *mut c_void) -> bool {
            // SAFETY: `self.imp` runs on this CPU (see `available`); the rest is
            // the caller's contract.
            unsafe { ladder::chunk(state, bytes, HandOff::new(to), || self.imp) }
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
