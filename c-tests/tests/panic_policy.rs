//! The policy that nothing unwinds into C, checked on the sources and the manifest (a
//! behavioural test would need a panicking export, which the library must not have;
//! `.ci/panic-free.sh` checks the compiled library calls no panic routine):
//!
//! - the C library is built with `panic = "abort"` in every profile, and refuses to
//!   build without it (`src/lib.rs`), so no unwinding code is compiled in;
//! - every exported function is `extern "C"`, never `"C-unwind"`: since Rust 1.81 a
//!   panic reaching an `extern "C"` function aborts the process instead of unwinding
//!   into the caller, and the crate's `rust-version` must keep that guarantee;
//! - both crates (`src/lib.rs`, `utf8validate-core/src/lib.rs`) deny clippy's
//!   panicking-construct lints, so that `cargo clippy` rejects an `unwrap`, `expect`,
//!   `panic!`, `unreachable!`, `todo!` or `unimplemented!` in library code.

use utf8validate_c_tests::repository as root;

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn library_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            library_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_export_is_extern_c_and_none_may_unwind() {
    let mut files = Vec::new();
    library_sources(&root().join("src"), &mut files);
    let mut exports = 0;
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            assert!(
                !code.contains("-unwind\""),
                "{}:{}: an unwinding ABI: {line}",
                file.display(),
                i + 1
            );
        }
        // The item after each #[no_mangle] (doc comments and attributes skipped).
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, _) in lines
            .iter()
            .enumerate()
            .filter(|(_, l)| **l == "#[no_mangle]")
        {
            let item = lines[i + 1..]
                .iter()
                .find(|l| !l.starts_with("#[") && !l.starts_with("///"))
                .unwrap();
            assert!(
                item.starts_with("pub extern \"C\" fn ")
                    || item.starts_with("pub unsafe extern \"C\" fn "),
                "{}: #[no_mangle] on something other than an extern \"C\" fn: {item}",
                file.display()
            );
            exports += 1;
        }
    }
    // The C ABI has well over a dozen functions; finding none means this scan broke.
    assert!(exports >= 15, "only {exports} exported functions found");
}

#[test]
fn rust_version_keeps_abort_at_the_c_boundary() {
    let manifest = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("Cargo.toml sets rust-version");
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap());
    let (major, minor) = (parts.next().unwrap(), parts.next().unwrap_or(0));
    assert!(
        (major, minor) >= (1, 81),
        "rust-version {version}: panics abort at extern \"C\" boundaries only since 1.81"
    );
}

#[test]
fn the_c_library_is_built_to_abort() {
    let manifest = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for profile in ["[profile.dev]", "[profile.release]"] {
        let table = manifest
            .split(profile)
            .nth(1)
            .and_then(|rest| rest.split("\n[").next())
            .unwrap_or_else(|| panic!("Cargo.toml has no {profile}"));
        assert!(
            table.lines().any(|l| l.trim() == "panic = \"abort\""),
            "{profile} does not say panic = \"abort\""
        );
    }
    let lib = fs::read_to_string(root().join("src/lib.rs")).unwrap();
    assert!(lib.contains("not(panic = \"abort\")") && lib.contains("compile_error!"));
    assert!(lib.contains("#[panic_handler]") && lib.contains("libc::abort()"));
}

#[test]
fn both_crates_deny_panicking_constructs() {
    for crate_root in ["src/lib.rs", "utf8validate-core/src/lib.rs"] {
        denies_panicking_constructs(crate_root);
    }
}

fn denies_panicking_constructs(crate_root: &str) {
    let lib = fs::read_to_string(root().join(crate_root)).unwrap();
    let attribute = lib
        .split("#![cfg_attr(")
        .skip(1)
        .find(|a| a.trim_start().starts_with("not(test)"))
        .and_then(|a| a.split(")]").next())
        .unwrap_or_else(|| panic!("{crate_root} has no #![cfg_attr(not(test), deny(...))]"));
    for lint in [
        "clippy::unwrap_used",
        "clippy::expect_used",
        "clippy::panic",
        "clippy::unreachable",
        "clippy::todo",
        "clippy::unimplemented",
    ] {
        assert!(
            attribute.contains(lint),
            "{crate_root} no longer denies {lint}"
        );
    }
}
