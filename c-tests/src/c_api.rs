//! The C library's functions, called from Rust through the shared library that
//! `cargo build` made (`libutf8validate.so`, loaded with `dlopen`): the same calls a
//! C program makes, on the same artifact. Each function here has the C function's
//! name and arguments; `utf8_state` and `utf8_error_kind` are passed as their `u32`
//! values, `utf8_stream` is the Rust crate's `#[repr(C)]` `Stream`, which the header
//! declares, and `utf8_error` is [`CError`], written here from the header.

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

use libloading::Library;
use utf8validate_core::Stream;

/// `utf8_error` as the header declares it, with `kind` as the value of its
/// `utf8_error_kind` (so that whatever a function stores can be read). The C
/// library's own type is not a Rust dependency (the library is built as a `cdylib`
/// and a `staticlib` only); `tests/example.rs` checks this one against the header.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CError {
    /// Byte offset of the first ill-formed sequence.
    pub offset: usize,
    /// Length of its maximal subpart.
    pub length: usize,
    /// Its `utf8_error_kind` (see [`kind`]).
    pub kind: u32,
}

impl CError {
    /// The struct with these fields.
    pub const fn new(offset: usize, length: usize, kind: u32) -> CError {
        CError {
            offset,
            length,
            kind,
        }
    }
}

/// The values of `utf8_error_kind`, as the header declares them.
pub mod kind {
    /// `UTF8_ERROR_NONE`
    pub const NONE: u32 = 0;
    /// `UTF8_ERROR_UNEXPECTED_CONTINUATION`
    pub const UNEXPECTED_CONTINUATION: u32 = 1;
    /// `UTF8_ERROR_MISSING_CONTINUATION`
    pub const MISSING_CONTINUATION: u32 = 2;
    /// `UTF8_ERROR_TRUNCATED`
    pub const TRUNCATED: u32 = 3;
    /// `UTF8_ERROR_OVERLONG`
    pub const OVERLONG: u32 = 4;
    /// `UTF8_ERROR_SURROGATE`
    pub const SURROGATE: u32 = 5;
    /// `UTF8_ERROR_TOO_LARGE`
    pub const TOO_LARGE: u32 = 6;
    /// `UTF8_ERROR_INVALID_BYTE`
    pub const INVALID_BYTE: u32 = 7;
}

macro_rules! c_functions {
    ($($name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;)*) => {
        /// The loaded library and a pointer to each of its functions, for callers
        /// that call them in a loop without the look-up (benchmarks).
        pub struct Functions {
            _library: Library,
            $(
                #[allow(missing_docs)]
                pub $name: unsafe extern "C" fn($($ty),*) $(-> $ret)?,
            )*
        }

        fn load() -> Functions {
            let path = super::artifact("libutf8validate.so");
            // SAFETY: loading our own library runs no initialisation code of its own.
            let library = unsafe { Library::new(&path) }
                .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
            $(
                // SAFETY: the type is the C function's, as the header declares it.
                let $name = *unsafe {
                    library.get::<unsafe extern "C" fn($($ty),*) $(-> $ret)?>(
                        concat!(stringify!($name), "\0").as_bytes(),
                    )
                }
                .unwrap_or_else(|e| panic!("{} is not exported: {e}", stringify!($name)));
            )*
            Functions { _library: library, $($name,)* }
        }

        $(
            /// The C function of this name, in the loaded library.
            ///
            /// # Safety
            /// As the header says for the C function.
            pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: forwarded caller contract.
                unsafe { (functions().$name)($($arg),*) }
            }
        )*
    };
}

c_functions! {
    utf8_validate(buf: *const c_char, len: usize) -> bool;
    utf8_first_error(buf: *const c_char, len: usize) -> usize;
    utf8_validate_cstr(s: *const c_char) -> bool;
    utf8_first_error_cstr(s: *const c_char) -> usize;
    utf8_byte_class(byte: u8) -> u8;
    utf8_next_state(state: u32, byte: u8) -> u32;
    utf8_validate_chunk(state: u32, buf: *const c_char, len: usize) -> u32;
    utf8_check(buf: *const c_char, len: usize, err: *mut CError) -> bool;
    utf8_error_kind_name(kind: u32) -> *const c_char;
    utf8_error_kind_message(kind: u32) -> *const c_char;
    utf8validate_version() -> *const c_char;
    utf8_assert_valid(
        buf: *const c_void, len: usize, expr: *const c_char, file: *const c_char,
        line: c_int, func: *const c_char
    );
    utf8_assert_valid_cstr(
        s: *const c_char, expr: *const c_char, file: *const c_char, line: c_int,
        func: *const c_char
    );
    utf8_check_or_log(
        buf: *const c_void, len: usize, expr: *const c_char, file: *const c_char,
        line: c_int, func: *const c_char
    ) -> bool;
    utf8_stream_init(s: *mut Stream);
    utf8_stream_feed(s: *mut Stream, buf: *const c_char, len: usize) -> bool;
    utf8_stream_finish(s: *const Stream, err: *mut CError) -> bool;
    utf8_escape(buf: *const c_char, len: usize, out: *mut c_char, out_cap: usize) -> usize;
    utf8_replace(buf: *const c_char, len: usize, out: *mut c_char, out_cap: usize) -> usize;
}

/// The library, loaded on first use and kept for the rest of the process.
pub fn functions() -> &'static Functions {
    static FUNCTIONS: OnceLock<Functions> = OnceLock::new();
    FUNCTIONS.get_or_init(load)
}
