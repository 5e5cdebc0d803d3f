//! `utf8check` run as a user runs it, at every size where it changes route: a
//! regular file cut into parts for several threads, a file mapped a window at a
//! time, standard input redirected from a file, and standard input from a pipe
//! read in blocks.
//!
//! The testing aid (`UTF8CHECK_THREADS`, `UTF8CHECK_PART_SIZE`,
//! `UTF8CHECK_WINDOW_SIZE`, `UTF8CHECK_READ_SIZE`: docs/testing.md) makes parts,
//! windows and blocks a few bytes long, so that small files take every route. An
//! ill-formed sequence of each kind is put at every offset of those files, which
//! puts it at the first and last bytes of every part, window and block and across
//! every cut, at lengths that do and do not divide evenly. Whatever the route, the
//! program must print what the oracle says (`common`: std's `from_utf8`, lines
//! counted here) and exit as it says. Its trace (`UTF8CHECK_TRACE=1`) must show
//! the route the sizes give, so that no test passes on a route it did not take.
//! The defaults are run too, on a file as large as they need. (Unix only: pipes are
//! fed in chunks by watching what is left in them, and files are truncated while
//! they are mapped, which Windows refuses.)
#![cfg(unix)]

mod common;

use common::*;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

/// One ill-formed sequence of each kind. Each overwrites the text at an offset, so
/// the character it lands in may also be cut short before it: the oracle says
/// which error comes first.
const ILL_FORMED: &[&[u8]] = &[
    b"\x80",             // stray continuation byte
    b"\xBF\xBF",         // two of them
    b"\xC0\xAF",         // lead C0 (overlong)
    b"\xC1\xBF",         // lead C1 (overlong)
    b"\xF5\x80\x80\x80", // lead F5 (above U+10FFFF)
    b"\xFF",             // a byte never used
    b"\xE0\x80\xAF",     // overlong, 3 bytes
    b"\xF0\x8F\xBF\xBF", // overlong, 4 bytes
    b"\xED\xA0\x80",     // surrogate
    b"\xF4\x90\x80\x80", // above U+10FFFF
    b"\xE2\x82A",        // missing continuation byte
    b"\xF0\x9F\x98",     // missing continuation byte, or truncated at the end
];

/// `len` bytes of well-formed text with characters of 1 to 4 bytes and newlines,
/// so that cuts fall inside characters and lines span cuts.
fn text(len: usize) -> Vec<u8> {
    let chars = ["a", "\n", "é", "€", "😀", "b", "中", "𝄞", "ж", "c"];
    let mut out = Vec::with_capacity(len);
    for c in chars.iter().cycle() {
        if out.len() + c.len() > len {
            break;
        }
        out.extend_from_slice(c.as_bytes());
    }
    out.resize(len, b'x');
    out
}

/// The text of `len` bytes, whole and with each ill-formed sequence written over it
/// at every offset where it fits. The character the sequence lands in is made
/// ASCII up to it, so that the first error is where the sequence is; and one
/// sequence in twelve, in turn, lands in the text as it is, cutting a character
/// short before it.
fn inputs(len: usize) -> Vec<Vec<u8>> {
    let base = text(len);
    let mut all = vec![base.clone()];
    for (k, bad) in ILL_FORMED.iter().enumerate() {
        for at in 0..=len.saturating_sub(bad.len()) {
            if at + bad.len() > len {
                continue;
            }
            let mut bytes = base.clone();
            bytes[at..at + bad.len()].copy_from_slice(bad);
            if at % ILL_FORMED.len() == k {
                all.push(bytes.clone());
            }
            let lead = (0..at).rev().find(|&i| base[i] & 0xC0 != 0x80);
            bytes[lead.unwrap_or(at)..at].fill(b'x');
            all.push(bytes);
        }
    }
    all
}

/// The back ends this CPU runs, best first (`UTF8VALIDATE_BACKEND`'s names).
fn back_ends() -> Vec<&'static str> {
    utf8validate_core::backends::available()
        .map(|b| b.name())
        .collect()
}

/// The back end for the `i`-th of the tests that run on one back end each: the
/// back ends in turn, so that each runs some of the routes. The ignored test
/// `every_route_on_every_back_end` runs every route on each.
fn in_turn(i: usize) -> &'static str {
    let all = back_ends();
    all[i % all.len()]
}

/// The testing aid's variables for a route, and the trace.
#[derive(Clone, Copy, Debug)]
struct Route {
    threads: usize,
    part: usize,
    window: usize,
    read: usize,
    /// The library's back end (`UTF8VALIDATE_BACKEND`).
    backend: &'static str,
}

