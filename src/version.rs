//! The version of the library actually linked.

use core::ffi::c_char;

/// The library's version as a NUL-terminated string, `"MAJOR.MINOR.PATCH"`: the
/// version of the library actually linked, to compare with the
/// `UTF8VALIDATE_VERSION_*` macros of the header compiled against.
///
/// Takes no arguments and cannot fail: never returns NULL. The string is static:
/// never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn utf8validate_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0")
        .as_ptr()
        .cast::<c_char>()
}
