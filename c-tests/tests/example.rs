//! `examples/entry_check.c`, compiled with the `cc` crate against the static library
//! cargo built for this test run (`libutf8validate.a`, next to this test's
//! executable) with `-std=c99 -Wall -Wextra -pedantic -Werror`, and run on requests
//! whose exact standard output, standard error, replies and exit status are written
//! out below by hand: from standard input, and from loopback TCP connections
//! (`--port 0`). It is built with its default read size and with 3- and 1-byte reads,
//! so that multi-byte characters and ill-formed sequences are split between reads
//! and the C stream API carries them over. A rejected request's log line holds
//! `utf8_log_fields` of the window `utf8_tail_window` cut when the stream refused a
//! read's piece, so the bytes after the error reach to the end of that read: with
//! small reads the log shows fewer of them.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use utf8validate_c_tests as support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

const WARNINGS: &[&str] = &["-Wall", "-Wextra", "-pedantic", "-Werror"];

/// Compiles the C source `source` into `target/<profile>/examples-c/<name>` with the
/// compiler the cc crate picks, linked to the static library.
fn build(name: &str, source: &Path, defines: &[&str]) -> PathBuf {
    let root = support::repository();
    let out_dir = support::scratch("examples-c");
    let exe = out_dir.join(name);
    let mut build = support::c_build();
    build.opt_level(1).std("c99").include(root.join("include"));
    for flag in WARNINGS {
        build.flag(flag);
    }
    let compiler = build
        .try_get_compiler()
        .unwrap_or_else(|e| panic!("the cc crate found no C compiler: {e}"));
    let mut cmd = compiler.to_command();
    for define in defines {
        cmd.arg(format!("-D{define}"));
    }
    cmd.arg(source)
        .arg("-o")
        .arg(&exe)
        .arg(support::artifact("libutf8validate.a"));
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        output.status.success(),
        "compiling {name} failed:\n{cmd:?}\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// The example built with `-DREAD_BLOCK=n` (or its default), once per test run:
/// the tests run in parallel, and relinking an executable another test is running
/// would fail.
fn entry_check(read_block: Option<usize>) -> PathBuf {
    static BUILT: Mutex<Vec<(Option<usize>, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, exe)) = built.iter().find(|(n, _)| *n == read_block) {
        return exe.clone();
    }
    let source = support::repository().join("examples/entry_check.c");
    let exe = match read_block {
        None => build("entry_check", &source, &[]),
        Some(n) => build(
            &format!("entry_check_read{n}"),
            &source,
            &[&format!("READ_BLOCK={n}")],
        ),
    };
    built.push((read_block, exe.clone()));
    exe
}

/// Runs `exe` with `input` on stdin; returns (status code, stdout, stderr).
fn run(exe: &Path, input: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("the example runs");
    writer
        .join()
        .expect("the writer thread does not panic")
        .expect("stdin accepts the input");
    let stderr = String::from_utf8(output.stderr).expect("the log is valid UTF-8");
    (
        output.status.code().expect("the example exits normally"),
        output.stdout,
        stderr,
    )
}

/// Requests of every kind, one per line; the last one has no newline.
const REQUESTS: &[u8] = b"GET /index.html\n\
naive caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80\n\
abc \xED\xA0\x80 def\n\
\x80 lone continuation\n\
x\xC3A missing\n\
C:\\dir\\file \xC0\xAF\n\
big \xF4\x90\x80\x80\n\
\xFF\xFE\n\
path\\to\\file\n\
\n\
nul\x00inside \xE0\x80\xAF\n\
end \xE2\x82";

const STDOUT: &[u8] = b"GET /index.html\n\
naive caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80\n\
path\\to\\file\n\
\n";

/// The message of `utf8_error_kind_message` for the kind named `kind`, as the log
/// line quotes it.
fn message(kind: &str) -> &'static str {
    match kind {
        "unexpected_continuation" => {
            "A continuation byte (80-BF) appears where a lead byte was expected."
        }
        "missing_continuation" => "A lead byte is not followed by enough continuation bytes.",
        "truncated" => "The input ends in the middle of a multi-byte sequence.",
        "overlong" => {
            "An overlong (non-shortest) form encodes a code point with more bytes than needed."
        }
        "surrogate" => {
            "A UTF-16 surrogate (U+D800-U+DFFF) is encoded, which is not a scalar value."
        }
        "too_large" => "A sequence encodes a value above U+10FFFF.",
        "invalid_byte" => "A byte that never appears in UTF-8 (F8-FF) is present.",
        _ => panic!("no error kind is named {kind:?}"),
    }
}