impl Route {
    /// One thread, no parts: the mapped scan and the read loop alone.
    fn one_thread(window: usize, read: usize, backend: &'static str) -> Route {
        Route {
            threads: 1,
            part: 1,
            window,
            read,
            backend,
        }
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.env("UTF8CHECK_THREADS", self.threads.to_string())
            .env("UTF8CHECK_PART_SIZE", self.part.to_string())
            .env("UTF8CHECK_WINDOW_SIZE", self.window.to_string())
            .env("UTF8CHECK_READ_SIZE", self.read.to_string())
            .env("UTF8CHECK_TRACE", "1")
            .env("UTF8VALIDATE_BACKEND", self.backend);
        cmd
    }

    /// The back end the trace names is the one asked for.
    fn assert_backend(&self, stderr: &str) {
        let want = format!("backend {}", self.backend);
        assert_eq!(traced(stderr, "backend "), [want.as_str()], "{self:?}");
    }

    /// How many parts a regular file of `len` bytes is cut into: none (0) when it
    /// is checked on one thread.
    fn parts(&self, len: usize) -> usize {
        let parts = self.threads.min(len / self.part);
        if parts >= 2 {
            parts
        } else {
            0
        }
    }
}

/// What the program prints for `bytes` named `name`: the oracle's report line, or
/// nothing.
fn expected(name: &str, bytes: &[u8]) -> String {
    oracle_first(bytes).map_or(String::new(), |e| report_line(name, &e) + "\n")
}

/// The trace lines of a run that start with `what`.
fn traced<'a>(stderr: &'a str, what: &str) -> Vec<&'a str> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("utf8check: trace: "))
        .filter(|l| l.starts_with(what))
        .collect()
}

/// Every input of every length in `lengths`, as files named on one command line
/// under `route`: the output and exit status the oracle gives, and, from the
/// trace, the parts the route gives (each list of starts beginning at 0 and ending
/// at the file's length) and windows of the route's size.
fn check_files(test: &str, route: Route, lengths: impl IntoIterator<Item = usize>) {
    let dir = scratch(test);
    let (mut names, mut want, mut want_parts) = (Vec::new(), String::new(), Vec::new());
    for len in lengths {
        for (i, bytes) in inputs(len).into_iter().enumerate() {
            let name = format!("{len}-{i}");
            fs::write(dir.join(&name), &bytes).unwrap();
            want += &expected(&name, &bytes);
            if route.parts(len) > 0 {
                want_parts.push((route.parts(len), len));
            }
            names.push(name);
        }
    }
    let mut cmd = route.command();
    cmd.args(&names).current_dir(&dir);
    let r = run_cmd(cmd, None);
    let stderr = &r.stderr;
    let code = if want.is_empty() { 0 } else { 1 };
    assert_eq!(r.code, code, "{route:?}: {}", first_lines(stderr));
    route.assert_backend(stderr);
    if r.out() != want {
        let (got, want) = (r.out(), want);
        let diff = got.lines().zip(want.lines()).find(|(g, w)| g != w);
        panic!("{route:?}: the reports differ from the oracle's, first at {diff:?}");
    }
    let parts = traced(stderr, "parts ");
    assert_eq!(
        parts.len(),
        want_parts.len(),
        "{route:?}: files cut into parts"
    );
    for (line, (count, len)) in parts.iter().zip(want_parts) {
        let starts: Vec<usize> = line["parts [".len()..line.len() - 1]
            .split(", ")
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(starts.len(), count + 1, "{route:?}, {len} bytes: {line}");
        assert_eq!((starts[0], starts[count]), (0, len), "{route:?}: {line}");
    }
    for line in traced(stderr, "window ")
        .iter()
        .chain(&traced(stderr, "part window "))
    {
        let size: usize = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((1..=route.window).contains(&size), "{route:?}: {line}");
    }
    let _ = fs::remove_dir_all(&dir);
}

fn first_lines(text: &str) -> String {
    text.lines().take(5).collect::<Vec<_>>().join("\n")
}

/// Lengths around the parallel switch (two parts) and lengths of every remainder
/// modulo `threads` with `threads` parts, for parts of `part` bytes.
fn lengths_for(threads: usize, part: usize) -> Vec<usize> {
    let mut lengths: Vec<usize> = vec![0, 1, 2 * part - 1, 2 * part, 2 * part + 1];
    lengths.extend((0..threads).map(|r| threads * part + r));
    lengths.sort_unstable();
    lengths.dedup();
    lengths
}

