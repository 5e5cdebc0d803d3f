//! The gdb extension `gdb/utf8validate.py` in a real gdb, on real programs:
//! `c-tests/gdb/requests.c` (C99) and `c-tests/gdb/strings.cpp` (C++17, built with
//! both libstdc++ string ABIs, and, when clang++ is installed, by clang++ so that
//! `std::string` is an incomplete type), compiled with `-g -O0` and linked against
//! the `libutf8validate.so` cargo built for this test run.
//!
//! Each test drives `gdb -batch -nx` with a script and asserts on gdb's output:
//! `utf8-check` on a valid buffer, invalid ones, a `char[N]` array, NUL-terminated
//! strings, `std::string` and `std::string_view`, a struct registered with
//! `utf8-annotate type`, annotated strings; `$utf8_valid` in a breakpoint
//! condition that must stop exactly on the invalid requests; the same checks on a core
//! file written by `gcore`; the error messages; finding the library in an install
//! prefix and auto-loading the script from one.
//!
//! The expected offsets, lines and columns come from Rust's `std::str::from_utf8` on
//! the same bytes as the C sources (repeated below), not from the library; the hex
//! dump is also compared with `utf8check -v` on the same bytes.
//!
//! `c-tests/gdb/pages.c` holds buffers larger than any chunk the command reads at
//! once, placed at known offsets from page boundaries, which the test writes into a
//! file: C strings of many pages with an ill-formed sequence of every kind at the
//! ends of each page-sized read and across page boundaries, C strings around the
//! 1 MiB limit, explicit LENs of several MiB and of the 256 MiB limit, LENs that
//! reach unmapped memory, buffers across two mappings, arrays; live and on a core
//! file, against `std::str::from_utf8` (`page_cases`).
//!
//! `gdb_mi_as_ides_drive_it` drives gdb over GDB/MI (`--interpreter=mi3`, on pipes)
//! as IDEs do, on `strings.cpp`: every verdict against `std::str::from_utf8`, and
//! `utf8-check`'s output one console record per line, the same bytes as on the
//! command line.
//!
//! `annotating_printers_over_gdb_mi` drives `utf8-annotate` over GDB/MI on
//! `c-tests/gdb/annotate.cpp`, with the configurations gdb/README.md gives for IDEs
//! (read from it): the verdict after every local's text in a variables view, live,
//! on a core file and through `.gdbinit`, against `std::str::from_utf8`.
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
/// requests.c's char[8] arrays with a NUL inside, at file scope: an ill-formed byte
/// after the NUL, and all valid.
const RECORD: &[u8; 8] = b"id\0\xFFok\0\0";
const RECORD_OK: &[u8; 8] = b"id\0ok\xC3\xA9\0";
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

