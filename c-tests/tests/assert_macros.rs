//! The header's debug macros — `UTF8_ASSERT_VALID`, `UTF8_ASSERT_VALID_CSTR`,
//! `UTF8_CHECK_OR_RETURN`, `UTF8_CHECK_OR_RETURN_VOID` — in a real C program:
//! `c-tests/assert/assert_demo.c`, built as C99 and C11 (gcc, clang) and as C++11 and
//! C++17 (g++, clang++) with `-Wall -Wextra -pedantic -Werror`, each with and without
//! `-DNDEBUG`, linked against the `libutf8validate.so` cargo built for this test run,
//! and run once per mode.
//!
//! Expected: without NDEBUG, bad input kills the program with SIGABRT after exactly
//! `FILE:LINE: FUNCTION: invalid UTF-8 at byte B of EXPR: MESSAGE` on stderr; with
//! NDEBUG it survives and the (side-effecting) arguments are not evaluated;
//! `UTF8_CHECK_OR_RETURN` logs the same line and returns in both builds. The byte
//! offsets come from Rust's `std::str::from_utf8` on the same bytes, the line numbers
//! from marker comments in the source.
//!
//! A compiler that is missing skips its test with a message, or fails it when
//! `CI=true`.
#![cfg(target_os = "linux")]

use utf8validate_c_tests as support;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use utf8validate_core::ErrorKind;

/// `bad` in assert_demo.c: "ok " and a surrogate.
const BAD: &[u8] = b"ok \xED\xA0\x80!";
/// `bad_cstr` in assert_demo.c, without its NUL: "path" and an overlong form.
const BAD_CSTR: &[u8] = b"path\xC0\xAFetc";
const SIGABRT: i32 = 6;

fn source_dir() -> PathBuf {
    support::repository().join("c-tests/assert")
}

/// A directory holding `libutf8validate.so` (the one `cargo build` made, see
/// `support::library_dir`) under its file name and its soname, if it has one, so
/// that programs linked with `-lutf8validate` load it.
fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("assert-macros-lib");
        support::link_shared_library_into(&dir);
        dir
    })
}

/// 1-based number of the one line of assert_demo.c holding `marker`.
fn line_of(marker: &str) -> usize {
    let text = std::fs::read_to_string(source_dir().join("assert_demo.c")).expect("source");
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "marker {marker} must be on exactly one line"
    );
    lines[0]
}

/// Offset of the first ill-formed sequence, by the Rust standard library.
fn first_error(bytes: &[u8]) -> usize {
    std::str::from_utf8(bytes)
        .expect_err("the test input is ill-formed")
        .valid_up_to()
}

/// Builds assert_demo.c with `compiler` and `flags` (plus `-DNDEBUG` when `ndebug`).
/// The compiler runs in c-tests/assert on "assert_demo.c", so `__FILE__` is that.
fn build(compiler: &str, flags: &[&str], ndebug: bool) -> PathBuf {
    let name = format!(
        "assert_demo-{compiler}{}{}",
        flags.concat().replace(['-', '=', '+'], "_"),
        if ndebug { "-ndebug" } else { "" }
    );
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let lib = library_dir();
    let mut cmd = Command::new(compiler);
    cmd.current_dir(source_dir())
        .args(["-Wall", "-Wextra", "-pedantic", "-Werror", "-g"])
        .args(flags)
        .arg(format!(
            "-I{}",
            support::repository().join("include").display()
        ));
    if ndebug {
        cmd.arg("-DNDEBUG");
    }
    cmd.arg("assert_demo.c")
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lutf8validate")
        .arg(format!("-Wl,-rpath,{}", lib.display()));
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed (the header must compile warning-free):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, mode: &str) -> Output {
    Command::new(exe)
        .arg(mode)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The line every macro prints for ill-formed input.
fn report(marker: &str, func: &str, offset: usize, expr: &str, why: &str) -> String {
    format!(
        "assert_demo.c:{}: {func}: invalid UTF-8 at byte {offset} of {expr}: {why}\n",
        line_of(marker)
    )
}

fn assert_aborted(out: &Output, what: &str, stderr: &str) {
    assert_eq!(
        out.status.signal(),
        Some(SIGABRT),
        "{what}: expected death by SIGABRT, got {:?}; stderr:\n{}",
        out.status,
        text(&out.stderr)
    );
    assert_eq!(text(&out.stderr), stderr, "{what}: stderr");
    assert_eq!(
        text(&out.stdout),
        "",
        "{what}: nothing after the assertion runs"
    );
}

fn assert_exited(out: &Output, what: &str, stdout: &str, stderr: &str) {
    assert!(
        out.status.success(),
        "{what}: expected exit 0, got {:?}; stderr:\n{}",
        out.status,
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), stdout, "{what}: stdout");
    assert_eq!(text(&out.stderr), stderr, "{what}: stderr");
}