fn parts_for_2_3_and_4_threads(backend: &'static str) {
    for threads in [2, 3, 4] {
        // Windows of 3 bytes: parts span windows, and the scan in order after a
        // part fails crosses them too.
        let route = Route {
            threads,
            part: 5,
            window: 3,
            read: 7,
            backend,
        };
        let test = format!("parts-{threads}-{backend}");
        check_files(&test, route, lengths_for(threads, 5));
    }
}

fn parts_for_16_threads(backend: &'static str) {
    // Parts of 1 byte: every cut inside a character, and parts left empty where a
    // cut is moved past the next one.
    let route = Route {
        threads: 16,
        part: 1,
        window: 4,
        read: 7,
        backend,
    };
    check_files(&format!("parts-16-1-{backend}"), route, lengths_for(16, 1));
    // Parts of 3 bytes, with 1, 7 and 15 bytes left over.
    let route = Route { part: 3, ..route };
    check_files(&format!("parts-16-3-{backend}"), route, [49, 55, 63]);
}

fn windows_of_every_small_size(backend: &'static str) {
    for window in [1, 2, 3, 4, 5, 8, 13] {
        let lengths = [window - 1, window, window + 1, 3 * window + 2, 17];
        let route = Route::one_thread(window, 7, backend);
        check_files(&format!("window-{window}-{backend}"), route, lengths);
    }
}

/// Files shorter than two parts on many threads: one thread, as the trace shows.
fn shorter_than_two_parts(backend: &'static str) {
    let route = Route {
        threads: 16,
        part: 20,
        window: 6,
        read: 7,
        backend,
    };
    check_files(&format!("short-{backend}"), route, [0, 1, 19, 20, 21, 39]);
}

#[test]
fn files_cut_into_parts_for_2_3_and_4_threads() {
    parts_for_2_3_and_4_threads(in_turn(0));
}

#[test]
fn files_cut_into_parts_for_16_threads() {
    parts_for_16_threads(in_turn(1));
}

#[test]
fn files_on_one_thread_mapped_in_windows_of_every_small_size() {
    windows_of_every_small_size(in_turn(2));
}

#[test]
fn files_shorter_than_two_parts_take_one_thread() {
    shorter_than_two_parts(in_turn(3));
}

