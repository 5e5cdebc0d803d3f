//! # libutf8validate
//!
//! The C library: every `extern "C"` function of `libutf8validate.so` and
//! `libutf8validate.a`, declared for C in `include/utf8validate.h` (generated from
//! these files by `build.rs` with cbindgen; the doc comments below become the
//! header's comments, so they are written for C). Each is a thin layer over the Rust
//! crate `utf8validate-core`, which does the validation.
//!
//! The library is `no_std`: a C program that links it gets no Rust standard
//! library, no threads, allocator or unwinder, and needs nothing from the system but
//! the C library (`write` and `abort` for the debug macros, and `getenv` for the
//! testing aid `UTF8VALIDATE_BACKEND`).
//!
//! Rules every function here follows:
//! - a `NULL` buffer with length 0 is the empty buffer; a `NULL` buffer with a
//!   non-zero length is never dereferenced and is answered as documented per function;
//! - nothing is read outside `[buf, buf + len)`, nothing is allocated or written
//!   (except by the functions behind the header's debug macros, in `assert.rs`: on
//!   ill-formed input they build a report line on the stack, write it to stderr and,
//!   for the assertions, abort);
//! - no function can panic (both crates deny clippy's panicking-construct lints, and
//!   `.ci/panic-free.sh` checks the compiled library); were a panic ever to happen,
//!   the panic handler below aborts the process: nothing unwinds into C.

#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
// No panicking constructs (its unit tests may use them): see the crate docs.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

// The library's own unit tests run in cargo's test harness, which needs std.
#[cfg(test)]
extern crate std;

// A panic would abort in any case (see `panic` below), but the library is built with
// `panic = "abort"` so that no unwinding machinery is compiled in either: cargo's
// profiles in Cargo.toml say so, and this refuses a build that lost them.
#[cfg(all(not(test), not(panic = "abort")))]
compile_error!("libutf8validate must be built with panic = \"abort\" (see Cargo.toml's profiles)");

mod args;
mod error;
pub use error::*;
mod validate;
pub use validate::*;
mod state_machine;
pub use state_machine::*;
mod chunk;
pub use chunk::*;
mod diagnostics;
pub use diagnostics::*;
mod version;
pub use version::*;
mod assert;
pub use assert::*;
mod stream;
pub use stream::*;
mod escape;
pub use escape::*;
mod excerpt;
pub use excerpt::*;
mod percent;
pub use percent::*;
mod tail;
pub use tail::*;
mod log_line;
pub use log_line::*;
mod personality;
#[cfg(test)]
mod test_oracle;

/// What a panic does in the C library: abort the process. Nothing in the library
/// panics; this is the handler `no_std` requires.
#[cfg(not(test))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: abort(3) has no preconditions and never returns.
    unsafe { libc::abort() }
}