/// The log line of a rejected request: `offset=O length=L kind=K message="M"
/// bytes=A..B value="V"`, V being the request's bytes A..B escaped.
fn rejected(
    n: u32,
    (offset, length): (usize, usize),
    kind: &str,
    (a, b): (usize, usize),
    value: &str,
) -> String {
    let message = message(kind);
    format!(
        "rejected request {n}: offset={offset} length={length} kind={kind} \
         message=\"{message}\" bytes={a}..{b} value=\"{value}\"\n"
    )
}

/// The log of `REQUESTS` read whole (one read). Each window is the whole request:
/// none has more than 32 bytes (the example's context) before or after its error.
fn stderr_one_read() -> String {
    [
        rejected(3, (4, 1), "surrogate", (0, 11), r"abc \xED\xA0\x80 def"),
        rejected(
            4,
            (0, 1),
            "unexpected_continuation",
            (0, 19),
            r"\x80 lone continuation",
        ),
        rejected(
            5,
            (1, 1),
            "missing_continuation",
            (0, 11),
            r"x\xC3A missing",
        ),
        rejected(6, (12, 1), "overlong", (0, 14), r"C:\\dir\\file \xC0\xAF"),
        rejected(7, (4, 1), "too_large", (0, 8), r"big \xF4\x90\x80\x80"),
        rejected(8, (0, 1), "invalid_byte", (0, 2), r"\xFF\xFE"),
        rejected(
            11,
            (11, 1),
            "overlong",
            (0, 14),
            r"nul\x00inside \xE0\x80\xAF",
        ),
        rejected(12, (4, 2), "truncated", (0, 6), r"end \xE2\x82"),
    ]
    .concat()
}

/// The log of `REQUESTS` read 3 bytes at a time. The reads start at multiples of 3
/// in the input, the requests at 37 (request 3), 49, 69, 81, 96, 105, 122 and 137
/// (request 12); the stream refuses the piece that holds the byte which makes the
/// sequence ill-formed, and the window ends with that piece:
/// - 3: ED (4) is refused at A0 (5), in the piece 5..8 (input 42..45);
/// - 4: 80 (0) at once, in the piece 0..2 (input 49..51);
/// - 5: C3 (1) at 'A' (2), in the piece 0..3 (input 69..72);
/// - 6: C0 (12) at once, in the piece 12..14, the request's end (input 93..95);
/// - 7: F4 (4) at 90 (5), in the piece 3..6 (input 99..102);
/// - 8: FF (0) at once, in the piece 0..2, the request's end;
/// - 11: E0 (11) at 80 (12), in the piece 10..13 (input 132..135);
/// - 12: at the end of the input, as with one read.
fn stderr_read3() -> String {
    [
        rejected(3, (4, 1), "surrogate", (0, 8), r"abc \xED\xA0\x80 "),
        rejected(4, (0, 1), "unexpected_continuation", (0, 2), r"\x80 "),
        rejected(5, (1, 1), "missing_continuation", (0, 3), r"x\xC3A"),
        rejected(6, (12, 1), "overlong", (0, 14), r"C:\\dir\\file \xC0\xAF"),
        rejected(7, (4, 1), "too_large", (0, 6), r"big \xF4\x90"),
        rejected(8, (0, 1), "invalid_byte", (0, 2), r"\xFF\xFE"),
        rejected(11, (11, 1), "overlong", (0, 13), r"nul\x00inside \xE0\x80"),
        rejected(12, (4, 2), "truncated", (0, 6), r"end \xE2\x82"),
    ]
    .concat()
}

/// The log of `REQUESTS` read 1 byte at a time: each window ends with the byte at
/// which the stream refused the request (as for 3-byte reads).
fn stderr_read1() -> String {
    [
        rejected(3, (4, 1), "surrogate", (0, 6), r"abc \xED\xA0"),
        rejected(4, (0, 1), "unexpected_continuation", (0, 1), r"\x80"),
        rejected(5, (1, 1), "missing_continuation", (0, 3), r"x\xC3A"),
        rejected(6, (12, 1), "overlong", (0, 13), r"C:\\dir\\file \xC0"),
        rejected(7, (4, 1), "too_large", (0, 6), r"big \xF4\x90"),
        rejected(8, (0, 1), "invalid_byte", (0, 1), r"\xFF"),
        rejected(11, (11, 1), "overlong", (0, 13), r"nul\x00inside \xE0\x80"),
        rejected(12, (4, 2), "truncated", (0, 6), r"end \xE2\x82"),
    ]
    .concat()
}