/// strings.cpp built as `name` by `compiler` with libstdc++'s C++11 string ABI or the
/// copy-on-write one, and `flags`.
fn strings_program(name: &str, compiler: &str, cxx11_abi: bool, flags: &[&str]) -> PathBuf {
    let exe = tmp().join(name);
    let abi = format!("-D_GLIBCXX_USE_CXX11_ABI={}", u8::from(cxx11_abi));
    let flags = [&["-std=c++17", abi.as_str()], flags].concat();
    compile(compiler, "strings.cpp", &flags, &exe, library_dir());
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
/// two-line hex dump with carets under the maximal subpart. `kind` is `None` for
/// valid bytes.
fn expected(bytes: &[u8], kind: Option<ErrorKind>) -> String {
    let error = match std::str::from_utf8(bytes) {
        Ok(_) => {
            assert_eq!(kind, None, "the test says it is invalid");
            return format!("valid UTF-8 ({} bytes)\n", bytes.len());
        }
        Err(e) => e,
    };
    let Some(kind) = kind else {
        panic!("the test says it is valid");
    };
    let at = error.valid_up_to();
    // Through str, whose searches are optimised even in a debug build (the buffers
    // of `buffers_larger_than_a_read_across_page_boundaries` reach 256 MiB).
    let before = std::str::from_utf8(&bytes[..at]).expect("valid up to the error");
    let line = before.matches('\n').count() + 1;
    let column = at - before.rfind('\n').map_or(0, |i| i + 1) + 1;
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
    let surrogate = expected(SURROGATE, Some(ErrorKind::Surrogate));
    vec![
        (
            "valid",
            "utf8-check requests[0].body requests[0].len",
            expected(GREETING, None),
        ),
        // const char[23]: all of it, its NUL included.
        (
            "array-with-nul",
            "utf8-check greeting",
            expected(&[GREETING, b"\0"].concat(), None),
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
            expected(TRUNCATED, Some(ErrorKind::Truncated)),
        ),
        // char[16]: all 16 bytes, NULs included.
        ("array", "utf8-check name", expected(NAME, None)),
        // Decayed to char *: up to the first NUL.
        (
            "array-to-nul",
            "utf8-check &name[0]",
            expected(b"na\xC3\xAFve", None),
        ),
        (
            "cstring",
            "utf8-check cstr",
            expected(CSTR, Some(ErrorKind::Overlong)),
        ),
        ("cstring-valid", "utf8-check word", expected(WORD, None)),
        // A prefix cut inside a character is truncated.
        (
            "prefix",
            "utf8-check word 3",
            expected(&WORD[..3], Some(ErrorKind::Truncated)),
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
        let mine = expected(bytes, Some(kind));
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

/// The bytes of a C string starting at `bytes[0]`: up to its first NUL.
fn to_nul(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())]
}

/// A whole `char[N]` array in the convenience functions: gdb hands an array variable
/// to them as a pointer to its first byte, so `$utf8_valid(record)` stops at its first
/// NUL (gdb/README.md); `$utf8_valid(&record)` (a pointer to the array) reads all N
/// bytes, as `utf8-check record` does. Arrays with a NUL and then an ill-formed byte,
/// in expressions and in breakpoint conditions, against `std::str::from_utf8` on
/// their bytes.
#[test]
fn whole_arrays_in_functions_and_breakpoint_conditions() {
    if !have_all(&["gdb", "gcc"]) {
        return;
    }
    let valid = |bytes: &[u8]| u8::from(std::str::from_utf8(bytes).is_ok());
    // Both arrays hide their difference behind their first NUL.
    assert_eq!(to_nul(RECORD), to_nul(RECORD_OK));
    assert_eq!(valid(RECORD), 0);
    let checks: Vec<(&str, String, String)> = vec![
        (
            "command",
            "utf8-check record".into(),
            expected(RECORD, Some(ErrorKind::InvalidByte)),
        ),
        (
            "command-pointer",
            "utf8-check &record".into(),
            expected(RECORD, Some(ErrorKind::InvalidByte)),
        ),
        (
            "command-ok",
            "utf8-check &record_ok".into(),
            expected(RECORD_OK, None),
        ),
        (
            "valid",
            "output $utf8_valid(&record)".into(),
            valid(RECORD).to_string(),
        ),
        (
            "first-error",
            "output $utf8_first_error(&record)".into(),
            first_error(RECORD).to_string(),
        ),
        (
            "valid-ok",
            "output $utf8_valid(&record_ok)".into(),
            valid(RECORD_OK).to_string(),
        ),
        (
            "first-error-ok",
            "output $utf8_first_error(&record_ok)".into(),
            first_error(RECORD_OK).to_string(),
        ),
        // With LEN, the pointer to the array is the array: its first LEN bytes.
        (
            "first-error-len",
            "output $utf8_first_error(&record, 3)".into(),
            first_error(&RECORD[..3]).to_string(),
        ),
        // Only a variable's name is decayed: any other expression of array type (a
        // field, `*&record`) keeps its type, and all its bytes.
        (
            "valid-deref",
            "output $utf8_valid(*&record)".into(),
            valid(RECORD).to_string(),
        ),
        // What the README warns of: the variable's name alone arrives decayed, as
        // `&record[0]`, and stops at the NUL.
        (
            "decayed",
            "output $utf8_valid(record)".into(),
            valid(to_nul(RECORD)).to_string(),
        ),
        (
            "decayed-first-error",
            "output $utf8_first_error(record)".into(),
            first_error(to_nul(RECORD)).to_string(),
        ),
    ];
    let mut commands = vec![
        format!("source {}", script_path().display()),
        "break checkpoint".into(),
        "run".into(),
    ];
    for (label, command, _) in &checks {
        commands.extend(marked(label, command));
        // `output` prints no newline.
        commands.push("echo \\n".into());
    }
    // A string typed in gdb is read where gdb holds it: nothing is copied into the
    // program (which gdb does with a call to the program's malloc, stopping at this
    // breakpoint and failing the command).
    commands.extend(marked("malloc", "break malloc"));
    let literals = [
        (
            "literal",
            r#"utf8-check "caf\303\251""#,
            expected(b"caf\xC3\xA9\0", None),
        ),
        (
            "literal-fn",
            r#"output $utf8_first_error("ab\377")"#,
            first_error(b"ab\xFF\0").to_string(),
        ),
    ];
    for (label, command, _) in &literals {
        commands.extend(marked(label, command));
        commands.push("echo \\n".into());
    }
    commands.extend(marked("info", "info breakpoints"));
    let exe = requests_program().to_str().unwrap().to_string();
    let out = gdb("arrays", &commands, &[&exe], &[]);
    for (label, command, want) in &literals {
        assert_eq!(
            section(&out, label).trim_end(),
            want.trim_end(),
            "`{command}`:\n{out}"
        );
    }
    assert!(!out.contains("in a function called from GDB"), "{out}");
    for (label, command, want) in &checks {
        assert_eq!(
            section(&out, label).trim_end(),
            want.trim_end(),
            "`{command}`:\n{out}"
        );
    }

    // Breakpoint conditions on the arrays: each breakpoint on checkpoint(), hit once,
    // must count a hit exactly when the oracle says its condition holds.
    let first = first_error(RECORD);
    let conditions = [
        (
            "!$utf8_valid(&record_ok)".to_string(),
            valid(RECORD_OK) == 0,
        ),
        ("!$utf8_valid(&record)".to_string(), valid(RECORD) == 0),
        (format!("$utf8_first_error(&record) == {first}"), true),
        (
            format!("$utf8_first_error(&record_ok) < {}", RECORD_OK.len()),
            first_error(RECORD_OK) < RECORD_OK.len(),
        ),
    ];
    let mut commands = vec![format!("source {}", script_path().display())];
    for (condition, _) in &conditions {
        commands.push(format!("break checkpoint if {condition}"));
    }
    commands.extend([
        "run".to_string(),
        "echo @@info\\n".into(),
        "info breakpoints".into(),
        "echo @@end\\n".into(),
        "continue".into(),
    ]);
    let out = gdb("array-conditions", &commands, &[&exe], &[]);
    let info = section(&out, "info");
    for (i, (condition, holds)) in conditions.iter().enumerate() {
        // The breakpoint's lines in `info breakpoints`: from its number to the next.
        let number = format!("{} ", i + 1);
        let next = format!("{} ", i + 2);
        let lines: Vec<&str> = info
            .lines()
            .skip_while(|l| !l.starts_with(&number))
            .take_while(|l| l.starts_with(&number) || !l.starts_with(&next))
            .collect();
        assert!(
            lines.iter().any(|l| l.contains(condition.as_str())),
            "breakpoint {number}is not `{condition}`:\n{out}"
        );
        assert_eq!(
            lines
                .iter()
                .any(|l| l.contains("breakpoint already hit 1 time")),
            *holds,
            "`break checkpoint if {condition}`:\n{out}"
        );
    }
    assert!(!out.contains("Error in testing condition"), "{out}");
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
    let mut checks = vec![
        ("short", "utf8-check short_ok", expected(SHORT_OK, None)),
        (
            "long",
            "utf8-check long_bad",
            expected(LONG_BAD, Some(ErrorKind::UnexpectedContinuation)),
        ),
        // Its size counts, not its first NUL.
        (
            "nul",
            "utf8-check with_nul",
            expected(WITH_NUL, Some(ErrorKind::Surrogate)),
        ),
        (
            "view",
            "utf8-check view",
            expected(VIEW, Some(ErrorKind::UnexpectedContinuation)),
        ),
        ("ref", "utf8-check ref", expected(SHORT_OK, None)),
        (
            "prefix",
            "utf8-check long_bad 40",
            expected(&LONG_BAD[..40], None),
        ),
        ("valid-fn", "print $utf8_valid(long_bad)", "$1 = 0\n".into()),
        (
            "first-error-fn",
            "print $utf8_first_error(with_nul)",
            format!("$2 = {}\n", first_error(WITH_NUL)),
        ),
    ];
    // strings.cpp's (pointer, length) structs, registered with `utf8-annotate type
    // span ptr len`: body is with_nul's first 5 bytes, bad is view's bytes.
    checks.extend([
        ("register", "utf8-annotate type span ptr len", String::new()),
        (
            "span-bad",
            "utf8-check bad",
            expected(VIEW, Some(ErrorKind::UnexpectedContinuation)),
        ),
        (
            "span-prefix",
            "utf8-check bad 2",
            expected(&VIEW[..2], None),
        ),
        (
            "span-valid-fn",
            "output $utf8_valid(body)",
            u8::from(std::str::from_utf8(&WITH_NUL[..5]).is_ok()).to_string(),
        ),
        (
            "span-first-error-fn",
            "output $utf8_first_error(bad)",
            first_error(VIEW).to_string(),
        ),
    ]);
    // The annotated strings: the verdict after the text (`output` prints no `$N`).
    let annotated = [
        ("short_ok", SHORT_OK),
        ("long_bad", LONG_BAD),
        ("with_nul", WITH_NUL),
        ("ref", SHORT_OK),
    ];
    let mut builds = vec![
        ("cpp", "g++", true, false),
        ("cpp-cow", "g++", false, false),
    ];
    // clang++ without -fstandalone-debug leaves libstdc++'s std::string an incomplete
    // type in a program that instantiates none of its member templates.
    if have_all(&["clang++"]) {
        builds.push(("cpp-clang-incomplete", "clang++", true, true));
        builds.push(("cpp-clang-cow-incomplete", "clang++", false, true));
    }
    for (name, compiler, cxx11_abi, incomplete) in builds {
        let flags: &[&str] = if incomplete {
            &["-DINCOMPLETE_STRING"]
        } else {
            &[]
        };
        let exe = strings_program(name, compiler, cxx11_abi, flags);
        let mut commands = vec![
            format!("source {}", script_path().display()),
            "break checkpoint".into(),
            "run".into(),
            "up".into(),
        ];
        // gdb's own text of the type, without pretty-printers.
        commands.extend(marked("raw", "output/r with_nul"));
        for (label, command, _) in &checks {
            commands.extend(marked(label, command));
        }
        commands.push("utf8-annotate on".into());
        for (local, _) in annotated {
            commands.extend(marked(
                &format!("annotated-{local}"),
                &format!("output {local}"),
            ));
        }
        if incomplete {
            // A string whose words cannot be read: no verdict, and no Python exception.
            commands.extend(marked("unreadable", "output *(std::string *)8"));
        }
        commands.push("echo @@end\\n".into());
        let out = gdb(name, &commands, &[exe.to_str().unwrap()], &[]);
        assert_eq!(
            section(&out, "raw") == "<incomplete type>",
            incomplete,
            "{name}: std::string is {}incomplete",
            if incomplete { "" } else { "not " }
        );
        for (label, command, want) in &checks {
            assert_eq!(&section(&out, label), want, "{name}: `{command}`");
        }
        for (local, bytes) in annotated {
            let shown = section(&out, &format!("annotated-{local}"));
            let verdict = annotation(bytes, false, None, ANNOTATE_CAP);
            assert!(
                shown.ends_with(&format!(" {verdict}")),
                "{name}: `output {local}` with utf8-annotate on: {shown}"
            );
            // gdb's own text for the type it cannot print, then the verdict.
            if incomplete {
                let text = shown.trim_end_matches(&format!(" {verdict}"));
                assert!(
                    text.ends_with("<incomplete type>"),
                    "{name}: `output {local}`: {shown}"
                );
            }
        }
        if incomplete {
            assert_eq!(section(&out, "unreadable"), "<incomplete type>", "{name}");
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
        expected(CSTR, Some(ErrorKind::Overlong)),
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
        expected(CSTR, Some(ErrorKind::Overlong)),
        "{out}"
    );
    // The library the script was loaded for, as the dynamic loader found it.
    assert_eq!(
        section(&out, "path").trim(),
        libdir.join(&needed).to_str().unwrap(),
        "{out}"
    );
}

// --- Input larger than any chunk utf8-check reads at once: c-tests/gdb/pages.c ------
//
// The extension (debugger/utf8validate_debugger.py) reads a C string in blocks that
// never cross a PAGE boundary, looking for its NUL in at most MAX_CSTRING bytes; an
// explicit LEN (at most MAX_LENGTH) at once, and when that fails page by page to name
// the first unreadable byte. pages.c places buffers that this test describes at known
// offsets from page boundaries (each on the heap before an unmapped page, or on the
// stack); every answer is checked against Rust's std::str::from_utf8 on the bytes the
// test wrote, with the kind from the bytes at the error (`classify`).

/// The extension's block size and limits (debugger/utf8validate_debugger.py).
const PAGE: usize = 4096;
const MAX_CSTRING: usize = 1 << 20;
const MAX_LENGTH: usize = 256 << 20;
const MIB: usize = 1 << 20;
/// pages.c's filler: "aé€😀", characters of 1 to 4 bytes in 10 bytes, so that page
/// boundaries (4096 apart) cut them at every place in turn.
const PATTERN: &[u8; 10] = b"a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
/// Where PATTERN's characters start (positions modulo 10).
const PATTERN_STARTS: [usize; 4] = [0, 1, 3, 6];
/// An ill-formed sequence of every kind. The last two are truncated where they end
/// the input, and miss a continuation byte elsewhere.
const ILL_FORMED: [&[u8]; 12] = [
    b"\x80",             // a continuation byte without a lead
    b"\xC0",             // invalid leads: overlong 2-byte forms,
    b"\xC1",             //
    b"\xF5",             // above U+10FFFF,
    b"\xFF",             // never used
    b"\xE0\x80\xAF",     // overlong 3-byte form of U+002F
    b"\xF0\x80\x80\xAF", // overlong 4-byte form of U+002F
    b"\xED\xA0\x80",     // the surrogate U+D800
    b"\xF4\x90\x80\x80", // U+110000
    b"\xE2\x82\x41",     // a missing continuation byte (E2 82 AC is U+20AC)
    b"\xE2\x82",         // truncated U+20AC
    b"\xF0\x9F\x98",     // truncated U+1F600
];

/// A buffer of pages.c (see its comment for the record's fields).
#[derive(Clone, Debug)]
struct Buffer {
    on_stack: bool,
    /// Where its byte 0 lies after a page boundary.
    offset: usize,
    len: usize,
    /// Followed by a NUL.
    nul: bool,
    /// Filled with 'a' rather than PATTERN.
    ascii: bool,
    /// Its pages from the first page boundary after its middle are read-only.
    split: bool,
    /// Bytes written over the filler: (position, bytes).
    patches: Vec<(usize, Vec<u8>)>,
}

impl Buffer {
    fn new(offset: usize, len: usize) -> Buffer {
        Buffer {
            on_stack: false,
            offset,
            len,
            nul: true,
            ascii: false,
            split: false,
            patches: Vec::new(),
        }
    }

    fn ascii(mut self) -> Buffer {
        self.ascii = true;
        self
    }

    fn split(mut self) -> Buffer {
        self.split = true;
        self
    }

    /// Where its read-only pages start, with pages of PAGE bytes.
    fn split_at(&self) -> usize {
        (self.offset + self.len / 2).div_ceil(PAGE) * PAGE - self.offset
    }

    fn without_nul(mut self) -> Buffer {
        self.nul = false;
        self
    }

    fn on_stack(mut self) -> Buffer {
        self.on_stack = true;
        self
    }

    fn starts_character(&self, at: usize) -> bool {
        self.ascii || PATTERN_STARTS.contains(&(at % PATTERN.len()))
    }

    /// With `bytes` at `at`, and 'x' over the filler's characters they cut, so that
    /// everything else is whole characters: the first error is at `at` (or `bytes`
    /// is valid).
    fn with(mut self, at: usize, bytes: &[u8]) -> Buffer {
        let mut start = at;
        while !self.starts_character(start) {
            start -= 1;
        }
        let mut end = at + bytes.len();
        while end < self.len && !self.starts_character(end) {
            end += 1;
        }
        assert!(end <= self.len, "a patch beyond the buffer's end");
        let mut patch = vec![b'x'; at - start];
        patch.extend_from_slice(bytes);
        patch.resize(end - start, b'x');
        self.patches.push((start, patch));
        self
    }

    /// Its `len` bytes, as pages.c writes them.
    fn bytes(&self) -> Vec<u8> {
        let mut bytes;
        if self.ascii {
            bytes = vec![b'a'; self.len];
        } else {
            bytes = Vec::with_capacity(self.len);
            bytes.extend_from_slice(&PATTERN[..self.len.min(PATTERN.len())]);
            while bytes.len() < self.len {
                let more = bytes.len().min(self.len - bytes.len());
                bytes.extend_from_within(..more);
            }
        }
        for (at, patch) in &self.patches {
            bytes[*at..*at + patch.len()].copy_from_slice(patch);
        }
        assert!(!bytes.contains(&0), "a NUL inside a buffer");
        bytes
    }

    /// Its record in pages.c's cases file.
    fn record(&self) -> Vec<u8> {
        let flags = u64::from(!self.nul) | u64::from(self.ascii) << 1 | u64::from(self.split) << 2;
        let words = [
            u64::from(self.on_stack),
            self.offset as u64,
            self.len as u64,
            flags,
            self.patches.len() as u64,
        ];
        let mut record: Vec<u8> = words.into_iter().flat_map(u64::to_ne_bytes).collect();
        for (at, patch) in &self.patches {
            record.extend((*at as u64).to_ne_bytes());
            record.extend((patch.len() as u64).to_ne_bytes());
            record.extend(patch);
        }
        record
    }

    /// The bytes readable from its start: on the heap, up to the unmapped page after
    /// its bytes and NUL.
    fn readable(&self, page_size: usize) -> usize {
        if self.on_stack {
            return usize::MAX;
        }
        (self.offset + self.len + usize::from(self.nul)).div_ceil(page_size) * page_size
            - self.offset
    }
}

/// A `utf8-check bufs[buffer] [LEN]`, or with `array: Some(N)` a
/// `utf8-check *(unsigned char (*)[N])bufs[buffer] [LEN]`, and what it is about.
struct PageCheck {
    buffer: usize,
    array: Option<usize>,
    len: Option<usize>,
    what: String,
}

impl PageCheck {
    fn command(&self) -> String {
        let expr = match self.array {
            Some(n) => format!("*(unsigned char (*)[{n}])bufs[{}]", self.buffer),
            None => format!("bufs[{}]", self.buffer),
        };
        match self.len {
            Some(n) => format!("utf8-check {expr} {n}"),
            None => format!("utf8-check {expr}"),
        }
    }
}

/// The kind of the first ill-formed sequence in `bytes`, from its first two bytes as
/// ErrorKind's documentation and RFC 3629's table define them (not from the library);
/// `None` when `bytes` is valid.
fn classify(bytes: &[u8]) -> Option<ErrorKind> {
    let error = match std::str::from_utf8(bytes) {
        Ok(_) => return None,
        Err(e) => e,
    };
    let at = error.valid_up_to();
    Some(match (bytes[at], bytes.get(at + 1).copied()) {
        (0x80..=0xBF, _) => ErrorKind::UnexpectedContinuation,
        (0xC0 | 0xC1, _) | (0xE0, Some(0x80..=0x9F)) | (0xF0, Some(0x80..=0x8F)) => {
            ErrorKind::Overlong
        }
        (0xED, Some(0xA0..=0xBF)) => ErrorKind::Surrogate,
        (0xF5..=0xF7, _) | (0xF4, Some(0x90..=0xBF)) => ErrorKind::TooLarge,
        (0xF8..=0xFF, _) => ErrorKind::InvalidByte,
        _ if error.error_len().is_none() => ErrorKind::Truncated,
        _ => ErrorKind::MissingContinuation,
    })
}

/// What `check` must print, from the bytes of its buffer (`bytes`), where the buffer
/// is (`address`) and what follows it.
fn page_expected(
    check: &PageCheck,
    buffer: &Buffer,
    bytes: &[u8],
    address: u64,
    page_size: usize,
) -> String {
    let readable = buffer.readable(page_size);
    // An array: its N bytes, or its first LEN.
    let len = match (check.array, check.len) {
        (Some(n), Some(len)) if len > n => {
            return format!("LEN {len} exceeds the {n} bytes of the array\n")
        }
        (Some(n), len) => Some(len.unwrap_or(n)),
        (None, len) => len,
    };
    let Some(len) = len else {
        // Up to the NUL, looked for in the first MAX_CSTRING bytes.
        let nul = if buffer.nul { Some(buffer.len) } else { None };
        return match nul {
            Some(n) if n < MAX_CSTRING => expected(bytes, classify(bytes)),
            _ if readable < MAX_CSTRING => format!(
                "cannot read memory at {:#x} (byte {readable} of the string at {address:#x}) \
                 before finding its NUL; give the length: utf8-check EXPR LEN\n",
                address + readable as u64
            ),
            _ => format!(
                "no NUL in the first {MAX_CSTRING} bytes of the string at {address:#x}; give \
                 the length: utf8-check EXPR LEN\n"
            ),
        };
    };
    if len > MAX_LENGTH {
        return format!("LEN {len} is larger than the {MAX_LENGTH} bytes utf8-check accepts\n");
    }
    if len > readable {
        return format!(
            "cannot read memory at {:#x}: byte {readable} of the {len} bytes at {address:#x}\n",
            address + readable as u64
        );
    }
    assert!(
        !buffer.on_stack || len <= buffer.len + 1,
        "LEN beyond a stack buffer's NUL"
    );
    if len <= bytes.len() {
        expected(&bytes[..len], classify(&bytes[..len]))
    } else {
        // Its NUL, and the zeros of its mapping after it.
        let mut memory = bytes.to_vec();
        memory.extend_from_slice(&vec![0; len - bytes.len()]);
        expected(&memory, classify(&memory))
    }
}

/// pages.c's buffers and the checks on them. `big`: also those of several MiB (for
/// an explicit LEN) and the one of MAX_LENGTH bytes, which are not for a core file.
fn page_cases(big: bool) -> (Vec<Buffer>, Vec<PageCheck>) {
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut checks = Vec::new();
    // The buffer, its checks by LEN (None: as a C string), and what it is; returns
    // its index.
    let mut add = |buffer: Buffer, lens: &[Option<usize>], what: String| {
        for &len in lens {
            checks.push(PageCheck {
                buffer: buffers.len(),
                array: None,
                len,
                what: what.clone(),
            });
        }
        buffers.push(buffer);
        buffers.len() - 1
    };
    // Checks of buffers seen as arrays: (buffer, N, LEN).
    let mut arrays: Vec<(usize, usize, Option<usize>)> = Vec::new();
    let hex = |bytes: &[u8]| -> String {
        let words: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
        words.join(" ")
    };

    // C strings of five pages and more, starting 3 bytes before a page boundary (the
    // first block read is 3 bytes) or on one: an ill-formed sequence starting at each
    // of the last 4 bytes before a boundary (inside the block or straddling it) and
    // at each of the first 4 after it, at the first boundaries and at a later one.
    for (offset, boundaries) in [
        (PAGE - 3, vec![3, 3 + PAGE, 3 + 4 * PAGE]),
        (0, vec![PAGE, 4 * PAGE]),
    ] {
        for &boundary in &boundaries {
            for seq in ILL_FORMED {
                for at in boundary.saturating_sub(4)..=boundary + 3 {
                    let mut buffer = Buffer::new(offset, 5 * PAGE + 1000);
                    if at > 2100 {
                        // A second line: its char is counted from this newline.
                        buffer = buffer.with(2000, b"\n");
                    }
                    add(
                        buffer.with(at, seq),
                        &[None],
                        format!(
                            "C string at page offset {offset}, {} at byte {at} (page boundary at byte {boundary})",
                            hex(seq)
                        ),
                    );
                }
            }
        }
    }

    // C strings whose NUL is 2 bytes before to 3 bytes after the page boundary after
    // four pages (right after it at n = boundary), valid or ending in an ill-formed
    // sequence (truncated ones among them); valid ones also with a LEN, with and
    // without the NUL.
    for (offset, boundary) in [(PAGE - 3, 3 + 4 * PAGE), (0, 4 * PAGE)] {
        for n in boundary - 2..=boundary + 3 {
            let where_ =
                format!("page offset {offset}, NUL at byte {n} (page boundary at byte {boundary})");
            add(
                Buffer::new(offset, n).with(n, b""),
                &[None, Some(n), Some(n + 1)],
                format!("valid C string at {where_}"),
            );
            for seq in ILL_FORMED {
                add(
                    Buffer::new(offset, n).with(n - seq.len(), seq),
                    &[None],
                    format!("C string ending in {} at {where_}", hex(seq)),
                );
            }
        }
    }

    // Around MAX_CSTRING: a NUL at byte MAX_CSTRING - 1 is found, in the last block
    // read, and the bytes before it checked to the last; one at MAX_CSTRING is not.
    for offset in [PAGE - 3, 0] {
        let n = MAX_CSTRING - 1;
        let index = add(
            Buffer::new(offset, n).with(n, b""),
            &[None, Some(n + 1)],
            format!("valid C string of MAX_CSTRING - 1 bytes at page offset {offset}"),
        );
        arrays.push((index, n + 1, None));
        let endings: Vec<&[u8]> = if offset == 0 {
            vec![b"\x80", b"\xE2\x82", b"\xF0\x9F\x98"]
        } else {
            ILL_FORMED.to_vec()
        };
        for seq in endings {
            add(
                Buffer::new(offset, n).with(n - seq.len(), seq),
                &[None],
                format!(
                    "C string of MAX_CSTRING - 1 bytes ending in {} at page offset {offset}",
                    hex(seq)
                ),
            );
        }
        // The last page boundary inside it.
        let boundary = (offset + n) / PAGE * PAGE - offset;
        for (at, seq) in [(boundary - 2, ILL_FORMED[8]), (boundary - 1, ILL_FORMED[7])] {
            add(
                Buffer::new(offset, n).with(at, seq),
                &[None],
                format!(
                    "C string of MAX_CSTRING - 1 bytes, {} at byte {at} at page offset {offset}",
                    hex(seq)
                ),
            );
        }
        for n in [MAX_CSTRING, MAX_CSTRING + 1] {
            add(
                Buffer::new(offset, n),
                &[None],
                format!("C string of {n} bytes at page offset {offset}"),
            );
        }
        add(
            Buffer::new(offset, MAX_CSTRING).with(MAX_CSTRING - 2, b"\xE2\x82"),
            &[None, Some(MAX_CSTRING)],
            format!("MAX_CSTRING bytes ending in E2 82 at page offset {offset}"),
        );
    }

    // No NUL before an unmapped page: after several pages, and ending with the last
    // byte searched (MAX_CSTRING - 1) or right after it.
    for (offset, len) in [
        (PAGE - 3, 3 * PAGE + 3),
        (0, 5 * PAGE),
        (1, MAX_CSTRING - 1),
        (0, MAX_CSTRING),
    ] {
        add(
            Buffer::new(offset, len).without_nul(),
            &[None],
            format!("{len} bytes without a NUL before an unmapped page, at page offset {offset}"),
        );
    }

    // An explicit LEN that reaches into the unmapped page: a short buffer, and one of
    // 3 MiB (its first unreadable byte found after a read of all failed), through
    // the unmapped page into the next mapping, and far beyond.
    add(
        Buffer::new(PAGE - 3, 2).ascii(),
        &[Some(3), Some(4), Some(PAGE + 10)],
        "2 bytes before an unmapped page".into(),
    );

    // Across two mappings (of different permissions; two sections of a core file):
    // an ill-formed sequence straddling or ending the first, in a C string and with
    // a LEN.
    for seq in ILL_FORMED {
        for back in [1, 2] {
            let buffer = Buffer::new(PAGE - 3, 4 * PAGE + 100).split();
            let at = buffer.split_at() - back;
            add(
                buffer.with(at, seq),
                &[None, Some(4 * PAGE + 100)],
                format!("{} at byte {at} before a read-only mapping", hex(seq)),
            );
        }
    }

    // On the stack (in lldb's core files too): an ill-formed sequence straddling a
    // page boundary, and ending a string whose NUL is right after one.
    let boundary = 3 + PAGE;
    for seq in ILL_FORMED {
        add(
            Buffer::new(PAGE - 3, boundary + 100)
                .on_stack()
                .with(boundary - 1, seq),
            &[None],
            format!(
                "stack C string, {} at byte {} (page boundary at byte {boundary})",
                hex(seq),
                boundary - 1
            ),
        );
        let index = add(
            Buffer::new(PAGE - 3, boundary)
                .on_stack()
                .with(boundary - seq.len(), seq),
            &[None, Some(boundary + 1)],
            format!(
                "stack C string ending in {} before a NUL right after a page boundary",
                hex(seq)
            ),
        );
        arrays.push((index, boundary + 1, None));
    }
    add(
        Buffer::new(PAGE - 3, boundary)
            .on_stack()
            .with(boundary, b""),
        &[None, Some(boundary)],
        "valid stack C string, NUL right after a page boundary".into(),
    );

    if big {
        add_big(&mut add, &mut arrays);
    }
    for (buffer, n, len) in arrays {
        let first = checks.iter().find(|c: &&PageCheck| c.buffer == buffer);
        let what = format!("{}, as an array of {n} bytes", first.expect("checked").what);
        checks.push(PageCheck {
            buffer,
            array: Some(n),
            len,
            what,
        });
    }
    (buffers, checks)
}

/// The buffers of `page_cases` of several MiB, for an explicit LEN.
fn add_big(
    add: &mut impl FnMut(Buffer, &[Option<usize>], String) -> usize,
    arrays: &mut Vec<(usize, usize, Option<usize>)>,
) {
    let hex = |bytes: &[u8]| -> String {
        let words: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
        words.join(" ")
    };

    // An explicit LEN of about 3 MiB (read at once), on 'a's with an ill-formed
    // sequence straddling or ending a page (boundary - 1 to - 3): LEN ending just
    // before it (valid), inside it, right after it, 1 and 3 bytes after it, and
    // taking the NUL after the buffer (4 bytes after it).
    for (i, seq) in ILL_FORMED.iter().enumerate() {
        let offset = [PAGE - 3, 0, 1, PAGE - 1][i % 4];
        let boundary = (PAGE - offset) % PAGE + 767 * PAGE;
        let at = boundary - 1 - i % 3;
        let len = at + seq.len() + 3;
        let mut lens: Vec<Option<usize>> = (at..=at + seq.len()).map(Some).collect();
        lens.extend([at + seq.len() + 1, len, len + 1].map(Some));
        let index = add(
            Buffer::new(offset, len).ascii().with(at, seq),
            &lens,
            format!("{len} bytes at page offset {offset}, {} at byte {at} (page boundary at byte {boundary})", hex(seq)),
        );
        // An array that the sequence ends; a LEN beyond an array is refused.
        arrays.push((index, at + seq.len(), None));
        if i == 0 {
            arrays.push((index, at + seq.len(), Some(at + seq.len() + 1)));
        }
    }
    // The same in the middle of 3 MiB (at 2 MiB).
    for (i, seq) in ILL_FORMED.iter().enumerate() {
        let offset = [0, PAGE - 3, PAGE - 1, 1][i % 4];
        let boundary = (PAGE - offset) % PAGE + 512 * PAGE;
        let at = boundary - 1 - i % 3;
        let len = 3 * MIB + i;
        add(
            Buffer::new(offset, len).ascii().with(at, seq),
            &[Some(len)],
            format!("{len} bytes at page offset {offset}, {} at byte {at} (page boundary at byte {boundary})", hex(seq)),
        );
    }
    // PATTERN alone, cut at its last 4 bytes (some cuts truncate a character).
    let len = 5 * MIB + 3;
    add(
        Buffer::new(PAGE - 3, len),
        &[len - 3, len - 2, len - 1, len, len + 1].map(Some),
        format!("{len} bytes of PATTERN"),
    );
    // LEN into the unmapped page after 3 MiB.
    let buffer = Buffer::new(PAGE - 3, 3 * MIB + 5).ascii();
    let readable = buffer.readable(PAGE);
    let index = add(
        buffer,
        &[readable, readable + 1, readable + PAGE + 10, 8 * MIB].map(Some),
        "3 MiB before an unmapped page".into(),
    );
    arrays.push((index, readable + 1, None));
    // MAX_LENGTH bytes ending in a truncated sequence; one more is refused.
    add(
        Buffer::new(0, MAX_LENGTH)
            .ascii()
            .with(MAX_LENGTH - 3, b"\xF0\x9F\x98"),
        &[Some(MAX_LENGTH), Some(MAX_LENGTH + 1)],
        "MAX_LENGTH bytes ending in F0 9F 98".into(),
    );
}

fn pages_program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = tmp().join("pages");
        compile("gcc", "pages.c", &["-std=c99"], &exe, library_dir());
        exe
    })
}

