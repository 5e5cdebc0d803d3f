//! The committed C header is exactly what `build.rs` generates, and its version
//! macros agree with `Cargo.toml` and with the library.

use utf8validate_c_tests as support;

use std::process::Command;

/// `include/utf8validate.h` after `cargo build` of the C library, whose `build.rs`
/// regenerates it from the Rust sources (and from itself, so a hand edit is undone).
fn header() -> String {
    support::library_dir();
    std::fs::read_to_string(support::repository().join("include/utf8validate.h"))
        .expect("include/utf8validate.h")
}

/// Catches a stale committed header: on a clean checkout build.rs rewrites the file
/// if the sources changed without it, and then it differs from git's copy.
#[test]
fn committed_header_is_fresh() {
    header();
    let root = support::repository();
    let in_git = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["rev-parse", "--is-inside-work-tree"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !in_git {
        return support::skip("committed_header_is_fresh", "git, or a git checkout");
    }
    if !support::in_ci() {
        eprintln!("skipping outside CI (uncommitted work would fail it): set CI=true to run");
        return;
    }
    let diff = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["status", "--porcelain", "--", "include/utf8validate.h"])
        .output()
        .expect("git runs");
    let changed = String::from_utf8_lossy(&diff.stdout);
    assert!(
        changed.trim().is_empty(),
        "the committed include/utf8validate.h is not what build.rs generates: {changed}"
    );
}

#[test]
fn version_macros_match_cargo_and_library() {
    let generated = header();
    let version = support::library_version();
    let version = version.as_str();
    let mut parts = version.split('.');
    for (name, value) in ["MAJOR", "MINOR", "PATCH"].iter().zip(&mut parts) {
        let line = format!("#define UTF8VALIDATE_VERSION_{name} {value}\n");
        assert!(generated.contains(&line), "header lacks `{}`", line.trim());
    }
    assert!(generated.contains(&format!(
        "#define UTF8VALIDATE_VERSION_STRING \"{version}\""
    )));
    // SAFETY: the version is a static NUL-terminated string.
    let linked = unsafe { std::ffi::CStr::from_ptr(support::c_api::utf8validate_version()) };
    assert_eq!(linked.to_str(), Ok(version));
}

/// The parts of the API the issue fixes by name are spelled so in the header.
#[test]
fn header_declares_the_documented_api() {
    let generated = header();
    for decl in [
        "bool utf8_validate(const char *buf, size_t len);",
        "size_t utf8_first_error(const char *buf, size_t len);",
        "uint8_t utf8_byte_class(uint8_t byte);",
        "utf8_state utf8_next_state(utf8_state state, uint8_t byte);",
        "utf8_state utf8_validate_chunk(utf8_state state, const char *buf, size_t len);",
        "const char *utf8validate_version(void);",
        "bool utf8_check(const char *buf, size_t len, utf8_error *err);",
        "UTF8_STATE_START = 0,",
        "UTF8_STATE_ERROR = 8,",
        "UTF8_ERROR_NONE = 0,",
        "UTF8_ERROR_INVALID_BYTE = 7,",
        "} utf8_state;",
        "} utf8_error_kind;",
        "} utf8_error;",
        "#ifndef UTF8VALIDATE_H",
        "extern \"C\" {",
        "#include <stdbool.h>",
        "#include <stddef.h>",
        "#include <stdint.h>",
    ] {
        assert!(generated.contains(decl), "header lacks `{decl}`");
    }
}
