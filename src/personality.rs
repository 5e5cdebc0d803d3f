//! `rust_eh_personality`, for C programs that link the static library.
//!
//! The library is built with `panic = "abort"`, but the precompiled `core` it links
//! was built for unwinding, and its object file refers to the personality routine
//! that unwinding would use (`.data.DW.ref.rust_eh_personality`). The standard
//! library defines that routine; a `no_std` library has none. The shared library does
//! not need it (rustc links it with `--gc-sections`, which drops the reference), but
//! a C program linking `libutf8validate.a` pulls in the whole `core` object and fails
//! with "undefined reference to `rust_eh_personality`".
//!
//! So the library defines it, as an alias of [`abort_on_unwind`]: weak, so that a
//! program that also links a Rust library with the standard library uses that one
//! instead of failing with a duplicate symbol; and hidden (ELF) or private (Mach-O),
//! so that the shared library does not export it. Nothing in the library unwinds
//! and it never calls back into its caller, so no unwinder ever calls it here; were
//! one to, the process aborts, as the library's panics do.
//!
//! Windows with the MSVC ABI needs none: its personality routine is the C runtime's.

/// The routine behind the alias: aborts the process.
#[cfg_attr(any(target_env = "msvc", test), allow(dead_code))]
extern "C" fn abort_on_unwind() -> ! {
    // SAFETY: abort(3) has no preconditions and never returns.
    unsafe { libc::abort() }
}

// ELF (Linux, the BSDs, Android).
#[cfg(all(not(test), target_family = "unix", not(target_vendor = "apple")))]
core::arch::global_asm!(
    ".weak rust_eh_personality",
    ".hidden rust_eh_personality",
    ".set rust_eh_personality, {routine}",
    routine = sym abort_on_unwind,
);

// Mach-O (macOS, iOS): C symbols carry a leading underscore.
#[cfg(all(not(test), target_vendor = "apple"))]
core::arch::global_asm!(
    ".weak_definition _rust_eh_personality",
    ".private_extern _rust_eh_personality",
    ".set _rust_eh_personality, {routine}",
    routine = sym abort_on_unwind,
);

// COFF with the GNU ABI (MinGW-w64): a weak external, not exported from the DLL
// (rustc exports only the `#[no_mangle]` functions).
#[cfg(all(not(test), windows, target_env = "gnu"))]
core::arch::global_asm!(
    ".weak rust_eh_personality",
    ".set rust_eh_personality, {routine}",
    routine = sym abort_on_unwind,
);
