//! What a program that links the library takes on, read off the artifacts `cargo build`
//! makes (`support::library_dir`):
//!
//! - the shared library needs the C library and nothing else (no libgcc_s, no
//!   libpthread, libdl or libm: no Rust standard library, unwinder or threads inside);
//! - it references no glibc symbol version above `GLIBC_2.17`, so it loads on every
//!   glibc since 2.17 (CentOS 7, RHEL 8, Debian 11, Ubuntu 20.04 and later);
//! - a C program linked with `-L target/<profile> -lutf8validate` runs from the build
//!   tree with `LD_LIBRARY_PATH=target/<profile>` (the soname's file is there);
//! - a C program linked with the static library and nothing else runs.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::path::Path;
use std::process::Command;

use utf8validate_c_tests as support;

/// The newest glibc symbol version the shared library may reference: 2.17's.
const NEWEST_GLIBC: (u32, u32) = (2, 17);

fn readelf(args: &[&str], file: &Path) -> String {
    let out = Command::new("readelf")
        .args(args)
        .arg(file)
        .output()
        .expect("readelf runs (binutils, which the C compiler needs anyway)");
    assert!(out.status.success(), "readelf {args:?} {}", file.display());
    String::from_utf8(out.stdout).expect("readelf prints text")
}

#[test]
fn shared_library_needs_only_the_c_library() {
    let so = support::artifact("libutf8validate.so");
    let dynamic = readelf(&["-d"], &so);
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split_once('[')?.1.split_once(']').map(|(name, _)| name))
        .collect();
    assert_eq!(needed, ["libc.so.6"], "DT_NEEDED of {}", so.display());
}

#[test]
fn no_glibc_symbol_version_above_2_17() {
    let so = support::artifact("libutf8validate.so");
    let symbols = readelf(&["--dyn-syms", "-W"], &so);
    let mut versions: Vec<(u32, u32)> = symbols
        .split("@GLIBC_")
        .skip(1)
        .filter_map(|rest| {
            let version: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
            Some((parts.next()??, parts.next().flatten().unwrap_or(0)))
        })
        .collect();
    versions.sort_unstable();
    versions.dedup();
    // The filter works: the library does reference glibc (write, abort, getenv).
    assert!(
        !versions.is_empty(),
        "no GLIBC_ version found in {}",
        so.display()
    );
    let newest = *versions.last().unwrap();
    assert!(
        newest <= NEWEST_GLIBC,
        "{} references GLIBC_{}.{}; all: {versions:?}",
        so.display(),
        newest.0,
        newest.1
    );
    eprintln!("glibc versions referenced: {versions:?}");
}

/// Compiles `c-tests/consumers/common/consumer.c` with `args` into the scratch
/// directory and returns the program.
fn consumer(name: &str, args: &[&str]) -> std::path::PathBuf {
    if !support::have("cc") {
        return std::path::PathBuf::new();
    }
    let dir = support::scratch("linkage");
    let exe = dir.join(name);
    let out = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I"])
        .arg(support::repository().join("include"))
        .arg(support::repository().join("c-tests/consumers/common/consumer.c"))
        .arg("-o")
        .arg(&exe)
        .args(args)
        .output()
        .expect("cc runs");
    assert!(
        out.status.success(),
        "cc {args:?}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs a consumer on a valid and an ill-formed input (the answers worked out from
/// RFC 3629: ED A0 80 is the surrogate U+D800, at byte 3).
fn assert_consumer_runs(exe: &Path, env: &[(&str, &Path)]) {
    for (input, status, output) in [
        (&b"h\xC3\xA9llo\n"[..], 0, "valid: 7 bytes"),
        (b"ok \xED\xA0\x80 surrogate\n", 1, "invalid at byte 3"),
    ] {
        let mut child = Command::new(exe)
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the consumer starts");
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).trim()
            ),
            (Some(status), output),
            "{}: {}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn build_tree_is_usable_in_place() {
    let dir = support::library_dir();
    let exe = consumer(
        "in-place",
        &[&format!("-L{}", dir.display()), "-lutf8validate"],
    );
    if exe.as_os_str().is_empty() {
        return;
    }
    // The program asks for the soname, which the build tree has, as a link.
    let needed = readelf(&["-d"], &exe);
    assert!(needed.contains("[libutf8validate.so.0]"), "{needed}");
    assert_consumer_runs(&exe, &[("LD_LIBRARY_PATH", dir)]);
}

#[test]
fn static_library_alone_links() {
    let a = support::artifact("libutf8validate.a");
    let exe = consumer("static-alone", &[a.to_str().unwrap()]);
    if exe.as_os_str().is_empty() {
        return;
    }
    let needed = readelf(&["-d"], &exe);
    assert!(!needed.contains("libutf8validate"), "{needed}");
    assert_consumer_runs(&exe, &[]);
}