/// Writes pages.c's cases file `name`.
fn write_cases(name: &str, buffers: &[Buffer]) -> PathBuf {
    std::fs::create_dir_all(tmp()).expect("create the temp dir");
    let path = tmp().join(name);
    let bytes: Vec<u8> = buffers.iter().flat_map(Buffer::record).collect();
    std::fs::write(&path, bytes).expect("write the cases file");
    path
}

/// pages.c's stack_area: zeros, and its buffers on the stack, each at the next page
/// boundary after the previous one plus its offset.
const STACK_AREA: usize = MIB;

fn stack_area(buffers: &[Buffer]) -> Vec<u8> {
    let mut area = vec![0; STACK_AREA];
    let mut used: usize = 0;
    for buffer in buffers.iter().filter(|b| b.on_stack) {
        let at = used.div_ceil(PAGE) * PAGE + buffer.offset;
        area[at..at + buffer.len].copy_from_slice(&buffer.bytes());
        used = at + buffer.len + usize::from(buffer.nul);
    }
    area
}

/// Checks of stack_area itself, an array of 1 MiB read at once: (label, command,
/// expected output). All of it, up to its first error and to just after it, and a
/// LEN beyond it.
fn stack_area_checks(buffers: &[Buffer]) -> Vec<(String, String, String)> {
    let area = stack_area(buffers);
    let error = first_error(&area);
    let mut checks = vec![(
        "utf8-check stack_area".to_string(),
        expected(&area, classify(&area)),
    )];
    for len in [error, error + 1] {
        checks.push((
            format!("utf8-check stack_area {len}"),
            expected(&area[..len], classify(&area[..len])),
        ));
    }
    checks.push((
        format!("utf8-check stack_area {}", STACK_AREA + 1),
        format!(
            "LEN {} exceeds the {STACK_AREA} bytes of the array\n",
            STACK_AREA + 1
        ),
    ));
    checks
        .into_iter()
        .enumerate()
        .map(|(i, (command, want))| (format!("s{i}"), command, want))
        .collect()
}

