//! `utf8_error_kind_name` and `utf8_error_kind_message` through the built `.so`:
//! every kind's stable name and sentence, written out in the shared oracle, and the
//! answer for values that are not a kind (never NULL).

use utf8validate_c_tests as support;
#[path = "../../utf8validate-core/tests/oracle/mod.rs"]
mod oracle;

use std::ffi::CStr;

use oracle::{KIND_MESSAGES, KIND_NAMES};
use support::c_api::{utf8_error_kind_message, utf8_error_kind_name};

/// The text at a pointer the library returned, which must not be NULL.
fn text(p: *const std::ffi::c_char) -> &'static str {
    assert!(!p.is_null(), "the library returned NULL");
    // SAFETY: not NULL; the library returns static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().expect("ASCII text")
}

#[test]
fn every_kind_has_its_name_and_sentence() {
    for (kind, (name, message)) in KIND_NAMES.iter().zip(KIND_MESSAGES).enumerate() {
        let kind = u32::try_from(kind).unwrap();
        // SAFETY: the functions take any value.
        assert_eq!(
            text(unsafe { utf8_error_kind_name(kind) }),
            *name,
            "kind {kind}"
        );
        assert_eq!(
            text(unsafe { utf8_error_kind_message(kind) }),
            message,
            "kind {kind}"
        );
    }
}

#[test]
fn a_value_that_is_not_a_kind_is_named_unknown() {
    for kind in [KIND_NAMES.len() as u32, 9, 255, 256, u32::MAX] {
        // SAFETY: the functions take any value.
        assert_eq!(text(unsafe { utf8_error_kind_name(kind) }), "unknown");
        assert_eq!(
            text(unsafe { utf8_error_kind_message(kind) }),
            "The value is not a utf8_error_kind."
        );
    }
}
