//! The gdb extension `gdb/utf8validate.py` in a real gdb, on real programs:
//! `c-tests/gdb/requests.c` (C99) and `c-tests/gdb/strings.cpp` (C++17, built with
//! both libstdc++ string ABIs), compiled with `-g -O0` and linked against the
//! `libutf8validate.so` cargo built for this test run.
//!
//! Each test drives `gdb -batch -nx` with a script and asserts on gdb's output:
//! `utf8-check` on a valid buffer, invalid ones, a `char[N]` array, NUL-terminated
//! strings, `std::string` and `std::string_view`; `$utf8_valid` in a breakpoint
//! condition that must stop exactly on the invalid requests; the same checks on a core
//! file written by `gcore`; the error messages; finding the library in an install
//! prefix and auto-loading the script from one.
//!
//! The expected offsets, lines and columns come from Rust's `std::str::from_utf8` on
//! the same bytes as the C sources (repeated below), not from the library; the hex
//! dump is also compared with `utf8check -v` on the same bytes.
//!
//! gdb, gcc and g++ missing: the tests skip with a message, or fail when `CI=true`.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use utf8validate_c_tests as support;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use utf8validate_core::ErrorKind;

// The buffers of c-tests/gdb/requests.c.
const GREETING: &[u8] = b"Gr\xC3\xBC\xC3\x9Fe, Z\xC3\xBCrich\n\xE2\x82\xAC 5";
const SURROGATE: &[u8] = b"ok\ncaf\xC3\xA9 \xED\xA0\x80 end";
const TRUNCATED: &[u8] = b"emoji: \xF0\x9F\x98";
const NAME: &[u8; 16] = b"na\xC3\xAFve\0\0\0\0\0\0\0\0\0\0";
const CSTR: &[u8] = b"path\xC0\xAFetc";
const WORD: &[u8] = b"\xCE\xBA\xCF\x8C\xCF\x83\xCE\xBC\xCE\xB5";
/// The requests handed to handle_request(), in order: (id, body).
const REQUESTS: [(u32, &[u8]); 4] = [(1, GREETING), (2, SURROGATE), (3, WORD), (4, TRUNCATED)];

// The strings of c-tests/gdb/strings.cpp.
const SHORT_OK: &[u8] = b"Gr\xC3\xBC\xC3\x9Fe";
const LONG_BAD: &[u8] = b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x80tail";
const WITH_NUL: &[u8] = b"ab\0cd\n\xED\xA0\x80";
const VIEW: &[u8] = b"aa\x80tai";

/// Each gdb session takes about a second; a hung one is killed after this.
const TIMEOUT: Duration = Duration::from_secs(120);

fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gdb-tests")
}

fn have_all(tools: &[&str]) -> bool {
    tools.iter().all(|t| support::have(t))
}

/// The `libutf8validate.so` `cargo build` made (see `support::library_dir`).
fn built_library() -> PathBuf {
    support::artifact("libutf8validate.so")
}

/// Puts a copy of the built library into `libdir` as `libutf8validate.so` and under
/// its soname (if any), the names a program linked with `-lutf8validate` looks for.
fn install_library(libdir: &Path) {
    std::fs::create_dir_all(libdir).expect("create the lib dir");
    let built = built_library();
    let mut names = vec!["libutf8validate.so".to_string()];
    names.extend(support::soname(&built));
    for name in names {
        std::fs::copy(&built, libdir.join(name)).expect("copy the library");
    }
}

/// The library directory the test programs are linked against.
fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tmp().join("lib");
        install_library(&dir);
        dir
    })
}

