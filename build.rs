//! Generates the C header `include/utf8validate.h` from the Rust sources with cbindgen.
//!
//! The header is committed so that C users without Rust have it. It is generated into
//! `$OUT_DIR` on every build and copied over `include/utf8validate.h` when it differs,
//! with a warning; `tests/header.rs` fails when the committed header is not what this
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

/// The soname and symbol versions of the shared library on Linux (ELF); `cmake/` installs
/// the file under the same names, and `.ci/packaging-tests.sh` checks both with `readelf`.
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
    let target_env = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" {
        return;
    }
    let major = env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets CARGO_PKG_VERSION_MAJOR");
    let soname = format!("libutf8validate.so.{major}");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    if target_env == "gnu" {
        println!("cargo:rustc-cdylib-link-arg=-fuse-ld=bfd");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--default-symver");
    }
    soname_link_in_build_tree(&soname);
}

/// Makes the build tree usable in place: a program linked with
/// `-L target/release -lutf8validate` records the soname, so the dynamic loader looks
/// for `libutf8validate.so.<major>`, a name cargo does not make. This puts the link
/// `libutf8validate.so.<major> -> libutf8validate.so` next to the library cargo is
/// about to link (`target/<profile>/`, or `target/<triple>/<profile>/`: three levels
/// above `OUT_DIR`, which cargo places in `<that directory>/build/<package>-<hash>/out`).
/// The link is relative, so the tree can be moved or copied with it.
fn soname_link_in_build_tree(soname: &str) {
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let Some(profile_dir) = out_dir.ancestors().nth(3) else {
        return;
    };
    let link = profile_dir.join(soname);
    if fs::read_link(&link).is_ok_and(|to| to == Path::new("libutf8validate.so")) {
        return;
    }
    let _ = fs::remove_file(&link);
    // The target is Linux; the host (where this script runs) may not be Unix.
    #[cfg(unix)]
    if let Err(e) = std::os::unix::fs::symlink("libutf8validate.so", &link) {
        println!("cargo:warning=cannot create {}: {e}", link.display());
    }
}