/// gdb's -ex arguments that print pages.c's page size and the buffers' addresses
/// and run every check after a `@@pN` marker, and each of `more` after its label
/// (-ex, not a script, which an error would end).
fn page_arguments(
    buffers: usize,
    checks: &[PageCheck],
    more: &[(String, String, String)],
) -> Vec<String> {
    let mut commands = vec![
        r#"printf "@@page_size %ld\n", page_size"#.to_string(),
        format!(
            "python print('@@addresses ' + ' '.join(str(int(gdb.parse_and_eval('bufs[%d]' % i))) for i in range({buffers})))"
        ),
    ];
    for (i, check) in checks.iter().enumerate() {
        commands.push(format!("echo @@p{i}\\n"));
        commands.push(check.command());
    }
    for (label, command, _) in more {
        commands.push(format!("echo @@{label}\\n"));
        commands.push(command.clone());
    }
    // gdb's exit status is that of the last command, which may be an error.
    commands.push("echo @@end\\n".into());
    commands
        .into_iter()
        .flat_map(|c| ["-ex".to_string(), c])
        .collect()
}

/// Every check's output against its expectation, and each of `more`'s; panics
/// listing the first failures.
fn assert_page_checks(
    out: &str,
    buffers: &[Buffer],
    checks: &[PageCheck],
    more: &[(String, String, String)],
    context: &str,
) {
    let line = |prefix: &str| -> String {
        out.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("{context}: no {prefix} line in:\n{out}"))
            .to_string()
    };
    let page_size: usize = line("@@page_size ").trim().parse().expect("a page size");
    let addresses: Vec<u64> = line("@@addresses ")
        .split_whitespace()
        .map(|a| a.parse().expect("an address"))
        .collect();
    assert_eq!(addresses.len(), buffers.len(), "{context}: addresses");
    // Each marker's output: up to the next marker.
    let mut sections = std::collections::HashMap::new();
    for chunk in out.split("@@").skip(1) {
        if let Some((label, text)) = chunk.split_once('\n') {
            sections.insert(label.to_string(), text.to_string());
        }
    }
    let mut failures = Vec::new();
    let mut current: Option<(usize, Vec<u8>)> = None;
    for (i, check) in checks.iter().enumerate() {
        let buffer = &buffers[check.buffer];
        if current.as_ref().map(|(b, _)| *b) != Some(check.buffer) {
            current = Some((check.buffer, buffer.bytes()));
        }
        let bytes = &current.as_ref().expect("the buffer's bytes").1;
        let want = page_expected(check, buffer, bytes, addresses[check.buffer], page_size);
        let got = sections
            .get(&format!("p{i}"))
            .map_or("<no output>", String::as_str);
        if got != want {
            failures.push(format!(
                "`{}` ({}):\n--- expected\n{want}--- got\n{got}",
                check.command(),
                check.what
            ));
        }
    }
    for (label, command, want) in more {
        let got = sections.get(label).map_or("<no output>", String::as_str);
        if got != want {
            failures.push(format!("`{command}`:\n--- expected\n{want}--- got\n{got}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{context}: {} of {} checks failed; the first:\n{}",
        failures.len(),
        checks.len() + more.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn buffers_larger_than_a_read_across_page_boundaries() {
    if !have_all(&["gdb", "gcc"]) {
        return;
    }
    let started = Instant::now();
    let (buffers, checks) = page_cases(true);
    let cases = write_cases("pages-live.cases", &buffers);
    let mut args: Vec<String> = [
        format!("source {}", script_path().display()),
        "break checkpoint".into(),
        "run".into(),
        "up".into(),
    ]
    .into_iter()
    .flat_map(|c| ["-ex".to_string(), c])
    .collect();
    let more = stack_area_checks(&buffers);
    args.extend(page_arguments(buffers.len(), &checks, &more));
    args.extend([
        "--args".to_string(),
        pages_program().to_str().unwrap().to_string(),
        cases.to_str().unwrap().to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = gdb("pages-live", &[], &args, &[]);
    assert_page_checks(&out, &buffers, &checks, &more, "live process");
    eprintln!(
        "pages, live: {} checks on {} buffers in {:.1?}",
        checks.len() + more.len(),
        buffers.len(),
        started.elapsed()
    );
}

/// The same on a core file written by `gcore` (without the buffers of several MiB):
/// gdb reads it from the core's sections, and the unmapped pages are not in it.
#[test]
fn buffers_larger_than_a_read_on_a_core_file() {
    if !have_all(&["gdb", "gcc"]) {
        return;
    }
    let started = Instant::now();
    let (buffers, checks) = page_cases(false);
    let cases = write_cases("pages-core.cases", &buffers);
    let exe = pages_program().to_str().unwrap().to_string();
    let core = tmp().join("pages.core");
    let _ = std::fs::remove_file(&core);
    let first = [
        "break checkpoint".to_string(),
        "run".into(),
        format!("gcore {}", core.display()),
        "kill".into(),
    ];
    let out = gdb(
        "pages-gcore",
        &first,
        &["--args", &exe, cases.to_str().unwrap()],
        &[],
    );
    assert!(core.exists(), "gcore wrote no core file:\n{out}");
    let mut args: Vec<String> = [
        format!("source {}", script_path().display()),
        format!("core-file {}", core.display()),
        "up".into(),
    ]
    .into_iter()
    .flat_map(|c| ["-ex".to_string(), c])
    .collect();
    let more = stack_area_checks(&buffers);
    args.extend(page_arguments(buffers.len(), &checks, &more));
    args.push(exe);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = gdb("pages-core", &[], &args, &[]);
    assert!(
        out.contains("Core was generated by"),
        "not a core session:\n{out}"
    );
    assert_page_checks(&out, &buffers, &checks, &more, "core file");
    let _ = std::fs::remove_file(&core);
    eprintln!(
        "pages, core file: {} checks on {} buffers in {:.1?}",
        checks.len() + more.len(),
        buffers.len(),
        started.elapsed()
    );
}

// --- GDB/MI, as IDEs drive gdb ------------------------------------------------------
//
// VS Code's C/C++ extension, CLion, Qt Creator and Eclipse CDT run
// `gdb --interpreter=mi3` over pipes; a launch configuration's setup commands reach
// gdb as `-interpreter-exec console "..."`, watch expressions as
// `-data-evaluate-expression`, each with the `--thread`/`--frame` the IDE shows.

// The variables of c-tests/gdb/strings.cpp that only this test reads.
const PACKED: &[u8; 8] = b"id\0\xFFok\0\0";

/// One gdb speaking GDB/MI on its standard input and output.
struct Mi {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    /// Every line gdb wrote, for failure messages.
    transcript: String,
    token: u32,
}

impl Mi {
    fn start(args: &[&str]) -> Mi {
        let mut gdb = Command::new("gdb");
        gdb.args(["--interpreter=mi3", "-nx", "-q"])
            .args(["-iex", "set debuginfod enabled off"])
            .args(["-iex", "set auto-load off"])
            .args(args);
        Mi::spawn(gdb)
    }

    /// Runs `gdb` (a command with its arguments) on pipes, with UTF8VALIDATE_LIB
    /// pointing at the built library.
    fn spawn(mut gdb: Command) -> Mi {
        let mut child = gdb
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .env("UTF8VALIDATE_LIB", built_library())
            .env_remove("CARGO_TARGET_DIR")
            .spawn()
            .expect("gdb runs");
        let stdin = child.stdin.take().expect("gdb's stdin");
        let mut stdout = std::io::BufReader::new(child.stdout.take().expect("gdb's stdout"));
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            let mut line = Vec::new();
            // MI is ASCII (c-strings escape the rest); the program's own output, on
            // the same terminal, may not be.
            while stdout.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
                let text = String::from_utf8_lossy(&line)
                    .trim_end_matches(['\n', '\r'])
                    .to_string();
                if send.send(text).is_err() {
                    break;
                }
                line.clear();
            }
        });
        Mi {
            child,
            stdin,
            lines,
            transcript: String::new(),
            token: 0,
        }
    }

    fn next_line(&mut self) -> String {
        let line = self
            .lines
            .recv_timeout(TIMEOUT)
            .unwrap_or_else(|e| panic!("no line from gdb ({e}) after:\n{}", self.transcript));
        self.transcript.push_str(&line);
        self.transcript.push('\n');
        line
    }

    /// Sends `command` with a token and returns the records gdb wrote up to its
    /// result record, and that record without the token.
    fn send(&mut self, command: &str) -> (Vec<String>, String) {
        use std::io::Write;
        self.token += 1;
        let token = self.token.to_string();
        writeln!(self.stdin, "{token}{command}").expect("write to gdb");
        self.stdin.flush().expect("flush gdb's stdin");
        self.transcript.push_str(&format!(">>> {token}{command}\n"));
        let mut records = Vec::new();
        loop {
            let line = self.next_line();
            if let Some(result) = line.strip_prefix(&token).filter(|r| r.starts_with('^')) {
                return (records, result.to_string());
            }
            records.push(line);
        }
    }

    /// `command`, which must succeed (`^done`, or `^running` for `-exec-*`).
    fn ok(&mut self, command: &str) -> (Vec<String>, String) {
        let (records, result) = self.send(command);
        assert!(
            result.starts_with("^done") || result.starts_with("^running"),
            "`{command}` answered {result}:\n{}",
            self.transcript
        );
        (records, result)
    }

    /// Reads up to the asynchronous record that starts with `prefix`.
    fn wait_for(&mut self, prefix: &str) -> String {
        loop {
            let line = self.next_line();
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    fn exit(mut self) {
        let (_, result) = self.send("-gdb-exit");
        assert!(result.starts_with("^exit"), "{result}");
        let started = Instant::now();
        while self.child.try_wait().expect("wait for gdb").is_none() {
            if started.elapsed() > TIMEOUT {
                let _ = self.child.kill();
                panic!("gdb did not exit:\n{}", self.transcript);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// An MI c-string (`"..."`, C escapes) at the start of `text`: its bytes and the
/// rest of `text` after its closing quote.
fn mi_string(text: &str) -> (Vec<u8>, &str) {
    let bytes = text.as_bytes();
    assert_eq!(bytes.first(), Some(&b'"'), "not a c-string: {text}");
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        match bytes[i] {
            b'"' => return (out, &text[i + 1..]),
            b'\\' => {
                i += 1;
                let c = bytes[i];
                if (b'0'..=b'7').contains(&c) {
                    let digits = bytes[i..]
                        .iter()
                        .take(3)
                        .take_while(|d| (b'0'..=b'7').contains(d))
                        .count();
                    let octal = std::str::from_utf8(&bytes[i..i + digits]).unwrap();
                    out.push(u8::from_str_radix(octal, 8).expect("an octal escape"));
                    i += digits;
                    continue;
                }
                out.push(match c {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'e' => 0x1B,
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b'f' => 0x0C,
                    b'v' => 0x0B,
                    other => other, // \" \\ \'
                });
            }
            b => out.push(b),
        }
        i += 1;
    }
}

/// The c-string value of `key` in an MI result or record (`key="..."`).
fn mi_field(record: &str, key: &str) -> Vec<u8> {
    let at = record
        .find(&format!("{key}=\""))
        .unwrap_or_else(|| panic!("no {key} in {record}"));
    mi_string(&record[at + key.len() + 1..]).0
}

/// The bytes a C string literal as gdb prints one (`"id\000\377ok"`) stands for;
/// `repeats` and the like are not expected here.
fn c_literal(text: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(text).expect("gdb prints literals in ASCII");
    let (bytes, rest) = mi_string(text);
    assert_eq!(rest, "", "more than one literal: {text}");
    bytes
}

/// `utf8-check`, `$utf8_valid` and `$utf8_first_error` over GDB/MI, as an IDE sends
/// them (setup commands, watch expressions, the debug console), on strings.cpp's
/// std::string, std::string_view, C string, char[N] with a NUL inside and (pointer,
/// length) pairs: every verdict against `std::str::from_utf8` on the bytes of the
/// source, and the command's output one console record per line, byte for byte
/// what the command line prints.
#[test]
fn gdb_mi_as_ides_drive_it() {
    if !have_all(&["gdb", "g++"]) {
        return;
    }
    let started = Instant::now();
    let exe = tmp().join("strings-mi");
    let abi = "-D_GLIBCXX_USE_CXX11_ABI=1";
    compile(
        "g++",
        "strings.cpp",
        &["-std=c++17", abi],
        &exe,
        library_dir(),
    );
    let exe = exe.to_str().unwrap();
    // (utf8-check's arguments, the functions' arguments, the bytes they designate).
    let cases: [(&str, &str, &[u8]); 9] = [
        ("short_ok", "short_ok", SHORT_OK),
        ("long_bad", "long_bad", LONG_BAD),
        ("with_nul", "with_nul", WITH_NUL),
        ("view", "view", VIEW),
        ("cstr", "cstr", CSTR),
        ("packed", "&packed", PACKED),
        ("&packed", "&packed", PACKED),
        ("body.ptr body.len", "body.ptr, body.len", &WITH_NUL[..5]),
        ("bad.ptr bad.len", "bad.ptr, bad.len", VIEW),
    ];
    // Some of each, and a NUL then an ill-formed byte in the array.
    assert!(cases.iter().any(|(_, _, b)| std::str::from_utf8(b).is_ok()));
    assert!(cases
        .iter()
        .any(|(_, _, b)| std::str::from_utf8(b).is_err()));
    assert!(first_error(PACKED) > to_nul(PACKED).len() && first_error(PACKED) < PACKED.len());

    let mut mi = Mi::start(&[exe]);
    mi.wait_for("(gdb)");
    let script = script_path();
    mi.ok(&format!(
        "-interpreter-exec console \"source {}\"",
        script.display()
    ));
    mi.ok("-enable-pretty-printing");
    mi.ok("-break-insert -f checkpoint");
    mi.ok("-exec-run");
    let stopped = mi.wait_for("*stopped");
    assert!(stopped.contains("reason=\"breakpoint-hit\""), "{stopped}");
    // main's frame, where the strings are: frame 1 of thread 1.
    let at = "--thread 1 --frame 1";
    let mut mi_output = Vec::new();
    for (arguments, function_arguments, bytes) in cases {
        let want = expected(bytes, classify(bytes));
        let command = format!("utf8-check {arguments}");
        let (records, _) = mi.ok(&format!("-interpreter-exec {at} console \"{command}\""));
        let console: Vec<Vec<u8>> = records
            .iter()
            .filter_map(|r| r.strip_prefix('~'))
            .map(|r| {
                let (text, rest) = mi_string(r);
                assert_eq!(rest, "", "{r}");
                text
            })
            .collect();
        for line in &console {
            assert!(
                line.ends_with(b"\n") && line.iter().filter(|&&b| b == b'\n').count() == 1,
                "`{command}`: a console record that is not one line: {:?}",
                String::from_utf8_lossy(line)
            );
        }
        let text = String::from_utf8(console.concat()).expect("ASCII");
        assert_eq!(text, want, "`{command}` over MI:\n{}", mi.transcript);
        mi_output.push((command, text));

        let valid = u8::from(std::str::from_utf8(bytes).is_ok());
        for (function, want) in [
            ("$utf8_valid", valid.to_string()),
            ("$utf8_first_error", first_error(bytes).to_string()),
        ] {
            let expression = format!("{function}({function_arguments})");
            let (_, result) = mi.ok(&format!("-data-evaluate-expression {at} \"{expression}\""));
            assert_eq!(
                mi_field(&result, "value"),
                want.as_bytes(),
                "{expression}: {result}"
            );
        }
    }
    // The IDE's Variables view: what gdb shows of the array is its bytes (up to the
    // NULs that end it), which the functions judged above.
    let (_, result) = mi.ok(&format!("-stack-list-variables {at} --all-values"));
    for name in [
        "short_ok", "long_bad", "with_nul", "view", "cstr", "packed", "body", "bad",
    ] {
        assert!(
            result.contains(&format!("{{name=\"{name}\",value=")),
            "{name} is not in {result}"
        );
    }
    let at_packed = result.find("{name=\"packed\",").unwrap();
    let shown = c_literal(&mi_field(&result[at_packed..], "value"));
    let without_nuls = |b: &[u8]| {
        let end = b.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
        b[..end].to_vec()
    };
    assert_eq!(without_nuls(&shown), without_nuls(PACKED), "{result}");
    mi.ok("-exec-continue");
    let exited = mi.wait_for("*stopped");
    assert!(exited.contains("reason=\"exited-normally\""), "{exited}");
    mi.exit();

    // The same commands on the command line print the same bytes.
    let mut commands = vec![
        format!("source {}", script.display()),
        "break checkpoint".into(),
        "run".into(),
        "up".into(),
    ];
    for (i, (command, _)) in mi_output.iter().enumerate() {
        commands.extend(marked(&format!("case{i}"), command));
    }
    let out = gdb("mi-cli", &commands, &[exe], &[]);
    for (i, (command, text)) in mi_output.iter().enumerate() {
        assert_eq!(
            &section(&out, &format!("case{i}")),
            text,
            "`{command}`: MI and CLI"
        );
    }
    eprintln!("GDB/MI test: {:.1} s", started.elapsed().as_secs_f64());
}

// --- utf8-annotate over GDB/MI: c-tests/gdb/annotate.cpp ----------------------------
//
// The annotating printers as an IDE's variables view meets them: gdb started as VS
// Code's C/C++ extension starts it, with the setup commands of gdb/README.md's
// launch.json (and, in another gdb, its .gdbinit), libstdc++'s printers auto-loaded
// as on a developer's machine. Every verdict against `std::str::from_utf8` on the
// bytes of annotate.cpp (repeated below), the kind from `classify`; every text
// before a verdict against a gdb without the extension.

/// The bytes of annotate.cpp's strings, as a variables view lists them: (local,
/// bytes, NUL-terminated). A NUL-terminated string's bytes stop before its NUL; the
/// others are all the bytes of the array or string.
fn annotate_locals() -> Vec<(&'static str, Vec<u8>, bool)> {
    let short = b"Gr\xC3\xBC\xC3\x9Fe".to_vec();
    let long_bad = [vec![b'a'; 40], b"\x80tail".to_vec()].concat();
    let mut huge = vec![b'y'; 10000];
    huge[9000] = 0xFF;
    vec![
        ("c_ok", b"caf\xC3\xA9".to_vec(), true),
        ("c_bad", b"path\xC0\xAFetc".to_vec(), true),
        ("u_bad", b"\xED\xA0\x80 surrogate".to_vec(), true),
        ("long_text", vec![b'x'; 5000], false),
        ("c_long", vec![b'x'; 5000], true),
        // The start of the page before the unmapped one: zeros.
        ("pages", Vec::new(), true),
        ("arr_ok", b"h\xC3\xA9llo\0\0".to_vec(), false),
        ("arr_bad", b"id\0\xFFok\0\0".to_vec(), false),
        ("s_short", short.clone(), false),
        ("s_long_bad", long_bad.clone(), false),
        ("s_nul", WITH_NUL.to_vec(), false),
        ("s_huge", huge, false),
        ("v_bad", long_bad[38..44].to_vec(), false),
        ("v_ok", short, false),
    ]
}

/// annotate.cpp's my_buf values: (local, the `len` bytes `data` points to; `data`
/// is NUL-terminated after them).
const MY_BUFS: [(&str, &[u8]); 2] = [("b_ok", b"\xE2\x82\xAC5"), ("b_bad", b"ok\xF4\x90\x80\x80")];
/// `c_unreadable`'s readable bytes, before the unmapped page.
const UNREADABLE: &[u8] = b"ab\xC3";
/// The default of `utf8-annotate max-bytes`, and what the test sets.
const ANNOTATE_CAP: usize = 4096;
const SMALL_CAP: usize = 8;

/// The kind's words in a verdict, as gdb/README.md lists them.
fn kind_words(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::UnexpectedContinuation => "unexpected continuation",
        ErrorKind::MissingContinuation => "missing continuation",
        ErrorKind::Truncated => "truncated",
        ErrorKind::Overlong => "overlong",
        ErrorKind::Surrogate => "surrogate",
        ErrorKind::TooLarge => "too large",
        ErrorKind::InvalidByte => "invalid byte",
        other => panic!("a kind the test does not know: {other:?}"),
    }
}

/// The verdict utf8-annotate must append for a string of `bytes` (without its NUL
/// when `nul_terminated`), read up to `cap` bytes, or up to `unreadable`, the address
/// of the first byte that cannot be read after them.
fn annotation(bytes: &[u8], nul_terminated: bool, unreadable: Option<u64>, cap: usize) -> String {
    let read = &bytes[..bytes.len().min(cap)];
    // Unreadable memory after `bytes` is reached only when the cap lets the read go on.
    let unreadable = unreadable.filter(|_| cap > bytes.len());
    // Only part of the string was read: its size is larger than the cap, or no NUL
    // came in `cap` bytes, or memory ended.
    let partial =
        unreadable.is_some() || bytes.len() > cap || (nul_terminated && bytes.len() >= cap);
    let first = |n: usize| {
        let plural = if n == 1 { "" } else { "s" };
        let memory =
            unreadable.map_or(String::new(), |a| format!("; cannot read memory at {a:#x}"));
        format!("[first {n} byte{plural} valid UTF-8{memory}]")
    };
    match std::str::from_utf8(read) {
        Ok(_) if partial => first(read.len()),
        Ok(_) => "[valid UTF-8]".to_string(),
        // A character cut by the end of what was read is not an error.
        Err(e) if partial && e.error_len().is_none() => first(e.valid_up_to()),
        Err(e) => {
            let at = e.valid_up_to();
            let subpart = &read[at..at + e.error_len().unwrap_or(read.len() - at)];
            let hex: Vec<String> = subpart.iter().map(|b| format!("{b:02X}")).collect();
            let kind = kind_words(classify(read).expect("ill-formed"));
            format!("[invalid UTF-8 at byte {at}: {kind} ({})]", hex.join(" "))
        }
    }
}

/// The fenced block after the line `<!-- gdb.rs: NAME -->` of gdb/README.md, with
/// `/path/to/utf8validate` made this repository.
fn readme_block(name: &str) -> String {
    let readme = std::fs::read_to_string(support::repository().join("gdb/README.md"))
        .expect("read gdb/README.md");
    let marker = format!("<!-- gdb.rs: {name} -->\n");
    let at = readme
        .find(&marker)
        .unwrap_or_else(|| panic!("gdb/README.md has no `{}`", marker.trim()));
    let mut lines = readme[at + marker.len()..].lines();
    let fence = lines.next().unwrap_or_default();
    assert!(fence.starts_with("```"), "no fenced block after {marker}");
    let block: Vec<&str> = lines.take_while(|l| !l.starts_with("```")).collect();
    let repository = support::repository();
    block
        .join("\n")
        .replace("/path/to/utf8validate", repository.to_str().unwrap())
}

/// A JSON string at the start of `text` (after its opening quote): its value and the
/// rest of `text`.
fn json_string(text: &str) -> (String, &str) {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (out, &text[i + 1..]),
            '\\' => {
                let (_, e) = chars.next().expect("an escape");
                out.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    'u' => {
                        let hex: String = (0..4).map(|_| chars.next().expect("hex").1).collect();
                        char::from_u32(u32::from_str_radix(&hex, 16).expect("hex")).expect("a char")
                    }
                    other => other, // \" \\ \/
                });
            }
            c => out.push(c),
        }
    }
    panic!("an unterminated JSON string: {text}");
}

/// The MI commands VS Code's C/C++ extension sends for the launch.json of
/// gdb/README.md: each "text" of its setupCommands, as is when it starts with `-`,
/// else as `-interpreter-exec console "TEXT"`.
fn vscode_setup_commands() -> Vec<String> {
    let launch = readme_block("vscode launch.json");
    let at = launch
        .find("\"setupCommands\"")
        .expect("launch.json has setupCommands");
    let list = &launch[at..launch[at..].find(']').map(|end| at + end).expect("its end")];
    let mut commands = Vec::new();
    let mut rest = list;
    while let Some(at) = rest.find("\"text\"") {
        let after = rest[at + 6..]
            .trim_start()
            .strip_prefix(':')
            .expect("\"text\":");
        let after = after.trim_start().strip_prefix('"').expect("a string");
        let (text, next) = json_string(after);
        commands.push(console_or_mi(&text));
        rest = next;
    }
    assert!(commands.len() >= 3, "setupCommands: {list}");
    commands
}

/// A command as VS Code's C/C++ extension sends a setup command or `-exec TEXT`.
fn console_or_mi(text: &str) -> String {
    if text.starts_with('-') {
        text.to_string()
    } else {
        let quoted = text.replace('\\', "\\\\").replace('"', "\\\"");
        format!("-interpreter-exec console \"{quoted}\"")
    }
}

/// The (name, value) pairs of a `-stack-list-variables --all-values` result.
fn mi_variables(result: &str) -> Vec<(String, Vec<u8>)> {
    result
        .split("{name=")
        .skip(1)
        .map(|entry| {
            let (name, rest) = mi_string(entry);
            let value = rest.strip_prefix(",value=").expect("a value");
            (String::from_utf8(name).unwrap(), mi_string(value).0)
        })
        .collect()
}

/// The (exp, value) pairs of a `-var-list-children --all-values` result.
fn mi_children(result: &str) -> Vec<(String, Vec<u8>)> {
    result
        .split("child={")
        .skip(1)
        .map(|child| {
            let exp = String::from_utf8(mi_field(child, "exp")).unwrap();
            (exp, mi_field(child, "value"))
        })
        .collect()
}

fn text(bytes: &[u8]) -> &str {
    // gdb escapes what is not printable in its charset (`\300`): the rest is UTF-8.
    std::str::from_utf8(bytes).expect("gdb prints UTF-8")
}

/// annotate.cpp, built with `-g -O0`, and the line of its breakpoint.
fn annotate_program() -> (PathBuf, usize) {
    let exe = tmp().join("annotate");
    compile("g++", "annotate.cpp", &["-std=c++17"], &exe, library_dir());
    let source = std::fs::read_to_string(support::repository().join("c-tests/gdb/annotate.cpp"))
        .expect("read annotate.cpp");
    let line = source
        .lines()
        .position(|l| l.contains("// break here"))
        .expect("annotate.cpp marks its breakpoint")
        + 1;
    (exe, line)
}

/// What a gdb without the extension shows: `-stack-list-variables --all-values`,
/// the children of `many` and of `b_ok`.
struct Baseline {
    locals: Vec<(String, Vec<u8>)>,
    many: Vec<(String, Vec<u8>)>,
    b_ok: Vec<(String, Vec<u8>)>,
}

impl Baseline {
    fn local(&self, name: &str) -> &str {
        let (_, value) = self
            .locals
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no local {name}"));
        text(value)
    }

    /// The first address c_unreadable cannot read: its pointer (`0x... "a"...`) + 3.
    fn unreadable(&self) -> u64 {
        let value = self.local("c_unreadable");
        let hex = value
            .split_whitespace()
            .next()
            .unwrap()
            .trim_start_matches("0x");
        u64::from_str_radix(hex, 16).expect("an address") + UNREADABLE.len() as u64
    }
}

/// gdb over MI, as an IDE starts it: libstdc++'s printers auto-loaded, no init
/// files unless `home` holds one.
fn mi_for_annotate(args: &[&str], home: Option<&Path>) -> Mi {
    let mut gdb = Command::new("gdb");
    gdb.arg("--interpreter=mi3");
    match home {
        Some(home) => gdb.env("HOME", home),
        None => gdb.arg("-nx"),
    };
    gdb.args(["-q", "-iex", "set debuginfod enabled off"])
        .args(args);
    let mut mi = Mi::spawn(gdb);
    mi.wait_for("(gdb)");
    mi
}

/// Runs to annotate.cpp's breakpoint.
fn run_to_break_here(mi: &mut Mi, line: usize) {
    mi.ok(&format!("-break-insert annotate.cpp:{line}"));
    mi.ok("-exec-run");
    let stopped = mi.wait_for("*stopped");
    assert!(stopped.contains("reason=\"breakpoint-hit\""), "{stopped}");
}

/// The children of `expression` as a variables view lists them (a new variable
/// object, deleted after), and the time that took. A C++ struct's children are in
/// access-specifier pseudo-children (`public`), which IDEs flatten: so does this.
fn list_children(mi: &mut Mi, expression: &str) -> (Vec<(String, Vec<u8>)>, Duration) {
    let started = Instant::now();
    let (_, created) = mi.ok(&format!("-var-create - * {expression}"));
    let name = String::from_utf8(mi_field(&created, "name")).unwrap();
    let children = list_var_children(mi, &name);
    let took = started.elapsed();
    mi.ok(&format!("-var-delete {name}"));
    (children, took)
}

fn list_var_children(mi: &mut Mi, name: &str) -> Vec<(String, Vec<u8>)> {
    let (_, result) = mi.ok(&format!("-var-list-children --all-values {name}"));
    let mut children = Vec::new();
    for (exp, value) in mi_children(&result) {
        if ["public", "private", "protected"].contains(&exp.as_str()) {
            children.extend(list_var_children(mi, &format!("{name}.{exp}")));
        } else {
            children.push((exp, value));
        }
    }
    children
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Asserts that every local of annotate.cpp shows its text without the extension
/// followed by the verdict on its bytes read up to `cap`; returns how many verdicts.
fn assert_annotated_locals(result: &str, baseline: &Baseline, cap: usize, context: &str) -> usize {
    let locals = mi_variables(result);
    let shown = |name: &str| -> String {
        let (_, value) = locals
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{context}: no local {name} in {result}"));
        text(value).to_string()
    };
    let mut wanted: Vec<(&str, String)> = annotate_locals()
        .iter()
        .map(|(name, bytes, nul)| (*name, annotation(bytes, *nul, None, cap)))
        .collect();
    wanted.push((
        "c_unreadable",
        annotation(UNREADABLE, true, Some(baseline.unreadable()), cap),
    ));
    for (name, bytes) in MY_BUFS {
        wanted.push((name, annotation(bytes, false, None, cap)));
    }
    for (name, verdict) in &wanted {
        assert_eq!(
            shown(name),
            format!("{} {verdict}", baseline.local(name)),
            "{context}: {name}"
        );
    }
    // No string there, no verdict: a NULL pointer and an int.
    for name in ["c_null", "page"] {
        assert_eq!(shown(name), baseline.local(name), "{context}: {name}");
    }
    assert_eq!(baseline.local("c_null"), "0x0");
    wanted.len()
}

/// Asserts the verdicts of `many`'s 500 strings: even ones "aé", odd ones "a" FE.
fn assert_many(children: &[(String, Vec<u8>)], baseline: &Baseline, context: &str) -> usize {
    assert_eq!(children.len(), 500, "{context}: many's children");
    for (i, ((exp, value), (base_exp, base))) in children.iter().zip(&baseline.many).enumerate() {
        assert_eq!((exp, exp), (&i.to_string(), base_exp), "{context}");
        let bytes: &[u8] = if i % 2 == 1 { b"a\xFE" } else { b"a\xC3\xA9" };
        let want = format!(
            "{} {}",
            text(base),
            annotation(bytes, false, None, ANNOTATE_CAP)
        );
        assert_eq!(text(value), want, "{context}: many[{i}]");
    }
    children.len()
}

/// utf8-annotate in gdb driven over GDB/MI as IDEs drive it, on annotate.cpp:
/// loaded by the setup commands of gdb/README.md's VS Code launch.json (sent as the
/// extension sends them), every local of a variables view (`-stack-list-variables`)
/// with the verdict on its bytes after gdb's unchanged text, `many`'s 500 strings
/// and a struct's children (`-var-list-children`), a registered (pointer, length)
/// type, the cap (4096, then `max-bytes 8`), unreadable memory, `utf8-check` in the
/// debug console, `off` giving back exactly what a gdb without the extension shows;
/// then the same verdicts on a core file, and through README's `.gdbinit`.
#[test]
fn annotating_printers_over_gdb_mi() {
    if !have_all(&["gdb", "g++"]) {
        return;
    }
    let started = Instant::now();
    let (exe, line) = annotate_program();
    let exe = exe.to_str().unwrap().to_string();
    let setup = vscode_setup_commands();
    let register = console_or_mi("utf8-annotate type my_buf data len");

    // A gdb without the extension: what an IDE shows today.
    let mut mi = mi_for_annotate(&[&exe], None);
    mi.ok("-enable-pretty-printing");
    run_to_break_here(&mut mi, line);
    let (_, locals) = mi.ok("-stack-list-variables --all-values");
    let baseline = Baseline {
        locals: mi_variables(&locals),
        many: list_children(&mut mi, "many").0,
        b_ok: list_children(&mut mi, "b_ok").0,
    };
    mi.exit();
    // libstdc++'s printer is the one wrapped: its text, not gdb's raw struct.
    assert!(baseline.local("s_short").starts_with('"'), "{locals}");

    let mut mi = mi_for_annotate(&[&exe], None);
    for command in &setup {
        mi.ok(command);
    }
    run_to_break_here(&mut mi, line);
    // A struct not registered: its `data` is a C string, annotated as one.
    let (children, _) = list_children(&mut mi, "b_ok");
    let data = annotation(MY_BUFS[0].1, true, None, ANNOTATE_CAP);
    assert_eq!(children.len(), 2, "{children:?}");
    assert_eq!(children[0].0, "data");
    assert_eq!(
        text(&children[0].1),
        format!("{} {data}", text(&baseline.b_ok[0].1)),
        "b_ok.data"
    );
    assert_eq!(children[1], baseline.b_ok[1], "b_ok.len");
    let mut live = 1;

    // A field the type lacks is refused when the type is known.
    let (_, refused) = mi.send(&console_or_mi("utf8-annotate type my_buf nosuch len"));
    assert_eq!(
        refused, "^error,msg=\"the type my_buf has no field nosuch\"",
        "utf8-annotate type with a wrong field"
    );
    mi.ok(&register);
    let (_, result) = mi.ok("-stack-list-variables --all-values");
    live += assert_annotated_locals(&result, &baseline, ANNOTATE_CAP, "live");
    // An IDE's value of a registered struct is its whole text and the verdict.
    let (_, created) = mi.ok("-var-create - * b_bad");
    assert_eq!(
        text(&mi_field(&created, "value")),
        format!(
            "{} {}",
            baseline.local("b_bad"),
            annotation(MY_BUFS[1].1, false, None, ANNOTATE_CAP)
        ),
        "-var-create b_bad"
    );
    live += 1;

    let mut on = Vec::new();
    for _ in 0..3 {
        let (children, took) = list_children(&mut mi, "many");
        live += assert_many(&children, &baseline, "live");
        on.push(took);
    }

    // Small caps: 8; 4 and 3 also cut characters in two (c_ok's é at 3-4, s_short's
    // ü at 2-3) and end right after an error (arr_bad's FF at byte 3).
    for cap in [SMALL_CAP, 4, 3] {
        mi.ok(&console_or_mi(&format!("utf8-annotate max-bytes {cap}")));
        let (_, result) = mi.ok("-stack-list-variables --all-values");
        live += assert_annotated_locals(&result, &baseline, cap, &format!("max-bytes {cap}"));
    }
    mi.ok(&console_or_mi(&format!(
        "utf8-annotate max-bytes {ANNOTATE_CAP}"
    )));

    // The debug console (VS Code: `-exec utf8-check s_nul`).
    let (records, _) = mi.ok(&console_or_mi("utf8-check s_nul"));
    let console: Vec<u8> = records
        .iter()
        .filter_map(|r| r.strip_prefix('~'))
        .flat_map(|r| mi_string(r).0)
        .collect();
    assert_eq!(
        text(&console),
        expected(WITH_NUL, classify(WITH_NUL)),
        "utf8-check s_nul"
    );
    live += 1;

    let core = tmp().join("annotate.core");
    let _ = std::fs::remove_file(&core);
    mi.ok(&console_or_mi(&format!("gcore {}", core.display())));

    // Off: exactly what gdb shows without the extension.
    mi.ok(&console_or_mi("utf8-annotate off"));
    let (_, result) = mi.ok("-stack-list-variables --all-values");
    assert_eq!(result, locals, "utf8-annotate off");
    let mut off = Vec::new();
    for _ in 0..3 {
        let (children, took) = list_children(&mut mi, "many");
        assert_eq!(children, baseline.many, "utf8-annotate off: many");
        off.push(took);
    }
    mi.ok("-exec-continue");
    let exited = mi.wait_for("*stopped");
    assert!(exited.contains("reason=\"exited-normally\""), "{exited}");
    mi.exit();

    // The core file, with the same setup.
    assert!(core.exists(), "gcore wrote no core file");
    let mut mi = mi_for_annotate(&[&exe, core.to_str().unwrap()], None);
    for command in setup.iter().chain([&register]) {
        mi.ok(command);
    }
    let (_, result) = mi.ok("-stack-list-variables --frame 0 --thread 1 --all-values");
    let mut core_verdicts = assert_annotated_locals(&result, &baseline, ANNOTATE_CAP, "core");
    let (children, _) = list_children(&mut mi, "many");
    core_verdicts += assert_many(&children, &baseline, "core");
    mi.exit();
    let _ = std::fs::remove_file(&core);

    // README's .gdbinit, read by a gdb started without -nx (as CLion, Qt Creator and
    // Eclipse CDT start it).
    let home = tmp().join("annotate-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".gdbinit"), readme_block(".gdbinit") + "\n").unwrap();
    let mut mi = mi_for_annotate(&[&exe], Some(&home));
    mi.ok("-enable-pretty-printing");
    mi.ok(&register);
    run_to_break_here(&mut mi, line);
    let (_, result) = mi.ok("-stack-list-variables --all-values");
    let gdbinit = assert_annotated_locals(&result, &baseline, ANNOTATE_CAP, ".gdbinit");
    mi.ok("-exec-continue");
    mi.wait_for("*stopped");
    mi.exit();

    let (on, off) = (median(on), median(off));
    eprintln!(
        "utf8-annotate over GDB/MI: {live} verdicts live, {core_verdicts} on the core file, \
         {gdbinit} through .gdbinit; a variables view of 500 std::string \
         (-var-create + -var-list-children --all-values, median of 3): {:.0} ms annotated, \
         {:.0} ms not; {:.1} s in all",
        on.as_secs_f64() * 1e3,
        off.as_secs_f64() * 1e3,
        started.elapsed().as_secs_f64()
    );
    assert!(
        on < Duration::from_secs(10),
        "500 strings annotated took {on:?}"
    );
}