#[test]
fn entry_check_passes_valid_requests_and_logs_invalid_ones() {
    for (read_block, expected_log) in [
        (None, stderr_one_read()),
        (Some(3), stderr_read3()),
        (Some(1), stderr_read1()),
    ] {
        let exe = entry_check(read_block);
        let (status, stdout, stderr) = run(&exe, REQUESTS);
        assert_eq!(
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(STDOUT),
            "stdout, read block {read_block:?}"
        );
        assert_eq!(stdout, STDOUT, "stdout bytes, read block {read_block:?}");
        assert_eq!(stderr, expected_log, "stderr, read block {read_block:?}");
        assert_eq!(status, 1, "some requests were rejected");
    }
}

#[test]
fn entry_check_accepts_all_valid_input_and_bounds_the_log() {
    let exe = entry_check(None);
    let (status, stdout, stderr) = run(&exe, "один\n二\n".as_bytes());
    assert_eq!(
        (status, stdout.as_slice(), stderr.as_str()),
        (0, "один\n二\n".as_bytes(), "")
    );

    // A long invalid request: the value is the subpart and 32 bytes after it.
    let mut long = b"\xFF".repeat(100);
    long.push(b'\n');
    let (status, stdout, stderr) = run(&exe, &long);
    assert_eq!(status, 1);
    assert!(stdout.is_empty());
    assert_eq!(
        stderr,
        rejected(1, (0, 1), "invalid_byte", (0, 33), &r"\xFF".repeat(33))
    );

    // An error after 200 bytes: 120 'é' (0..240), 'a', FF (241), 20 '€' (242..302).
    // The window starts 32 bytes before the FF, at 209, inside an 'é': so at 210;
    // it ends 32 bytes after it, at 274, inside a '€' (242 + 3 * 10 = 272): so at 272.
    let mut late = "é".repeat(120).into_bytes();
    late.extend_from_slice(b"a\xFF");
    late.extend_from_slice("€".repeat(20).as_bytes());
    late.push(b'\n');
    let (status, stdout, stderr) = run(&exe, &late);
    assert_eq!(status, 1);
    assert!(stdout.is_empty());
    let value = format!("{}a\\xFF{}", "é".repeat(15), "€".repeat(10));
    assert_eq!(
        stderr,
        rejected(1, (241, 1), "invalid_byte", (210, 272), &value)
    );

    // A request longer than the example's limit (valid, but too long).
    let mut huge = b"a".repeat(70_000);
    huge.push(b'\n');
    huge.extend_from_slice(b"ok\n");
    let (status, stdout, stderr) = run(&exe, &huge);
    assert_eq!(status, 1);
    assert_eq!(stdout, b"ok\n");
    assert_eq!(stderr, "rejected request 1: longer than 65536 bytes\n");

    // A request longer than the limit whose error lies near its end, beyond the
    // bytes kept for passing requests through: 69990 'a', 20 'é' (69990..70030),
    // 'a', C0 (70031). The window starts 32 bytes before the C0, at 69999, inside an
    // 'é': so at 70000; the C0 ends the request, whichever read brought it.
    let mut huge = b"a".repeat(69_990);
    huge.extend_from_slice("é".repeat(20).as_bytes());
    huge.extend_from_slice(b"a\xC0\nok\n");
    let (status, stdout, stderr) = run(&exe, &huge);
    assert_eq!(status, 1);
    assert_eq!(stdout, b"ok\n");
    let value = format!("{}a\\xC0", "é".repeat(15));
    assert_eq!(
        stderr,
        rejected(1, (70_031, 1), "overlong", (70_000, 70_032), &value)
    );
}

/// A child process that is killed and reaped when dropped, unless it has exited:
/// the server of the test below, when an assertion fails (or anything panics)
/// before it has been waited for. Left running, it would keep listening and keep
/// the pipes it inherited from the test open.
struct KillOnDrop(Child);

