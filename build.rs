//! Generates the C header `include/utf8validate.h` from the Rust sources with cbindgen.
//!
//! The header is committed so that C users without Rust have it. It is generated into
//! `$OUT_DIR` on every build and copied over `include/utf8validate.h` when it differs,
//! with a warning; `c-tests/tests/header.rs` fails when the committed header is not what this
//! script generates, so a stale header cannot land.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let crate_dir =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=utf8validate-core/src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");
    // A hand edit of the header makes this script run again and undo it.
    println!("cargo:rerun-if-changed=include/utf8validate.h");

    shared_library_identity();

    let mut config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    // The version macros come from Cargo.toml, the one place the version is written.
    config.after_includes = Some(format!(
        "\n/** The version of the header (and of the library built with it): {v}. */\n\
         #define UTF8VALIDATE_VERSION_MAJOR {major}\n\
         #define UTF8VALIDATE_VERSION_MINOR {minor}\n\
         #define UTF8VALIDATE_VERSION_PATCH {patch}\n\
         #define UTF8VALIDATE_VERSION_STRING \"{v}\"",
        v = env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION"),
        major = env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets it"),
        minor = env::var("CARGO_PKG_VERSION_MINOR").expect("cargo sets it"),
        patch = env::var("CARGO_PKG_VERSION_PATCH").expect("cargo sets it"),
    ));

    let generated = out_dir.join("utf8validate.h");
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write_to_file(&generated);

    // cbindgen prefixes variants with the enum's C name (UTF8_ERROR_KIND_SURROGATE);
    // the API spells the error kinds UTF8_ERROR_SURROGATE and so on.
    let text = fs::read_to_string(&generated).expect("generated header is readable");
    let text = text.replace("UTF8_ERROR_KIND_", "UTF8_ERROR_");
    fs::write(&generated, &text).expect("OUT_DIR is writable");

    let committed = crate_dir.join("include").join("utf8validate.h");
    let new = text.into_bytes();
    if fs::read(&committed).ok().as_deref() != Some(new.as_slice()) {
        fs::create_dir_all(committed.parent().expect("include/ has a parent"))
            .expect("include/ can be created");
        fs::write(&committed, &new).expect("include/utf8validate.h is writable");
        println!("cargo:warning=include/utf8validate.h was regenerated; commit it");
    }
}

/// The identity of the shared library: its soname and symbol versions on Linux (ELF),
/// its install name and versions on Apple systems (Mach-O). `cmake/` installs the file
/// under the same names; `.ci/packaging-tests.sh` checks the Linux ones with `readelf`,
/// `.ci/macos-checks.sh` the Apple linker's arguments. Windows needs none: a program
/// records the DLL's file name, `utf8validate.dll`.
///
/// - Soname: `libutf8validate.so.<major>`, also while the major version is 0 (0.1.x and
///   0.2.x are both `libutf8validate.so.0`). The C ABI only grows within a major
///   version: functions and enum values are only ever appended, and the structs are
///   allocated by the caller and never change layout (`utf8_stream` keeps reserved
///   space for later fields), so a 0.2 library can replace 0.1 under programs linked
///   against 0.1. A change that breaks the ABI bumps the major version and with it the
///   soname's number. (This is stricter than Cargo's semver, and than cargo-c's soname
///   `.so.0.<minor>`, which let 0.x minor releases break compatibility.)
/// - Symbol versions: every exported symbol is versioned with the soname
///   (`utf8_validate@@libutf8validate.so.0`), so that two of our libraries with
///   different sonames (majors) loaded into one process (each needed by some other
///   library) each keep their own functions instead of one interposing the other's.
///   rustc already hides every symbol but the `#[no_mangle] extern "C"` ones with an
///   anonymous version script, which GNU ld refuses to combine with a named version node
///   and rust-lld lets win over one; `--default-symver` adds the version without a
///   second script, and only GNU ld (bfd) has it, hence `-fuse-ld=bfd` (any gcc or clang
///   driver accepts it).
fn shared_library_identity() {
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let vendor = env::var("CARGO_CFG_TARGET_VENDOR").unwrap_or_default();
    let target_env = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let major = env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets CARGO_PKG_VERSION_MAJOR");
    if vendor == "apple" {
        install_name(&major);
        return;
    }
    if os != "linux" {
        return;
    }
    let soname = format!("libutf8validate.so.{major}");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    if target_env == "gnu" {
        println!("cargo:rustc-cdylib-link-arg=-fuse-ld=bfd");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--default-symver");
    }
    link_in_build_tree(&soname, "libutf8validate.so");
}

/// Mach-O: the install name, which a program linked against the library records, is
/// `@rpath/libutf8validate.<major>.dylib`, the same rule as the soname (the program
/// finds the library on its run-path list). Without it the linker would record the
/// path cargo wrote the file to. The versions, which dyld compares: the compatibility
/// version is `<major>.<minor>.0`, as a program linked against 0.2 may call a function
/// 0.1 lacks (dyld refuses to load an older minor release under it, and takes any later
/// one of the same major version); the current version is the release,
/// `<major>.<minor>.<patch>`.
fn install_name(major: &str) {
    let minor = env::var("CARGO_PKG_VERSION_MINOR").expect("cargo sets CARGO_PKG_VERSION_MINOR");
    let patch = env::var("CARGO_PKG_VERSION_PATCH").expect("cargo sets CARGO_PKG_VERSION_PATCH");
    let file = format!("libutf8validate.{major}.dylib");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/{file}");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-compatibility_version,{major}.{minor}.0");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-current_version,{major}.{minor}.{patch}");
    link_in_build_tree(&file, "libutf8validate.dylib");
}

/// Makes the build tree usable in place: a program linked with
/// `-L target/release -lutf8validate` records the soname (install name), so the dynamic
/// loader looks for `libutf8validate.so.<major>` (`libutf8validate.<major>.dylib`), a
/// name cargo does not make. This puts the link `name -> file` (the file cargo makes)
/// next to the library cargo is about to link (`target/<profile>/`, or
/// `target/<triple>/<profile>/`: three levels above `OUT_DIR`, which cargo places in
/// `<that directory>/build/<package>-<hash>/out`). The link is relative, so the tree
/// can be moved or copied with it.
fn link_in_build_tree(name: &str, file: &str) {
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let Some(profile_dir) = out_dir.ancestors().nth(3) else {
        return;
    };
    let link = profile_dir.join(name);
    if fs::read_link(&link).is_ok_and(|to| to == Path::new(file)) {
        return;
    }
    let _ = fs::remove_file(&link);
    // The host (where this script runs) may not be Unix.
    #[cfg(unix)]
    if let Err(e) = std::os::unix::fs::symlink(file, &link) {
        println!("cargo:warning=cannot create {}: {e}", link.display());
    }
}