/// Compiles `source` (relative to c-tests/gdb) with `-g -O0` and warnings as errors,
/// linked against `libdir`.
fn compile(compiler: &str, source: &str, flags: &[&str], exe: &Path, libdir: &Path) {
    std::fs::create_dir_all(exe.parent().expect("exe dir")).expect("create the exe dir");
    let mut cmd = Command::new(compiler);
    cmd.args(["-g", "-O0", "-Wall", "-Wextra", "-pedantic", "-Werror"])
        .args(flags)
        .arg(format!(
            "-I{}",
            support::repository().join("include").display()
        ))
        .arg(support::repository().join("c-tests/gdb").join(source))
        .arg("-o")
        .arg(exe)
        .arg(format!("-L{}", libdir.display()))
        .arg("-lutf8validate")
        .arg(format!("-Wl,-rpath,{}", libdir.display()));
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn requests_program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = tmp().join("requests");
        compile("gcc", "requests.c", &["-std=c99"], &exe, library_dir());
        exe
    })
}

fn strings_program(cxx11_abi: bool) -> PathBuf {
    let exe = tmp().join(if cxx11_abi { "strings" } else { "strings-cow" });
    let abi = format!("-D_GLIBCXX_USE_CXX11_ABI={}", u8::from(cxx11_abi));
    compile(
        "g++",
        "strings.cpp",
        &["-std=c++17", &abi],
        &exe,
        library_dir(),
    );
    exe
}

fn script_path() -> PathBuf {
    support::repository().join("gdb/utf8validate.py")
}

