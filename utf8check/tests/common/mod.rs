//! What the tests of the `utf8check` binary share: running it as a separate process,
//! scratch directories, and what it must print for given bytes, from independent
//! oracles (Rust's `std::str::from_utf8` for where each error is and how long its
//! maximal subpart is, lines and columns counted here from the bytes, the kind read
//! off the tables of Tang's draft: the shared `oracle::draft_kind`).
#![allow(dead_code)]

#[path = "../../../utf8validate-core/tests/oracle/mod.rs"]
pub mod oracle;

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_utf8check");

// ---------------------------------------------------------------------------------
// Helpers

pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    pub fn out(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8 here")
    }
}

/// Runs `cmd` with `stdin` piped in (from a thread, so large inputs cannot deadlock).
pub fn run_cmd(mut cmd: Command, stdin: Option<&[u8]>) -> Run {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let writer = stdin.map(|data| {
        let data = data.to_vec();
        let mut pipe = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            // The checker may stop reading early (first error); that is not a failure.
            let _ = pipe.write_all(&data);
        })
    });
    let out = child.wait_with_output().expect("wait");
    if let Some(w) = writer {
        w.join().unwrap();
    }
    Run {
        code: out.status.code().expect("exited normally, not by a signal"),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn run<S: AsRef<OsStr>>(args: &[S], stdin: Option<&[u8]>) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    run_cmd(cmd, stdin)
}

pub fn run_in<S: AsRef<OsStr>>(dir: &Path, args: &[S], stdin: Option<&[u8]>) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir);
    run_cmd(cmd, stdin)
}

pub fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty scratch directory for one test.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("utf8check-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Where an error is, computed from the bytes alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expect {
    pub line: usize,
    pub col: usize,
    pub byte: usize,
    pub length: usize,
    pub kind: &'static str,
}

/// Every error `--all` must report: std's `from_utf8` from the start, then again right
/// after each maximal subpart (`error_len`, or the rest when the input ends inside a
/// sequence).
pub fn oracle_all(data: &[u8]) -> Vec<Expect> {
    let mut found = Vec::new();
    let mut start = 0;
    // Line bookkeeping, counted here from the bytes: newlines in data[..counted].
    let (mut counted, mut line, mut line_start) = (0, 1, 0);
    while let Err(e) = std::str::from_utf8(&data[start..]) {
        let at = start + e.valid_up_to();
        for (i, &b) in data[counted..at].iter().enumerate() {
            if b == b'\n' {
                line += 1;
                line_start = counted + i + 1;
            }
        }
        counted = at;
        let length = e.error_len().unwrap_or(data.len() - at);
        found.push(Expect {
            line,
            col: at - line_start + 1, // isutf8's "char": 1-based byte column
            byte: at,
            length,
            kind: oracle::draft_kind(data, at, e.error_len().is_none()).name(),
        });
        start = at + length;
    }
    found
}

pub fn oracle_first(data: &[u8]) -> Option<Expect> {
    oracle_all(data).into_iter().next()
}

pub fn message_of(kind: &str) -> &'static str {
    utf8validate_core::ErrorKind::ALL
        .iter()
        .find(|k| k.name() == kind)
        .unwrap_or_else(|| panic!("no ErrorKind named {kind}"))
        .message()
}

/// The report line utf8check must print for `e` in `name`.
pub fn report_line(name: &str, e: &Expect) -> String {
    format!(
        "{name}: line {}, char {}, byte {}: {}",
        e.line,
        e.col,
        e.byte,
        message_of(e.kind)
    )
}