impl Deref for KillOnDrop {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        // (try_wait answers Some from then on once `wait` has reaped it)
        if !matches!(self.0.try_wait(), Ok(Some(_))) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// `--port`: requests over loopback TCP, one connection after the other, each
/// request answered on its connection; request numbers run on across connections.
#[test]
fn entry_check_serves_loopback_connections() {
    let exe = entry_check(Some(3));
    let mut child = KillOnDrop(
        Command::new(&exe)
            .args(["--port", "0", "--max-connections", "2"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display())),
    );
    let mut log = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut first = String::new();
    log.read_line(&mut first).expect("the example logs");
    let port: u16 = first
        .strip_prefix("listening on 127.0.0.1:")
        .and_then(|p| p.trim_end().parse().ok())
        .unwrap_or_else(|| panic!("unexpected first log line {first:?}"));

    let exchange = |requests: &[u8]| -> String {
        let mut conn = TcpStream::connect(("127.0.0.1", port)).expect("the example listens");
        conn.set_read_timeout(Some(Duration::from_secs(60)))
            .expect("a timeout can be set");
        conn.write_all(requests).expect("the example reads");
        conn.shutdown(Shutdown::Write).expect("half-close");
        let mut replies = String::new();
        conn.read_to_string(&mut replies)
            .expect("the example answers");
        replies
    };
    assert_eq!(
        exchange(b"hello\nabc \xED\xA0\x80 def\ncaf\xC3\xA9\n"),
        "ok\nrejected\nok\n"
    );
    assert_eq!(exchange(b"\xC0\xAF\nlast \xE2\x82"), "rejected\nrejected\n");

    let status = child.wait().expect("the example exits after 2 connections");
    let mut rest = String::new();
    log.read_to_string(&mut rest)
        .expect("the log is valid UTF-8");
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_end(&mut stdout)
        .expect("stdout is readable");
    // Read 3 bytes at a time from the start of each connection: request 2 (at 6)
    // is refused at A0 (5) in the piece 3..6; request 4 at C0 (0) in the piece 0..2
    // (the connection's first read); request 5 at its end.
    assert_eq!(
        rest,
        [
            rejected(2, (4, 1), "surrogate", (0, 6), r"abc \xED\xA0"),
            rejected(4, (0, 1), "overlong", (0, 2), r"\xC0\xAF"),
            rejected(5, (5, 2), "truncated", (0, 7), r"last \xE2\x82"),
        ]
        .concat()
    );
    assert_eq!(stdout, "hello\ncafé\n".as_bytes());
    assert_eq!(status.code(), Some(1));
}

/// `utf8_stream` has the same size in C as in Rust, `utf8_error` the layout of the
/// tests' `CError` (through which they read what the functions store), and the
/// all-zero struct is what `utf8_stream_init` makes.
#[test]
fn c_sees_the_rust_layout() {
    use std::mem::{offset_of, size_of};
    use support::c_api::CError;
    let dir = support::scratch("examples-c");
    let source = dir.join("layout.c");
    std::fs::write(
        &source,
        "#include <stddef.h>\n#include <stdio.h>\n#include <string.h>\n\
         #include \"utf8validate.h\"\n\
         int main(void) {\n\
           utf8_stream s, zero;\n\
           memset(&s, 0xA5, sizeof s);\n\
           memset(&zero, 0, sizeof zero);\n\
           utf8_stream_init(&s);\n\
           printf(\"%lu %lu %d\\n\", (unsigned long)sizeof(utf8_stream),\n\
                  (unsigned long)sizeof(utf8_error), memcmp(&s, &zero, sizeof s) == 0);\n\
           printf(\"%lu %lu %lu %lu\\n\", (unsigned long)offsetof(utf8_error, offset),\n\
                  (unsigned long)offsetof(utf8_error, length),\n\
                  (unsigned long)offsetof(utf8_error, kind),\n\
                  (unsigned long)sizeof(utf8_error_kind));\n\
           return 0;\n\
         }\n",
    )
    .expect("the layout probe can be written");
    let exe = build("layout", &source, &[]);
    let (status, stdout, stderr) = run(&exe, b"");
    assert_eq!((status, stderr.as_str()), (0, ""));
    assert_eq!(
        String::from_utf8(stdout).expect("digits"),
        format!(
            "{} {} 1\n{} {} {} {}\n",
            size_of::<utf8validate_core::Stream>(),
            size_of::<CError>(),
            offset_of!(CError, offset),
            offset_of!(CError, length),
            offset_of!(CError, kind),
            size_of::<u32>(),
        )
    );
}
