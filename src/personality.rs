//! `rust_eh_personality`, for C programs that link the static library.
//!
//! The library is built with `panic = "abort"`, but the precompiled `core` it links
//! was built for unwinding, and its object file refers, in its unwind data, to the
//! personality routine that unwinding would use (on ELF through
//! `.data.DW.ref.rust_eh_personality`). The standard library defines that routine; a
//! `no_std` library has none. A C program linking `libutf8validate.a` pulls in the
//! whole `core` object and fails with "undefined reference to `rust_eh_personality`",
//! and so does the MinGW-w64 DLL itself (the Linux shared library does not: rustc links
//! it with `--gc-sections`, which drops the reference there).
//!
//! So the library defines it, as [`abort_on_unwind`]. Nothing in the library unwinds
//! and it never calls back into its caller, so no unwinder ever calls it here; were
//! one to, the process aborts, as the library's panics do. The shared library does not
//! export it.
//!
//! - ELF: an alias, weak, so that a program that also links a Rust library with the
//!   standard library uses that one instead of failing with a duplicate symbol, and
//!   hidden.
//! - Mach-O (macOS, iOS): the same, weak and private extern, as a jump (an alias made
//!   with `.set` loses the weak attribute there); C symbols carry a leading underscore.
//! - MinGW-w64 on x86-64 (COFF): GNU ld does not let a weak definition in one object
//!   satisfy a reference from another, so the routine is a COMDAT with the "any"
//!   selection (`discard`): a global definition of which the linker keeps one copy. It
//!   is still a duplicate of the standard library's own definition, which is not a
//!   COMDAT: cargo's MinGW-w64 static library does not link next to another Rust static
//!   library that carries the standard library (nor does cargo's on Linux, for other
//!   symbols; see `cmake/localize-staticlib.cmake`). rustc exports only the
//!   `#[no_mangle]` functions from the DLL.
//! - Windows with the MSVC ABI needs none: its personality routine is the C runtime's.

/// The routine: aborts the process.
#[cfg(all(
    not(test),
    any(
        all(target_family = "unix", not(target_vendor = "apple")),
        all(
            target_vendor = "apple",
            any(target_arch = "x86_64", target_arch = "aarch64")
        ),
        all(windows, target_env = "gnu", target_arch = "x86_64")
    )
))]
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

// Mach-O (macOS, iOS) on x86-64 and AArch64.
#[cfg(all(not(test), target_vendor = "apple", target_arch = "x86_64"))]
core::arch::global_asm!(
    ".globl _rust_eh_personality",
    ".weak_definition _rust_eh_personality",
    ".private_extern _rust_eh_personality",
    "_rust_eh_personality:",
    "jmp {routine}",
    routine = sym abort_on_unwind,
);
#[cfg(all(not(test), target_vendor = "apple", target_arch = "aarch64"))]
core::arch::global_asm!(
    ".globl _rust_eh_personality",
    ".weak_definition _rust_eh_personality",
    ".private_extern _rust_eh_personality",
    ".p2align 2",
    "_rust_eh_personality:",
    "b {routine}",
    routine = sym abort_on_unwind,
);

// COFF with the GNU ABI on x86-64 (MinGW-w64): a jump in a COMDAT section of its own,
// keyed by the symbol.
#[cfg(all(not(test), windows, target_env = "gnu", target_arch = "x86_64"))]
core::arch::global_asm!(
    ".section .text$rust_eh_personality,\"xr\",discard,rust_eh_personality",
    ".globl rust_eh_personality",
    ".p2align 4",
    "rust_eh_personality:",
    "jmp {routine}",
    ".text",
    routine = sym abort_on_unwind,
);