/// Runs `gdb -batch -nx` with `commands` as its script file (`name.gdb` in the temp
/// dir) and `args`, returning stdout and stderr interleaved as gdb wrote them.
/// UTF8VALIDATE_LIB points at the built library unless `env` overrides it.
fn gdb(name: &str, commands: &[String], args: &[&str], env: &[(&str, Option<&str>)]) -> String {
    let dir = tmp();
    std::fs::create_dir_all(&dir).expect("create the temp dir");
    let script = dir.join(format!("{name}.gdb"));
    std::fs::write(&script, commands.join("\n") + "\n").expect("write the gdb script");
    let log = dir.join(format!("{name}.log"));
    let out = File::create(&log).expect("create the log");
    let mut cmd = Command::new("gdb");
    cmd.args(["-batch", "-nx"])
        .args(["-iex", "set debuginfod enabled off"])
        .args(["-iex", "set auto-load off"])
        .arg("-x")
        .arg(&script)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("dup the log"))
        .stderr(out)
        .env("UTF8VALIDATE_LIB", built_library())
        .env_remove("CARGO_TARGET_DIR");
    for (key, value) in env {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let mut child = cmd.spawn().expect("gdb runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for gdb") {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "gdb ({name}) took more than {TIMEOUT:?}:\n{}",
                String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Lossy: the programs print some of their ill-formed strings.
    let text = String::from_utf8_lossy(&std::fs::read(&log).expect("read the log")).into_owned();
    assert!(status.success(), "gdb failed ({status}):\n{text}");
    text
}

/// gdb commands that print `@@label` and then run `command`.
fn marked(label: &str, command: &str) -> [String; 2] {
    [format!("echo @@{label}\\n"), command.to_string()]
}

/// The output of the command marked `label`: the lines after `@@label` up to the
/// next marker or the end.
fn section(output: &str, label: &str) -> String {
    let start = format!("@@{label}\n");
    let at = output
        .find(&start)
        .unwrap_or_else(|| panic!("no output for {label} in:\n{output}"))
        + start.len();
    let rest = &output[at..];
    let end = rest.find("@@").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// What `utf8-check` must print for `bytes`, by the Rust standard library: the
/// verdict line (offset, 1-based line and byte column, `kind`'s message) and the
/// two-line hex dump with carets under the maximal subpart.
fn expected(bytes: &[u8], kind: ErrorKind) -> String {
    let error = match std::str::from_utf8(bytes) {
        Ok(_) => {
            assert_eq!(kind, ErrorKind::None, "the test says it is invalid");
            return format!("valid UTF-8 ({} bytes)\n", bytes.len());
        }
        Err(e) => e,
    };
    assert_ne!(kind, ErrorKind::None, "the test says it is valid");
    let at = error.valid_up_to();
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = at
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
        + 1;
    let subpart = error.error_len().unwrap_or(bytes.len() - at);
    let start = at.saturating_sub(8);
    let context = &bytes[start..bytes.len().min(at + 8)];
    let hex: String = context.iter().map(|b| format!("{b:02X} ")).collect();
    let text: String = context
        .iter()
        .map(|&b| {
            if (0x20..0x7F).contains(&b) {
                b as char
            } else {
                '.'
            }
        })
        .collect();
    let carets = format!(
        "{}{}",
        " ".repeat(3 * (at - start)),
        "^".repeat(3 * subpart - 1)
    );
    let text_carets = format!("{}{}", " ".repeat(at - start), "^".repeat(subpart));
    format!(
        "invalid UTF-8 at byte {at} (line {line}, char {column}): {}\n{hex:48} | {text}\n{carets:48} | {text_carets}\n",
        kind.message()
    )
}

/// The `utf8-check` commands run on requests.c's buffers at `checkpoint()`, with
/// what each must print.
fn c_checks() -> Vec<(&'static str, &'static str, String)> {
    let surrogate = expected(SURROGATE, ErrorKind::Surrogate);
    vec![
        (
            "valid",
            "utf8-check requests[0].body requests[0].len",
            expected(GREETING, ErrorKind::None),
        ),
        // const char[23]: all of it, its NUL included.
        (
            "array-with-nul",
            "utf8-check greeting",
            expected(&[GREETING, b"\0"].concat(), ErrorKind::None),
        ),
        // unsigned char[] with an explicit LEN (without its NUL).
        (
            "invalid-len",
            "utf8-check surrogate sizeof(surrogate)-1",
            surrogate.clone(),
        ),
        (
            "pointer-len",
            "utf8-check requests[1].body requests[1].len",
            surrogate,
        ),
        // uint8_t[10]: its size.
        (
            "truncated",
            "utf8-check truncated",
            expected(TRUNCATED, ErrorKind::Truncated),
        ),
        // char[16]: all 16 bytes, NULs included.
        ("array", "utf8-check name", expected(NAME, ErrorKind::None)),
        // Decayed to char *: up to the first NUL.
        (
            "array-to-nul",
            "utf8-check &name[0]",
            expected(b"na\xC3\xAFve", ErrorKind::None),
        ),
        (
            "cstring",
            "utf8-check cstr",
            expected(CSTR, ErrorKind::Overlong),
        ),
        (
            "cstring-valid",
            "utf8-check word",
            expected(WORD, ErrorKind::None),
        ),
        // A prefix cut inside a character is truncated.
        (
            "prefix",
            "utf8-check word 3",
            expected(&WORD[..3], ErrorKind::Truncated),
        ),
        ("valid-fn", "print $utf8_valid(greeting)", "$1 = 1\n".into()),
        ("invalid-fn", "print $utf8_valid(cstr)", "$2 = 0\n".into()),
        (
            "first-error-fn",
            "print $utf8_first_error(requests[1].body, requests[1].len)",
            format!("$3 = {}\n", first_error(SURROGATE)),
        ),
        (
            "first-error-valid",
            "print $utf8_first_error(word)",
            format!("$4 = {}\n", WORD.len()),
        ),
    ]
}

fn first_error(bytes: &[u8]) -> usize {
    std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |s| s.len())
}

fn check_commands() -> Vec<String> {
    c_checks()
        .iter()
        .flat_map(|(label, command, _)| marked(label, command))
        .collect()
}

fn assert_checks(output: &str, context: &str) {
    for (label, command, want) in c_checks() {
        assert_eq!(section(output, label), want, "{context}: `{command}`");
    }
}

#[test]
fn utf8_check_at_a_breakpoint() {
    if !have_all(&["gdb", "gcc"]) {
        return;
    }
    let mut commands = vec![
        format!("source {}", script_path().display()),
        "break checkpoint".into(),
        "run".into(),
        "up".into(),
    ];
    commands.extend(check_commands());
    let out = gdb(
        "live",
        &commands,
        &[requests_program().to_str().unwrap()],
        &[],
    );
    assert_checks(&out, "live process");
}

/// The hex dump is laid out exactly as `utf8check -v` lays out its own.
#[test]
fn dump_matches_utf8check() {
    let utf8check = support::utf8check();
    for (name, bytes, kind) in [
        ("surrogate", SURROGATE, ErrorKind::Surrogate),
        ("truncated", TRUNCATED, ErrorKind::Truncated),
        ("overlong", CSTR, ErrorKind::Overlong),
    ] {
        let file = tmp().join(format!("{name}.txt"));
        std::fs::create_dir_all(tmp()).unwrap();
        std::fs::write(&file, bytes).unwrap();
        let out = Command::new(utf8check)
            .arg("-v")
            .arg(&file)
            .output()
            .unwrap();
        let theirs = String::from_utf8(out.stdout).unwrap();
        let mine = expected(bytes, kind);
        let (my_verdict, my_dump) = mine.split_once('\n').unwrap();
        let (their_verdict, their_dump) = theirs.split_once('\n').unwrap();
        assert_eq!(their_dump.trim_end(), my_dump.trim_end(), "{name}: dump");
        // Same numbers and message, in each tool's own line format.
        let at = first_error(bytes);
        let (position, message) = my_verdict
            .strip_prefix(&format!("invalid UTF-8 at byte {at} ("))
            .unwrap()
            .split_once("): ")
            .unwrap();
        assert_eq!(
            their_verdict,
            format!("{}: {position}, byte {at}: {message}", file.display()),
            "{name}: verdict"
        );
    }
}

#[test]
fn conditional_breakpoint_stops_exactly_on_invalid_requests() {
    if !have_all(&["gdb", "gcc"]) {
        return;
    }
    let mut commands = vec![
        format!("source {}", script_path().display()),
        "break handle_request if !$utf8_valid(req->body, req->len)".into(),
        "run".into(),
    ];
    let invalid = REQUESTS
        .iter()
        .filter(|(_, body)| std::str::from_utf8(body).is_err())
        .count();
    // One `continue` per expected stop: a stop too many leaves the program running
    // (no "exited normally"), a stop too few makes a `continue` fail.
    for _ in 0..invalid {
        commands.push(r#"printf "@@stop id=%d handled-before=%d\n", req->id, handled"#.into());
        commands.push("continue".into());
    }
    commands.push("info breakpoints".into());
    let out = gdb(
        "condition",
        &commands,
        &[requests_program().to_str().unwrap()],
        &[],
    );
    let stops: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("@@stop "))
        .collect();
    let expected: Vec<String> = REQUESTS
        .iter()
        .enumerate()
        .filter(|(_, (_, body))| std::str::from_utf8(body).is_err())
        .map(|(i, (id, _))| format!("id={id} handled-before={i}"))
        .collect();
    assert_eq!(
        stops, expected,
        "stops of the conditional breakpoint:\n{out}"
    );
    assert!(
        out.contains(&format!("breakpoint already hit {} times", expected.len())),
        "{out}"
    );
    assert!(out.contains("handled 4 requests, rejected 2"), "{out}");
    assert!(out.contains("exited normally"), "{out}");
}

#[test]
fn core_file_gives_the_same_answers() {
    if !have_all(&["gdb", "gcc"]) {
        return;
    }
    let exe = requests_program().to_str().unwrap().to_string();
    let core = tmp().join("requests.core");
    let _ = std::fs::remove_file(&core);
    let first = [
        "break checkpoint".to_string(),
        "run".into(),
        format!("gcore {}", core.display()),
        "kill".into(),
    ];
    let out = gdb("gcore", &first, &[&exe], &[]);
    assert!(core.exists(), "gcore wrote no core file:\n{out}");

    // A second gdb, without a process: only the core's memory can be read.
    let mut commands = vec![
        format!("source {}", script_path().display()),
        format!("core-file {}", core.display()),
        "up".into(),
    ];
    commands.extend(check_commands());
    let out = gdb("core", &commands, &[&exe], &[]);
    assert!(
        out.contains("Core was generated by"),
        "not a core session:\n{out}"
    );
    assert_checks(&out, "core file");
}

#[test]
fn cpp_std_string_and_string_view() {
    if !have_all(&["gdb", "g++"]) {
        return;
    }
    let checks = [
        (
            "short",
            "utf8-check short_ok",
            expected(SHORT_OK, ErrorKind::None),
        ),
        (
            "long",
            "utf8-check long_bad",
            expected(LONG_BAD, ErrorKind::UnexpectedContinuation),
        ),
        // Its size counts, not its first NUL.
        (
            "nul",
            "utf8-check with_nul",
            expected(WITH_NUL, ErrorKind::Surrogate),
        ),
        (
            "view",
            "utf8-check view",
            expected(VIEW, ErrorKind::UnexpectedContinuation),
        ),
        ("ref", "utf8-check ref", expected(SHORT_OK, ErrorKind::None)),
        (
            "prefix",
            "utf8-check long_bad 40",
            expected(&LONG_BAD[..40], ErrorKind::None),
        ),
        ("valid-fn", "print $utf8_valid(long_bad)", "$1 = 0\n".into()),
        (
            "first-error-fn",
            "print $utf8_first_error(with_nul)",
            format!("$2 = {}\n", first_error(WITH_NUL)),
        ),
    ];
    for cxx11_abi in [true, false] {
        let exe = strings_program(cxx11_abi);
        let mut commands = vec![
            format!("source {}", script_path().display()),
            "break checkpoint".into(),
            "run".into(),
            "up".into(),
        ];
        for (label, command, _) in &checks {
            commands.extend(marked(label, command));
        }
        let name = if cxx11_abi { "cpp" } else { "cpp-cow" };
        let out = gdb(name, &commands, &[exe.to_str().unwrap()], &[]);
        for (label, command, want) in &checks {
            assert_eq!(&section(&out, label), want, "{name}: `{command}`");
        }
    }
}

#[test]
fn errors_say_what_is_wrong() {
    if !have_all(&["gdb", "gcc"]) {
        return;
    }
    // Errors end a script, so each command goes in its own -ex.
    let exe = requests_program().to_str().unwrap().to_string();
    let source = format!("source {}", script_path().display());
    let cases = [
        ("(char *)0", "the pointer is NULL"),
        (
            "(char *)8 4",
            "cannot read memory at 0x8: byte 0 of the 4 bytes at 0x8",
        ),
        (
            "requests",
            "struct request [4] is not an array of bytes (char, unsigned char, uint8_t)",
        ),
        ("name 17", "LEN 17 exceeds the 16 bytes of the array"),
        ("word -1", "LEN is negative: -1"),
        (
            "word nosuch",
            "LEN nosuch: No symbol \"nosuch\" in current context.",
        ),
        ("&handled", "int * points to int, not to bytes"),
        ("", "usage: utf8-check EXPR [LEN]"),
    ];
    let mut args: Vec<String> = vec![
        "-ex".into(),
        source,
        "-ex".into(),
        "break checkpoint".into(),
        "-ex".into(),
        "run".into(),
        "-ex".into(),
        "up".into(),
    ];
    for (i, (arguments, _)) in cases.iter().enumerate() {
        args.extend(["-ex".into(), format!("echo @@case{i}\\n")]);
        args.extend(["-ex".into(), format!("utf8-check {arguments}")]);
    }
    // Reading stops at unreadable memory and at the 1 MiB cap, with the address.
    for (label, command) in [
        ("edge-address", r#"printf "%lu\n", (unsigned long)edge"#),
        ("edge", "utf8-check edge"),
        ("edge-len", "utf8-check edge 17"),
        ("edge-readable", "utf8-check edge 16"),
        ("big-address", r#"printf "%lu\n", (unsigned long)big"#),
        ("big", "utf8-check big"),
        ("big-len", "utf8-check big 2097151"),
    ] {
        args.extend(["-ex".into(), format!("echo @@{label}\\n")]);
        args.extend(["-ex".into(), command.into()]);
    }
    args.extend([
        "-ex".into(),
        "echo @@help\\n".into(),
        "-ex".into(),
        "help utf8-check".into(),
    ]);
    args.push(exe);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = gdb("errors", &[], &args, &[]);
    for (i, (arguments, message)) in cases.iter().enumerate() {
        let got = section(&out, &format!("case{i}"));
        assert!(
            got.starts_with(message),
            "utf8-check {arguments}: expected {message:?}, got {got:?}"
        );
    }
    let edge: u64 = section(&out, "edge-address")
        .trim()
        .parse()
        .expect("an address");
    let page = edge + 16;
    assert_eq!(
        section(&out, "edge"),
        format!(
            "cannot read memory at {page:#x} (byte 16 of the string at {edge:#x}) before \
             finding its NUL; give the length: utf8-check EXPR LEN\n"
        )
    );
    assert_eq!(
        section(&out, "edge-len"),
        format!("cannot read memory at {page:#x}: byte 16 of the 17 bytes at {edge:#x}\n")
    );
    assert_eq!(section(&out, "edge-readable"), "valid UTF-8 (16 bytes)\n");
    let big: u64 = section(&out, "big-address")
        .trim()
        .parse()
        .expect("an address");
    assert_eq!(
        section(&out, "big"),
        format!(
            "no NUL in the first 1048576 bytes of the string at {big:#x}; give the length: \
             utf8-check EXPR LEN\n"
        )
    );
    assert_eq!(section(&out, "big-len"), "valid UTF-8 (2097151 bytes)\n");
    let help = section(&out, "help");
    assert!(
        help.starts_with("Check whether a string or buffer"),
        "{help}"
    );
    assert!(help.contains("Usage: utf8-check EXPR [LEN]"), "{help}");
    assert!(
        help.contains("break handle_request if !$utf8_valid(req->body, req->len)"),
        "{help}"
    );
}

#[test]
fn missing_library_is_reported_with_the_paths_tried() {
    if !support::have("gdb") {
        return;
    }
    let missing = tmp().join("nowhere/libutf8validate.so");
    let missing = missing.to_str().unwrap();
    // An error ends a script, so this runs through -ex.
    let source = format!("source {}", script_path().display());
    let args = [
        "-ex",
        &source,
        "-ex",
        "echo @@load\\n",
        "-ex",
        "utf8-check \"abc\"",
        "-ex",
        "echo @@end\\n",
    ];
    let out = gdb(
        "missing",
        &[],
        &args,
        &[("UTF8VALIDATE_LIB", Some(missing))],
    );
    let got = section(&out, "load");
    assert!(
        got.starts_with(&format!(
            "utf8validate: cannot load libutf8validate; tried:\n  {missing}: no such file\n\
             Set UTF8VALIDATE_LIB to the library's path"
        )),
        "{got}"
    );
}

/// The layout an install gives: PREFIX/lib/libutf8validate.so* and the script in
/// PREFIX/share/utf8validate/gdb/ with its shared module in
/// PREFIX/share/utf8validate/debugger/ (found relative to the script) or auto-loaded from
/// PREFIX/share/gdb/auto-load/PREFIX/lib/libutf8validate.so.<version>-gdb.py (found
/// as the object file the script is loaded for).
#[test]
fn install_prefix_sourced_and_auto_loaded() {
    if !have_all(&["gdb", "gcc"]) {
        return;
    }
    let prefix = tmp().join("prefix");
    let _ = std::fs::remove_dir_all(&prefix);
    // As cmake/ installs it: the real file, the soname and the development name as
    // symbolic links to it.
    let libdir = prefix.join("lib");
    std::fs::create_dir_all(&libdir).unwrap();
    let real = format!("libutf8validate.so.{}", support::library_version());
    std::fs::copy(built_library(), libdir.join(&real)).unwrap();
    let needed = support::soname(&built_library()).unwrap_or_else(|| "libutf8validate.so".into());
    for link in [needed.as_str(), "libutf8validate.so"] {
        if !libdir.join(link).exists() {
            std::os::unix::fs::symlink(&real, libdir.join(link)).unwrap();
        }
    }
    let shared = prefix.join("share/utf8validate/gdb");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::copy(script_path(), shared.join("utf8validate.py")).unwrap();
    // The module the script shares with the lldb extension, found beside gdb/ by
    // both the sourced script and the auto-loaded copy.
    let common = prefix.join("share/utf8validate/debugger");
    std::fs::create_dir_all(&common).unwrap();
    std::fs::copy(
        support::repository().join("debugger/utf8validate_debugger.py"),
        common.join("utf8validate_debugger.py"),
    )
    .unwrap();
    let auto_load_root = prefix.join("share/gdb/auto-load");
    let auto_load = auto_load_root.join(libdir.strip_prefix("/").unwrap());
    std::fs::create_dir_all(&auto_load).unwrap();
    // gdb looks for the script under the library's real file name (links resolved).
    std::fs::copy(script_path(), auto_load.join(format!("{real}-gdb.py"))).unwrap();
    let exe = prefix.join("bin/requests");
    compile("gcc", "requests.c", &["-std=c99"], &exe, &libdir);
    let exe = exe.to_str().unwrap();
    let no_env = [("UTF8VALIDATE_LIB", None), ("LD_LIBRARY_PATH", None)];

    // Sourced from PREFIX/share/utf8validate/gdb: the library is found in PREFIX/lib.
    let commands = [
        format!("source {}", shared.join("utf8validate.py").display()),
        "break checkpoint".into(),
        "run".into(),
        "up".into(),
        "echo @@check\\n".into(),
        "utf8-check cstr".into(),
        "echo @@path\\n".into(),
        "python print(library().utf8validate_path)".into(),
    ];
    let out = gdb("prefix-sourced", &commands, &[exe], &no_env);
    assert_eq!(
        section(&out, "check"),
        expected(CSTR, ErrorKind::Overlong),
        "{out}"
    );
    let found = section(&out, "path");
    assert!(
        found.trim().starts_with(libdir.to_str().unwrap()),
        "library not taken from the prefix: {found}"
    );

    // Auto-loaded for the library the program loads: no `source` at all.
    let commands = [
        "break checkpoint".to_string(),
        "run".into(),
        "up".into(),
        "echo @@check\\n".into(),
        "utf8-check cstr".into(),
        "echo @@path\\n".into(),
        "python print(library().utf8validate_path)".into(),
    ];
    let auto_args = [
        "-iex",
        "set auto-load python-scripts on",
        "-iex",
        &format!(
            "set auto-load scripts-directory {}",
            auto_load_root.display()
        ),
        "-iex",
        &format!("set auto-load safe-path {}", prefix.display()),
        exe,
    ];
    let out = gdb("prefix-auto-load", &commands, &auto_args, &no_env);
    assert_eq!(
        section(&out, "check"),
        expected(CSTR, ErrorKind::Overlong),
        "{out}"
    );
    // The library the script was loaded for, as the dynamic loader found it.
    assert_eq!(
        section(&out, "path").trim(),
        libdir.join(&needed).to_str().unwrap(),
        "{out}"
    );
}