/// Runs `route`'s program with standard input from `stdin` and checks what it
/// prints for `bytes` against the oracle.
fn check_stdin(
    route: Route,
    bytes: &[u8],
    stdin: Stdio,
    feed: Option<(&[u8], usize)>,
) -> Vec<usize> {
    let mut cmd = route.command();
    // With the hex dump (`-v`), whose 8 bytes before an error come from earlier
    // reads when the reads are short.
    cmd.arg("-v")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let writer = feed.map(|(data, chunk)| {
        let pipe = child.stdin.take().unwrap();
        let data = data.to_vec();
        std::thread::spawn(move || write_in_chunks(pipe, &data, chunk))
    });
    let out = child.wait_with_output().unwrap();
    if let Some(w) = writer {
        w.join().unwrap();
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = expected("(standard input)", bytes);
    let how = format!("{route:?}, chunk {:?}, {bytes:02X?}", feed.map(|f| f.1));
    assert_eq!(
        out.status.code(),
        Some(if want.is_empty() { 0 } else { 1 }),
        "{how}: {}",
        first_lines(&stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines = stdout.lines();
    // The report's line, none for valid input.
    assert_eq!(lines.next(), want.strip_suffix('\n'), "{how}");
    if let Some(e) = oracle_first(bytes) {
        // The dump's first line: the 8 bytes before the error and up to 8 from it.
        let shown = &bytes[e.byte.saturating_sub(8)..(e.byte + 8).min(bytes.len())];
        let hex: String = shown.iter().map(|b| format!("{b:02X} ")).collect();
        let dump = lines.next().unwrap_or_default();
        assert!(
            dump.starts_with(&format!("{hex:48} | ")),
            "{how}: dump {dump:?}"
        );
    }
    route.assert_backend(&stderr);
    traced(&stderr, "read ")
        .iter()
        .map(|l| l["read ".len()..].parse().unwrap())
        .collect()
}

/// Writes `data` to `pipe` `size` bytes at a time, each once the reader has taken
/// everything before it, so that every read returns at most one chunk. Stops when
/// the reader is gone (it stops at the first error).
fn write_in_chunks(mut pipe: std::process::ChildStdin, data: &[u8], size: usize) {
    use std::os::fd::AsRawFd;
    for chunk in data.chunks(size) {
        if pipe.write_all(chunk).is_err() {
            return;
        }
        loop {
            let mut unread: libc::c_int = 0;
            // SAFETY: FIONREAD writes one int, the bytes in the pipe, to `unread`.
            let ok = unsafe { libc::ioctl(pipe.as_raw_fd(), libc::FIONREAD, &mut unread) };
            if ok != 0 || unread == 0 {
                break;
            }
            let mut poll = libc::pollfd {
                fd: pipe.as_raw_fd(),
                events: 0,
                revents: 0,
            };
            // SAFETY: one pollfd, not waited on; POLLERR: no reader.
            if unsafe { libc::poll(&mut poll, 1, 0) } > 0 && poll.revents & libc::POLLERR != 0 {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
    }
}

/// Standard input from a pipe, read in blocks of 1 to 17 bytes (the block before
/// an error keeps 8 bytes back for the hex dump) and written in chunks of 1, 7 and
/// 4096 bytes: each kind at every offset, the report the oracle's, and the reads
/// as short as the sizes make them.
fn pipe_with_short_reads(backend: &'static str) {
    // (read size, chunk written at a time)
    let cases = [
        (1, 4096),
        (7, 4096),
        (9, 4096),
        (17, 4096),
        (256 * 1024, 1),
        (256 * 1024, 7),
        (5, 7),
    ];
    for (read, chunk) in cases {
        let route = Route::one_thread(64, read, backend);
        let inputs = inputs(37);
        for bytes in &inputs {
            let reads = check_stdin(route, bytes, Stdio::piped(), Some((bytes, chunk)));
            assert!(
                reads.iter().all(|&n| n <= read.min(chunk)),
                "{read}/{chunk}: {reads:?}"
            );
        }
        // The valid text was read to its end, in reads as long as the shorter of a
        // block and a chunk.
        let reads = check_stdin(route, &inputs[0], Stdio::piped(), Some((&inputs[0], chunk)));
        assert_eq!(reads.iter().sum::<usize>(), 37, "{read}/{chunk}");
        assert_eq!(reads.iter().max(), Some(&read.min(chunk)), "{read}/{chunk}");
    }
    // The empty input.
    check_stdin(
        Route::one_thread(64, 1, backend),
        b"",
        Stdio::piped(),
        Some((b"", 1)),
    );
}

/// Standard input redirected from a regular file (`utf8check < FILE`) is mapped
/// and cut like a named file.
fn stdin_from_a_file(backend: &'static str) {
    let dir = scratch(&format!("stdin-file-{backend}"));
    let route = Route {
        threads: 3,
        part: 4,
        window: 5,
        read: 7,
        backend,
    };
    for len in [0, 7, 8, 12, 13, 14] {
        for bytes in inputs(len) {
            let path = dir.join("input");
            fs::write(&path, &bytes).unwrap();
            check_stdin(route, &bytes, Stdio::from(File::open(&path).unwrap()), None);
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn standard_input_from_a_pipe_with_short_reads() {
    pipe_with_short_reads(in_turn(4));
}

#[test]
fn standard_input_from_a_file_is_cut_like_a_named_file() {
    stdin_from_a_file(in_turn(5));
}

/// Every route above on every back end this CPU runs (about a minute per back end
/// in release builds; `cargo test --profile test-release -p utf8check --test routes
/// -- --ignored`).
#[test]
#[ignore = "every route on every back end: run in release with --ignored"]
fn every_route_on_every_back_end() {
    for backend in back_ends() {
        parts_for_2_3_and_4_threads(backend);
        parts_for_16_threads(backend);
        windows_of_every_small_size(backend);
        shorter_than_two_parts(backend);
        pipe_with_short_reads(backend);
        stdin_from_a_file(backend);
    }
}

/// The defaults on a file long enough for two parts of 64 MiB: `yes 'hello world'`
/// cut at 128 MiB, then an ill-formed byte or a truncated sequence, as a file
/// argument and as standard input, on 2, 3 and 16 threads and with the default
/// thread count: the error at byte 134217728 and after.
#[test]
fn the_last_bytes_of_a_file_in_parts_of_64_mib() {
    let dir = scratch("defaults");
    let path = dir.join("big.txt");
    let line = b"hello world\n";
    let size = 128 << 20;
    let mut f = std::io::BufWriter::new(File::create(&path).unwrap());
    for _ in 0..size / line.len() {
        f.write_all(line).unwrap();
    }
    f.write_all(&line[..size % line.len()]).unwrap();
    f.flush().unwrap();
    drop(f);
    let name = path.to_str().unwrap();
    for (extra, last) in [(&b"\xFF"[..], "ff"), (b"ab\xC0", "c0"), (b"abc\xE2", "e2")] {
        let mut f = fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(size as u64).unwrap();
        use std::io::Seek;
        f.seek(std::io::SeekFrom::End(0)).unwrap();
        f.write_all(extra).unwrap();
        drop(f);
        let byte = size + extra.len() - 1;
        let col = (size % line.len()) + extra.len();
        let lines = size / line.len() + 1;
        // The default thread count and 2 for each route; 3 and 16 (two parts all
        // the same) for the other endings.
        let runs: &[(Option<usize>, bool)] = match last {
            "ff" => &[
                (None, false),
                (None, true),
                (Some(2), false),
                (Some(2), true),
            ],
            _ => &[(Some(3), false), (Some(16), true)],
        };
        for &(threads, stdin) in runs {
            let mut cmd = Command::new(BIN);
            if let Some(n) = threads {
                cmd.env("UTF8CHECK_THREADS", n.to_string());
            }
            if stdin {
                cmd.stdin(File::open(&path).unwrap());
            } else {
                cmd.arg(name).stdin(Stdio::null());
            }
            let r = cmd.output().unwrap();
            let shown = if stdin { "(standard input)" } else { name };
            let want = format!("{shown}: line {lines}, char {col}, byte {byte}: ");
            let how = format!("{last}, {threads:?} threads, stdin {stdin}");
            let stderr = String::from_utf8_lossy(&r.stderr);
            assert_eq!(r.status.code(), Some(1), "{how}: {stderr}");
            let out = String::from_utf8_lossy(&r.stdout);
            assert!(out.starts_with(&want), "{how}: {out}");
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A file another process changes while it is checked, held still by the trace:
/// the program blocks writing it to a pipe that is not read, the file is changed,
/// then the pipe is read. Truncated: exit status 2 and a message naming the file,
/// never "valid" and never death by SIGBUS. Grown: the bytes added are checked,
/// as a reader to the end would check them.
#[test]
fn a_file_that_shrinks_or_grows_while_it_is_read() {
    let dir = scratch("changes");
    let path = dir.join("changing.txt");
    let name = path.to_str().unwrap();
    let valid = text(1 << 20);
    // One thread, and two threads with parts of 256 KiB; windows of 64 bytes make
    // 16,384 trace lines, far more than a pipe holds.
    let routes = [
        Route::one_thread(64, 7, in_turn(6)),
        Route {
            threads: 2,
            part: 256 << 10,
            window: 64,
            read: 7,
            backend: in_turn(7),
        },
    ];
    for route in routes {
        for grow in [false, true] {
            fs::write(&path, &valid).unwrap();
            let mut cmd = route.command();
            cmd.arg(name).stdout(Stdio::piped()).stderr(Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            let mut stderr = BufReader::new(child.stderr.take().unwrap());
            let mut first = String::new();
            stderr.read_line(&mut first).unwrap();
            // Time to fill the pipe and block there, far from the end.
            std::thread::sleep(std::time::Duration::from_millis(300));
            let mut added = b"more text \xFF\n".to_vec();
            if grow {
                fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap()
                    .write_all(&added)
                    .unwrap();
            } else {
                File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_len(valid.len() as u64 / 2)
                    .unwrap();
                added.clear();
            }
            let mut rest = String::new();
            stderr.read_to_string(&mut rest).unwrap();
            let out = child.wait_with_output().unwrap();
            let how = format!("{route:?}, grow {grow}");
            let code = out.status.code();
            assert!(code.is_some(), "{how}: killed by {:?}", out.status);
            let errors: Vec<&str> = rest.lines().filter(|l| !l.contains(": trace: ")).collect();
            if grow {
                let mut bytes = valid.clone();
                bytes.extend_from_slice(&added);
                assert_eq!(code, Some(1), "{how}: {errors:?}");
                assert_eq!(
                    String::from_utf8_lossy(&out.stdout),
                    expected(name, &bytes),
                    "{how}"
                );
            } else {
                assert_eq!(code, Some(2), "{how}");
                let message = format!("utf8check: {name}: the file shrank while it was being read");
                assert_eq!(errors, [message.as_str()], "{how}");
                assert!(out.stdout.is_empty(), "{how}");
            }
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A value of the testing aid that is not a positive integer is a usage error.
#[test]
fn a_bad_value_of_the_testing_aid_is_refused() {
    for var in [
        "UTF8CHECK_THREADS",
        "UTF8CHECK_PART_SIZE",
        "UTF8CHECK_WINDOW_SIZE",
        "UTF8CHECK_READ_SIZE",
    ] {
        let mut cmd = Command::new(BIN);
        cmd.env(var, "0");
        let r = run_cmd(cmd, Some(b"abc"));
        assert_eq!(r.code, 2, "{var}");
        assert!(
            r.stderr.starts_with(&format!("utf8check: {var}: ")),
            "{}",
            r.stderr
        );
    }
}