/// Builds and runs every mode of assert_demo for one compiler and language standard.
fn check(compiler: &str, flags: &[&str]) {
    let surrogate = ErrorKind::Surrogate.message();
    let overlong = ErrorKind::Overlong.message();
    let check_or_return_log = report(
        "@check-or-return */",
        "parse_name",
        first_error(BAD),
        "name",
        surrogate,
    ) + &report(
        "@check-or-return-void",
        "log_line",
        first_error(BAD),
        "line",
        surrogate,
    );
    let check_or_return_out = "parse_name returned -1\nreturned\n";

    // Assertions on: evaluated arguments, abort on bad input.
    let debug = build(compiler, flags, false);
    let what = |mode: &str| format!("{compiler} {flags:?} {mode}");
    assert_exited(
        &run(&debug, "valid"),
        &what("valid"),
        "stored 7 bytes\nstored na\u{ef}ve\nparse_name returned 7\nlogged 7 bytes\n\
         passed, length evaluated 1 times\n",
        "",
    );
    assert_aborted(
        &run(&debug, "invalid"),
        &what("invalid"),
        &report(
            "@assert-buffer",
            "store_name",
            first_error(BAD),
            "name",
            surrogate,
        ),
    );
    assert_aborted(
        &run(&debug, "invalid_cstr"),
        &what("invalid_cstr"),
        &report(
            "@assert-cstr",
            "store_title",
            first_error(BAD_CSTR),
            "title",
            overlong,
        ),
    );
    assert_aborted(
        &run(&debug, "null"),
        &what("null"),
        &report(
            "@assert-buffer",
            "store_name",
            0,
            "name",
            "the buffer is NULL but its length is 3",
        ),
    );
    assert_aborted(
        &run(&debug, "side_effect"),
        &what("side_effect"),
        &report("@side-effect", "main", first_error(BAD), "bad", surrogate),
    );
    assert_exited(
        &run(&debug, "check_or_return"),
        &what("check_or_return"),
        check_or_return_out,
        &check_or_return_log,
    );

    // NDEBUG: the assertions vanish, arguments unevaluated; UTF8_CHECK_OR_RETURN stays.
    let release = build(compiler, flags, true);
    let what = |mode: &str| format!("{compiler} {flags:?} -DNDEBUG {mode}");
    assert_exited(
        &run(&release, "valid"),
        &what("valid"),
        "stored 7 bytes\nstored na\u{ef}ve\nparse_name returned 7\nlogged 7 bytes\n\
         passed, length evaluated 0 times\n",
        "",
    );
    assert_exited(
        &run(&release, "invalid"),
        &what("invalid"),
        "stored 7 bytes\nsurvived\n",
        "",
    );
    let out = run(&release, "invalid_cstr");
    assert!(
        out.status.success(),
        "{}: {:?}",
        what("invalid_cstr"),
        out.status
    );
    assert_eq!(text(&out.stderr), "", "{}", what("invalid_cstr"));
    assert_exited(
        &run(&release, "null"),
        &what("null"),
        "stored 3 bytes (none)\nsurvived\n",
        "",
    );
    assert_exited(
        &run(&release, "side_effect"),
        &what("side_effect"),
        "survived, i = 0\n",
        "",
    );
    assert_exited(
        &run(&release, "check_or_return"),
        &what("check_or_return"),
        check_or_return_out,
        &check_or_return_log,
    );
}

#[test]
fn gcc_c99_and_c11() {
    if support::have("gcc") {
        check("gcc", &["-std=c99"]);
        check("gcc", &["-std=c11"]);
    }
}

#[test]
fn clang_c99_and_c11() {
    if support::have("clang") {
        check("clang", &["-std=c99"]);
        check("clang", &["-std=c11"]);
    }
}

#[test]
fn gxx_cxx11_and_cxx17() {
    if support::have("g++") {
        check("g++", &["-x", "c++", "-std=c++11"]);
        check("g++", &["-x", "c++", "-std=c++17"]);
    }
}

#[test]
fn clangxx_cxx11_and_cxx17() {
    if support::have("clang++") {
        check("clang++", &["-x", "c++", "-std=c++11"]);
        check("clang++", &["-x", "c++", "-std=c++17"]);
    }
}

/// The header can be included twice, and each inclusion re-reads NDEBUG (as
/// <assert.h>): a file that turns assertions off in its second half compiles without
/// redefinition warnings, and only the first assertion fires.
#[test]
fn ndebug_is_read_at_each_inclusion() {
    if !support::have("gcc") {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let src = dir.join("reinclude.c");
    std::fs::write(
        &src,
        "#include \"utf8validate.h\"\n\
         #include <stdio.h>\n\
         static void off(void);\n\
         int main(void) {\n\
           UTF8_ASSERT_VALID(\"ok\", 2);\n\
           off();\n\
           UTF8_ASSERT_VALID(\"\\xFF\", 1); /* still on: the macro was expanded here before */\n\
           return 0;\n\
         }\n\
         #define NDEBUG\n\
         #include \"utf8validate.h\"\n\
         static void off(void) { UTF8_ASSERT_VALID(\"\\xFF\", 1); fputs(\"off\\n\", stderr); }\n",
    )
    .expect("write reinclude.c");
    let exe = dir.join("reinclude");
    let lib = library_dir();
    let out = Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"])
        .arg(format!(
            "-I{}",
            support::repository().join("include").display()
        ))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lutf8validate")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .output()
        .expect("gcc runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&exe, "");
    assert_eq!(out.status.signal(), Some(SIGABRT), "{:?}", out.status);
    assert_eq!(
        text(&out.stderr),
        format!(
            "off\n{}:7: main: invalid UTF-8 at byte 0 of \"\\xFF\": {}\n",
            src.display(),
            ErrorKind::InvalidByte.message()
        )
    );
}

/// With standard error closed, the report cannot be written: the failed assertion
/// gives up on the line (it is only a report) and still aborts, within seconds; it
/// neither hangs retrying the write nor dies another way.
#[test]
fn a_failed_assertion_aborts_when_stderr_is_closed() {
    let exe = build("cc", &["-std=c99"], false);
    let mut child = Command::new("sh")
        .args(["-c", "exec \"$0\" invalid 2>&-"])
        .arg(&exe)
        .spawn()
        .expect("sh runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            panic!("the assertion with stderr closed still runs after 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.signal(), Some(SIGABRT), "{status:?}");
}
