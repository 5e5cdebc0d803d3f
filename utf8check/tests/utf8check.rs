//! Tests of the `utf8check` binary, run as a separate process.
//!
//! Oracles, all independent of the library: Rust's `std::str::from_utf8`
//! (`valid_up_to`, `error_len`) for where each error is and how long its maximal
//! subpart is; line and column counted here from the bytes; the kind read off the
//! tables of Tang's draft (the shared `oracle::draft_kind`); moreutils' `isutf8`
//! (differential tests); and hand-written expected text for the formats.

mod common;

use common::*;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// `(line, char, byte)` from a line `NAME: line L, char C, byte B: ...`.
fn parse_position(report: &str, name: &str) -> (usize, usize, usize) {
    let rest = report
        .strip_prefix(name)
        .and_then(|r| r.strip_prefix(": line "))
        .unwrap_or_else(|| panic!("not a report for {name}: {report:?}"));
    let (l, rest) = rest.split_once(", char ").expect("char");
    let (c, rest) = rest.split_once(", byte ").expect("byte");
    let (b, _) = rest.split_once(": ").expect("message");
    (l.parse().unwrap(), c.parse().unwrap(), b.parse().unwrap())
}

/// moreutils' isutf8, or `None` (and a message) when it is missing outside CI.
fn isutf8() -> Option<PathBuf> {
    let path = PathBuf::from("/usr/bin/isutf8");
    if path.exists() {
        return Some(path);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("/usr/bin/isutf8 is missing (apt-get install moreutils); required when CI=true");
    }
    eprintln!("SKIPPED: /usr/bin/isutf8 not found (apt-get install moreutils)");
    None
}

fn json_lines(run: &Run) -> Vec<serde_json::Value> {
    run.out()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON {l:?}: {e}")))
        .collect()
}

fn assert_json_matches(v: &serde_json::Value, file: &str, e: &Expect) {
    let obj = v.as_object().expect("an object");
    assert_eq!(obj["file"], file, "{v}");
    assert_eq!(obj["line"], e.line, "{v}");
    assert_eq!(obj["char"], e.col, "{v}");
    assert_eq!(obj["byte"], e.byte, "{v}");
    assert_eq!(obj["length"], e.length, "{v}");
    assert_eq!(obj["kind"], e.kind, "{v}");
}

// ---------------------------------------------------------------------------------
// Exit codes, inputs, flags

#[test]
fn valid_files_exit_0_silently() {
    let r = run(
        &[
            data("ascii.txt"),
            data("multilingual.txt"),
            data("empty.txt"),
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.is_empty() && r.stderr.is_empty());
}

#[test]
fn broken_sample_reports_first_error_like_the_oracle() {
    let path = data("broken.txt");
    let bytes = fs::read(&path).unwrap();
    let e = oracle_first(&bytes).expect("broken.txt is broken");
    // Written from the file's text: line 3 has "caf\xE9 " (Latin-1 é).
    assert_eq!((e.line, e.kind), (3, "missing_continuation"));
    let r = run(&[&path], None);
    assert_eq!(r.code, 1);
    assert_eq!(r.out(), report_line(&path, &e) + "\n");
    assert!(r.stderr.is_empty());
}

#[test]
fn unreadable_inputs_exit_2_name_the_file_and_the_rest_is_checked() {
    let dir = scratch("unreadable");
    let missing = dir.join("no-such-file.txt");
    let missing = missing.to_str().unwrap();
    let d = dir.to_str().unwrap();
    let (ascii, broken) = (data("ascii.txt"), data("broken.txt"));
    let broken_line = report_line(&broken, &oracle_first(&fs::read(&broken).unwrap()).unwrap());

    let r = run(&[&ascii, missing, &broken, d], None);
    assert_eq!(r.code, 2, "2 (unreadable) wins over 1 (invalid)");
    assert_eq!(
        r.out(),
        broken_line.clone() + "\n",
        "later files still checked"
    );
    // The system's messages (strerror), as Unix tools print them: no Rust
    // "(os error N)" after them.
    assert!(
        r.stderr
            .lines()
            .any(|l| l == format!("utf8check: {missing}: No such file or directory")),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .lines()
            .any(|l| l == format!("utf8check: {d}: Is a directory")),
        "{}",
        r.stderr
    );

    for (args, code) in [
        (vec![ascii.as_str(), missing], 2),
        (vec![d], 2),
        (vec![missing, ascii.as_str()], 2),
        (vec![ascii.as_str(), broken.as_str()], 1),
        (vec![broken.as_str(), ascii.as_str()], 1),
    ] {
        assert_eq!(run(&args, None).code, code, "{args:?}");
    }
    // The status does not depend on the output flags.
    for flag in ["-q", "-l", "-i", "--json", "--all", "-v"] {
        assert_eq!(run(&[flag, &ascii, missing], None).code, 2, "{flag}");
        assert_eq!(run(&[flag, &ascii, &broken], None).code, 1, "{flag}");
        assert_eq!(run(&[flag, &ascii], None).code, 0, "{flag}");
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn standard_input_with_no_file_with_dash_and_as_dev_stdin() {
    let bytes = fs::read(data("broken.txt")).unwrap();
    let e = oracle_first(&bytes).unwrap();
    let stdin_line = report_line("(standard input)", &e) + "\n";

    let r = run::<&str>(&[], Some(&bytes));
    assert_eq!((r.code, r.out()), (1, stdin_line.clone()));
    let r = run(&["-"], Some(&bytes));
    assert_eq!((r.code, r.out()), (1, stdin_line.clone()));
    let r = run(&[data("ascii.txt").as_str(), "-"], Some(&bytes));
    assert_eq!((r.code, r.out()), (1, stdin_line.clone()));
    let r = run(&["/dev/stdin"], Some(&bytes));
    assert_eq!((r.code, r.out()), (1, report_line("/dev/stdin", &e) + "\n"));

    let ok = fs::read(data("multilingual.txt")).unwrap();
    let r = run::<&str>(&[], Some(&ok));
    assert_eq!((r.code, r.stdout.len()), (0, 0));
    let r = run::<&str>(&[], Some(b""));
    assert_eq!((r.code, r.stdout.len()), (0, 0));

    // A pipe carrying several blocks, with the error near the end.
    let mut big = "ünïcödé text\n".repeat(80_000).into_bytes();
    big.extend_from_slice(b"end \xF4\x90\x80\x80\n");
    let e = oracle_first(&big).unwrap();
    assert_eq!(e.kind, "too_large");
    let r = run(&["-"], Some(&big));
    assert_eq!(r.out(), report_line("(standard input)", &e) + "\n");
}

#[test]
fn quiet_list_and_invert_like_isutf8() {
    let (a, m, b) = (
        data("ascii.txt"),
        data("multilingual.txt"),
        data("broken.txt"),
    );
    let cases: Vec<(Vec<&str>, String, i32)> = vec![
        (vec!["-q", &a, &b], String::new(), 1),
        (vec!["--quiet", &a, &m], String::new(), 0),
        (vec!["-l", &a, &b, &m], format!("{b}\n"), 1),
        (vec!["--list", &b, &a, &b], format!("{b}\n{b}\n"), 1),
        (vec!["--list-only", &a, &b], format!("{b}\n"), 1),
        (vec!["-l", &a, &m], String::new(), 0),
        (vec!["-i", &a, &b, &m], format!("{a}\n{m}\n"), 1),
        (vec!["--invert", &b], String::new(), 1),
        (vec!["-l", "-i", &a, &b], format!("{a}\n"), 1),
        (vec!["-li", &b, &m], format!("{m}\n"), 1),
        (vec!["-q", "-i", &a, &b], String::new(), 1),
        (vec!["-q", "-l", &a, &b], String::new(), 1),
        (vec!["-l", "-v", &b], format!("{b}\n"), 1),
        (vec!["-l", "--all", &b], format!("{b}\n"), 1),
        (vec!["-l", "--json", &b], format!("{b}\n"), 1),
    ];
    for (args, out, code) in cases {
        let r = run(&args, None);
        assert_eq!((r.out(), r.code), (out, code), "{args:?}");
    }
    // -i names standard input when it is valid.
    let r = run(&["-i"], Some(b"fine\n"));
    assert_eq!((r.out().as_str(), r.code), ("(standard input)\n", 0));
}

#[test]
fn verbose_dump_marks_the_maximal_subpart() {
    // Expected text written by hand from the format: 8 bytes before the error and up
    // to 8 from it, hex padded to 48 columns, " | ", printable ASCII or '.', carets
    // under the maximal subpart, then an empty line.
    let r = run(&["-v"], Some(b"0123456789\xE2\x82 tail\n"));
    let expected = format!(
        "(standard input): line 1, char 11, byte 10: {}\n\
         32 33 34 35 36 37 38 39 E2 82 20 74 61 69 6C 0A  | 23456789.. tail.\n\
         \x20                       ^^^^^                    |         ^^\n\n",
        message_of("missing_continuation")
    );
    assert_eq!(r.out(), expected);

    // Near the start (fewer than 8 bytes before), an overlong C0 AF ('/').
    let r = run(&["-v"], Some(b"a\n\xC0\xAFb"));
    let expected = format!(
        "(standard input): line 2, char 1, byte 2: {}\n\
         61 0A C0 AF 62                                   | a...b\n\
         \x20     ^^                                         |   ^\n\n",
        message_of("overlong")
    );
    assert_eq!(r.out(), expected);

    // A surrogate: the maximal subpart is ED alone (Unicode §3.9).
    let r = run(&["-v"], Some(b"x\xED\xA0\x80"));
    let out = r.out();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], format!("{:48} | x...", "78 ED A0 80"));
    assert_eq!(lines[2], format!("{:48} |  ^", "   ^^"));

    // Truncated at the end: every byte to the end is marked.
    let r = run(
        &["--verbose"],
        Some("é\u{1F600}".as_bytes().split_last().unwrap().1),
    );
    let out = r.out();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], format!("{:48} | .....", "C3 A9 F0 9F 98"));
    assert_eq!(lines[2], format!("{:48} |   ^^^", "      ^^^^^^^^"));
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3], "");
}

#[test]
fn all_and_json_report_every_error_like_the_oracle() {
    let path = data("broken.txt");
    let bytes = fs::read(&path).unwrap();
    let expected = oracle_all(&bytes);
    // From the file's text: 4 Latin-1 letters (û is FB, never used), a surrogate
    // ED A0 BD (ED, then A0 and BD as stray continuation bytes), a cut-off E2 82.
    let kinds: Vec<&str> = expected.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            "missing_continuation",
            "missing_continuation",
            "invalid_byte",
            "missing_continuation",
            "surrogate",
            "unexpected_continuation",
            "unexpected_continuation",
            "truncated"
        ]
    );

    let r = run(&["--all", &path], None);
    assert_eq!(r.code, 1);
    let want: String = expected
        .iter()
        .map(|e| report_line(&path, e) + "\n")
        .collect();
    assert_eq!(r.out(), want);

    let r = run(&["--all", "--json", &path], None);
    assert_eq!(r.code, 1);
    let values = json_lines(&r);
    assert_eq!(values.len(), expected.len());
    for (v, e) in values.iter().zip(&expected) {
        assert_json_matches(v, &path, e);
    }
    // Without --all: only the first.
    let r = run(&["--json", &path], None);
    let values = json_lines(&r);
    assert_eq!(values.len(), 1);
    assert_json_matches(&values[0], &path, &expected[0]);

    // -v with --all: one dump (3 lines) per error.
    let r = run(&["--all", "-v", &path], None);
    assert_eq!(r.out().lines().count(), 4 * expected.len());
}

/// Random text with ill-formed bytes mixed in, so that errors fall at every
/// alignment relative to the reader's blocks.
fn noisy_text(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let chunks: [&[u8]; 16] = [
        b"plain ",
        b"\n",
        "é".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        "\u{10FFFF}".as_bytes(),
        b"\xFF",
        b"\xC0\xAF",
        b"\xED\xA0\x80",
        b"\xF4\x90\x80\x80",
        b"\xE2\x82",
        b"\xF0\x9F\x98",
        b"\x80",
        b"\xE0\x9F\xBF",
        b"\xF8\x88\x80\x80\x80",
        b"text\n",
    ];
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        let r = next();
        // Mostly valid chunks, an ill-formed one about every 20 chunks.
        let i = if r % 20 == 0 {
            6 + (r >> 8) as usize % 9
        } else {
            [0, 1, 2, 3, 4, 5, 15][(r >> 8) as usize % 7]
        };
        out.extend_from_slice(chunks[i]);
    }
    out
}

#[test]
fn all_mode_over_several_blocks_matches_the_oracle() {
    let dir = scratch("all-blocks");
    for (seed, len) in [(1u64, 1_500_000usize), (7, 600_000)] {
        let mut bytes = noisy_text(len, seed);
        if seed == 7 {
            bytes.extend_from_slice(b"\xF3\xBF"); // ends inside a sequence
        }
        let file = dir.join(format!("noisy-{seed}.txt"));
        fs::write(&file, &bytes).unwrap();
        let name = file.to_str().unwrap();
        let expected = oracle_all(&bytes);
        assert!(expected.len() > 1000);

        let r = run(&["--all", "--json", name], None);
        assert_eq!(r.code, 1);
        let values = json_lines(&r);
        assert_eq!(values.len(), expected.len());
        for (v, e) in values.iter().zip(&expected) {
            assert_json_matches(v, name, e);
        }
        // The same through a pipe, in text form.
        let r = run(&["--all", "-"], Some(&bytes));
        let want: String = expected
            .iter()
            .map(|e| report_line("(standard input)", e) + "\n")
            .collect();
        assert!(r.out() == want, "--all over a pipe differs from the oracle");
    }
    let _ = fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn json_file_names_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("json-names");
    let raw: &[u8] = b"bad\xFFname \"q\"\\.txt";
    let file = dir.join(OsStr::from_bytes(raw));
    fs::write(&file, b"ok\n\x80").unwrap();
    let r = run_in(&dir, &[OsStr::from_bytes(raw)], None);
    // Text mode writes the name's bytes unchanged, like isutf8.
    let mut want = raw.to_vec();
    want.extend_from_slice(b": line 2, char 1, byte 3: ");
    assert!(r.stdout.starts_with(&want), "{:?}", r.stdout);

    let r = run_in(&dir, &[OsStr::new("--json"), OsStr::from_bytes(raw)], None);
    let v = &json_lines(&r)[0];
    assert_eq!(v["file"], "bad\u{FFFD}name \"q\"\\.txt");
    let bytes: Vec<u8> = v["file_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(bytes, raw);
    assert_eq!((v["line"].as_u64(), v["byte"].as_u64()), (Some(2), Some(3)));
    assert_eq!(v["kind"], "unexpected_continuation");

    // A UTF-8 name has no "file_bytes", and is escaped properly.
    let name = "naïve \"quoted\"\\\t.txt";
    fs::write(dir.join(name), b"\xFE").unwrap();
    let r = run_in(&dir, &["--json", name], None);
    let v = &json_lines(&r)[0];
    assert_eq!(v["file"], name);
    assert!(v.get("file_bytes").is_none());
    let _ = fs::remove_dir_all(&dir);
}

/// Output that cannot be written stops the run with status 2: a full disk with a
/// message, a reader that closed the pipe (as `| head` does) quietly.
#[test]
fn output_that_cannot_be_written_exits_2() {
    let dir = scratch("output");
    let file = dir.join("bad.txt");
    fs::write(&file, b"ok\n\xFF\n").unwrap();
    let full = fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(BIN).arg(&file).stdout(full).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("utf8check: cannot write to standard output: "),
        "{stderr}"
    );
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(BIN)
        .arg(&file)
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn help_and_version() {
    let r = run(&["--help"], None);
    assert_eq!(r.code, 0);
    let help = r.out();
    for word in [
        "--quiet",
        "--list",
        "--invert",
        "--verbose",
        "--all",
        "--json",
        "Exit status",
        "A valid FILE prints nothing",
        "0 ",
        "1 ",
        "2 ",
    ] {
        assert!(help.contains(word), "--help lacks {word:?}");
    }
    let r = run(&["--version"], None);
    assert_eq!(
        r.out(),
        format!("utf8check {}\n", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(run(&["--no-such-flag"], None).code, 2);
}

// ---------------------------------------------------------------------------------
// Block boundaries and memory

#[test]
fn errors_and_characters_across_block_boundaries() {
    // A stream is read in 256 KiB blocks; put sequences at every offset around the
    // first boundary, in files (mapped) and through a pipe (read in blocks).
    let dir = scratch("boundaries");
    let probes: [&[u8]; 5] = [
        "😀\u{FFFD}".as_bytes(), // valid 4- and 3-byte characters, then an error below
        b"\xF0\x9F\x98A",        // a 4-byte sequence missing its last byte
        b"\xED\xA0\x80",         // surrogate
        b"\xE2\x82\xAC\x80",     // a stray continuation after a valid '€'
        b"\xF4\x8F\xBF",         // truncated at the very end of the file
    ];
    let base = 256 * 1024;
    for (p, probe) in probes.iter().enumerate() {
        let mut names = Vec::new();
        let mut expects = Vec::new();
        for at in base - 40..base + 40 {
            let mut bytes = vec![b'a'; at];
            bytes[at / 2] = b'\n';
            bytes.extend_from_slice(probe);
            if p == 0 {
                bytes.extend_from_slice(b"\n\xC1\xBF");
            }
            if p != 4 {
                bytes.extend_from_slice(b" and some more text after it\n");
            }
            let name = format!("p{p}-{at}.txt");
            fs::write(dir.join(&name), &bytes).unwrap();
            expects.push(oracle_first(&bytes).unwrap());
            names.push(name);
        }
        let r = run_in(&dir, &names, None);
        assert_eq!(r.code, 1);
        let want: String = names
            .iter()
            .zip(&expects)
            .map(|(n, e)| report_line(n, e) + "\n")
            .collect();
        assert!(r.out() == want, "probe {p}: reports differ from the oracle");
        // The -v dump shows the 8 bytes before each error and 8 from it, also when
        // they lie in different blocks.
        let mut args = vec!["-v".to_string()];
        args.extend(names.iter().cloned());
        let out = run_in(&dir, &args, None).out();
        let dumps: Vec<&str> = out.lines().skip(1).step_by(4).collect();
        assert_eq!(dumps.len(), names.len());
        for ((dump, e), name) in dumps.iter().zip(&expects).zip(&names) {
            let bytes = fs::read(dir.join(name)).unwrap();
            let shown = &bytes[e.byte - 8..(e.byte + 8).min(bytes.len())];
            let hex: String = shown.iter().map(|b| format!("{b:02X} ")).collect();
            assert!(
                dump.starts_with(&format!("{hex:48} | ")),
                "{name}: {dump:?}"
            );
        }
        // The same bytes through a pipe, read in blocks: the report and the dump.
        for (name, e) in names.iter().zip(&expects) {
            let bytes = fs::read(dir.join(name)).unwrap();
            let r = run(&["-v", "-"], Some(&bytes));
            let out = r.out();
            let mut lines = out.lines();
            assert_eq!(
                lines.next(),
                Some(report_line("(standard input)", e).as_str()),
                "{name} piped"
            );
            let shown = &bytes[e.byte - 8..(e.byte + 8).min(bytes.len())];
            let hex: String = shown.iter().map(|b| format!("{b:02X} ")).collect();
            let dump = lines.next().unwrap_or_default();
            assert!(
                dump.starts_with(&format!("{hex:48} | ")),
                "{name} piped: {dump:?}"
            );
        }
        for n in &names {
            fs::remove_file(dir.join(n)).unwrap();
        }
    }
    // Valid 4-byte characters straddling every block boundary at every phase.
    for phase in 0..4 {
        let mut bytes = vec![b'x'; phase];
        bytes.extend_from_slice("😀".repeat(200_000).as_bytes());
        let r = run(&["-"], Some(&bytes));
        assert_eq!((r.code, r.stdout.len()), (0, 0), "phase {phase}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A file larger than the mapping window (64 MiB): errors and a character that
/// straddle the window boundary, reported with `--all` exactly as the oracle says,
/// lines and columns included (counted by mapping the file again).
#[test]
fn errors_across_the_mapping_window() {
    let dir = scratch("window");
    let window = 64 << 20;
    let mut bytes = Vec::with_capacity(window + 4096);
    let line = "Grüße, 世界! 😀 valid text on a line\n";
    while bytes.len() + line.len() < window - 100 {
        bytes.extend_from_slice(line.as_bytes());
    }
    bytes.resize(window - 5, b'x');
    bytes.extend_from_slice(b"\xE2\x82"); // cut short by ASCII, 3 bytes before
    bytes.push(b'y');
    bytes.extend_from_slice("😀".as_bytes()); // straddles the boundary
    bytes.extend_from_slice(b"\x80\xED\xA0\x80 tail\n\xF0\x9F");
    let file = dir.join("window.txt");
    fs::write(&file, &bytes).unwrap();
    let name = file.to_str().unwrap();
    let expected = oracle_all(&bytes);
    // E2 82 before y; 80; ED (A0 cannot follow it), A0, 80; F0 9F at the end.
    assert_eq!(expected.len(), 6);
    let r = run(&["--all", name], None);
    let want: String = expected
        .iter()
        .map(|e| report_line(name, e) + "\n")
        .collect();
    assert!(r.out() == want, "{}\nwant:\n{want}", r.out());
    let _ = fs::remove_dir_all(&dir);
}

/// A file long enough to be checked on several cores at once (two parts of 64 MiB
/// or more): valid with a character across the middle, where two cores cut it;
/// then with errors there, and with one near the end: each reported as the
/// oracle says (a file with an error is scanned again in order for the report).
#[test]
fn large_files_checked_on_several_cores() {
    let dir = scratch("parallel");
    let line = "Grüße, 世界! 😀 valid text on a line\n";
    let middle = 65 << 20;
    let half = line.repeat(middle / line.len() - 1);
    let mut bytes = half.clone().into_bytes();
    // A 4-byte character across the middle (the cut of two parts).
    bytes.resize(middle - 2, b'x');
    bytes.extend_from_slice("😀".as_bytes());
    bytes.extend_from_slice(half.as_bytes());
    bytes.resize(2 * middle, b'x');
    let file = dir.join("large.txt");
    let name = file.to_str().unwrap();
    fs::write(&file, &bytes).unwrap();
    assert!(std::str::from_utf8(&bytes).is_ok());
    let r = run(&[name], None);
    assert_eq!((r.code, r.out(), r.stderr.as_str()), (0, String::new(), ""));
    // The emoji cut short by ASCII at the cut; a stray continuation byte right
    // after it; one near the end.
    for (at, byte) in [(middle, b'A'), (middle + 2, 0x80), (bytes.len() - 3, 0x80)] {
        let mut broken = bytes.clone();
        broken[at] = byte;
        fs::write(&file, &broken).unwrap();
        let want = oracle_first(&broken).expect("an error");
        let r = run(&[name], None);
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert_eq!(r.out(), report_line(name, &want) + "\n", "error at {at}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Writes `size` bytes of valid text with an error near the end, and checks it under
/// an address-space limit far below the file size (so reading it whole would fail).
fn check_big_file_under_memory_limit(size: usize, limit_kib: usize, test: &str) {
    let dir = scratch(test);
    let file = dir.join("big.txt");
    let chunk = "Grüße, 世界! 😀 valid text on a line\n".repeat(4096);
    let mut f = std::io::BufWriter::new(fs::File::create(&file).unwrap());
    let mut written = 0;
    while written + chunk.len() <= size {
        f.write_all(chunk.as_bytes()).unwrap();
        written += chunk.len();
    }
    f.write_all(b"last line \xE0\x80\xAF\n").unwrap();
    f.flush().unwrap();
    drop(f);
    let lines = written / chunk.len() * 4096;
    let col = "last line ".len() + 1;
    let byte = written + "last line ".len();
    let name = file.to_str().unwrap();

    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {limit_kib} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .arg(name);
    let r = run_cmd(cmd, None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.out(),
        format!(
            "{name}: line {}, char {col}, byte {byte}: {}\n",
            lines + 1,
            message_of("overlong")
        )
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn memory_does_not_grow_with_the_file() {
    // 48 MB under a 24 MiB address-space limit.
    check_big_file_under_memory_limit(48 << 20, 24 * 1024, "memory");
}

#[test]
#[ignore = "writes 400 MB to the temporary directory; run with --ignored"]
fn memory_does_not_grow_with_a_400_mb_file() {
    check_big_file_under_memory_limit(400 << 20, 24 * 1024, "memory-400");
}

// ---------------------------------------------------------------------------------
// Differential tests against moreutils' isutf8

/// The ill-formed sequences of the draft's tables, each as (label, bytes, whether the
/// file must end right after them).
fn draft_table_cases() -> Vec<(String, Vec<u8>, bool)> {
    let mut cases = Vec::new();
    // "Bytes never used": C0-C1, F5-F7, F8-FB, FC-FD, FE-FF; alone and followed by
    // continuation bytes (as if they led a sequence).
    for b in [
        0xC0u8, 0xC1, 0xF5, 0xF6, 0xF7, 0xF8, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF,
    ] {
        cases.push((format!("never-{b:02X}"), vec![b], false));
        cases.push((
            format!("never-{b:02X}-cont"),
            vec![b, 0x80, 0x80, 0x80],
            false,
        ));
    }
    // "Two-byte pairs never used": C0-F7 followed by 00-7F.
    for lead in 0xC0u8..=0xF7 {
        for second in [0x00u8, 0x0A, 0x41, 0x7F] {
            cases.push((
                format!("pair-{lead:02X}-{second:02X}"),
                vec![lead, second],
                false,
            ));
        }
    }
    // E0 80-9F, F0 80-8F (overlong), ED A0-BF (surrogate), F4 90-BF (> U+10FFFF).
    for second in 0x80u8..=0x9F {
        cases.push((format!("E0-{second:02X}"), vec![0xE0, second, 0x80], false));
    }
    for second in 0x80u8..=0x8F {
        cases.push((
            format!("F0-{second:02X}"),
            vec![0xF0, second, 0x80, 0x80],
            false,
        ));
    }
    for second in 0xA0u8..=0xBF {
        cases.push((format!("ED-{second:02X}"), vec![0xED, second, 0x80], false));
    }
    for second in 0x90u8..=0xBF {
        cases.push((
            format!("F4-{second:02X}"),
            vec![0xF4, second, 0x80, 0x80],
            false,
        ));
    }
    // A missing last continuation byte before ASCII.
    for seq in [
        &[0xE1u8, 0x80][..],
        &[0xF1, 0x80, 0x80],
        &[0xF0, 0x90],
        &[0xEF, 0xBF],
    ] {
        let mut s = seq.to_vec();
        s.push(b'Z');
        cases.push((format!("missing-{}", hex(seq)), s, false));
    }
    // Truncated sequences at the end of the file.
    for seq in [
        &[0xC2u8][..],
        &[0xDF],
        &[0xE0],
        &[0xE0, 0xA0],
        &[0xE1, 0x80],
        &[0xED, 0x9F],
        &[0xEF, 0xBF],
        &[0xF0],
        &[0xF0, 0x90],
        &[0xF0, 0x90, 0x80],
        &[0xF1, 0x80, 0x80],
        &[0xF3, 0xBF, 0xBF],
        &[0xF4],
        &[0xF4, 0x8F, 0xBF],
    ] {
        cases.push((format!("truncated-{}", hex(seq)), seq.to_vec(), true));
    }
    // Stray continuation bytes, alone and after complete characters.
    for b in [0x80u8, 0x8F, 0x90, 0x9F, 0xA0, 0xBF] {
        cases.push((format!("stray-{b:02X}"), vec![b], false));
    }
    for seq in [
        &[0xC3u8, 0xA9, 0xA9][..],
        &[0xE2, 0x82, 0xAC, 0x80],
        &[0xF0, 0x9F, 0x98, 0x80, 0xBF],
    ] {
        cases.push((format!("stray-after-{}", hex(seq)), seq.to_vec(), false));
    }
    cases
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join("")
}

/// Text placed before each ill-formed sequence.
const PLACEMENTS: [(&str, &str); 4] = [
    ("ascii", "abc "),
    ("multibyte", "héllo wörld ✓ 😀 "),
    ("newlines", "line one\nlïne twö\n\n€ four\nfive "),
    ("line-start", "x\n\n\n"),
];

/// `(line, char, byte)` per file name from a run's report lines.
fn positions(stdout: &[u8], names: &[String]) -> HashMap<String, (usize, usize, usize)> {
    let text = String::from_utf8_lossy(stdout);
    let mut map = HashMap::new();
    for line in text.lines() {
        let (name, _) = line
            .split_once(": line ")
            .unwrap_or_else(|| panic!("unexpected output line {line:?}"));
        assert!(names.iter().any(|n| n == name), "unknown file in {line:?}");
        map.insert(name.to_string(), parse_position(line, name));
    }
    map
}

#[test]
fn same_line_char_byte_as_isutf8_for_every_kind_of_the_draft() {
    let Some(isutf8) = isutf8() else { return };
    let dir = scratch("isutf8-draft");
    let mut names = Vec::new();
    let mut contents = HashMap::new();
    for (label, seq, at_end) in draft_table_cases() {
        for (place, prefix) in PLACEMENTS {
            let mut bytes = prefix.as_bytes().to_vec();
            bytes.extend_from_slice(&seq);
            if !at_end {
                bytes.extend_from_slice(" and after ✓\nmore\n".as_bytes());
            }
            let name = format!("{place}-{label}.txt");
            fs::write(dir.join(&name), &bytes).unwrap();
            contents.insert(name.clone(), bytes);
            names.push(name);
        }
    }
    let ours = run_in(&dir, &names, None);
    assert_eq!(ours.code, 1);
    let mut cmd = Command::new(&isutf8);
    cmd.args(&names).current_dir(&dir);
    let theirs = run_cmd(cmd, None);
    assert_eq!(theirs.code, 1);
    let (ours_pos, theirs_pos) = (
        positions(&ours.stdout, &names),
        positions(&theirs.stdout, &names),
    );
    assert_eq!(ours_pos.len(), names.len(), "one report per file");
    assert_eq!(theirs_pos.len(), names.len(), "isutf8: one report per file");
    let mut kinds = HashMap::new();
    for name in &names {
        assert_eq!(
            ours_pos[name], theirs_pos[name],
            "{name}: utf8check vs isutf8"
        );
        let e = oracle_first(&contents[name]).unwrap();
        assert_eq!(
            ours_pos[name],
            (e.line, e.col, e.byte),
            "{name}: vs std oracle"
        );
        *kinds.entry(e.kind).or_insert(0) += 1;
    }
    // Every kind of the draft is among the cases.
    for kind in &oracle::KIND_NAMES[1..] {
        assert!(kinds.contains_key(kind), "no case of kind {kind}");
    }
    eprintln!(
        "compared {} files with isutf8; kinds: {kinds:?}",
        names.len()
    );

    // Kind and length of each, in JSON, against the draft's tables and std.
    let mut args = vec!["--json".to_string()];
    args.extend(names.iter().cloned());
    let r = run_in(&dir, &args, None);
    let values = json_lines(&r);
    assert_eq!(values.len(), names.len());
    for (v, name) in values.iter().zip(&names) {
        assert_json_matches(v, name, &oracle_first(&contents[name]).unwrap());
    }

    // Documented difference: on standard input isutf8 prints a 0-based "char";
    // utf8check prints the same 1-based column as for files.
    for name in names.iter().step_by(37) {
        // isutf8 reads standard input when given no file.
        let theirs = run_cmd(Command::new(&isutf8), Some(&contents[name]));
        let ours = run(&["-"], Some(&contents[name]));
        let (l1, c1, b1) = parse_position(&ours.out(), "(standard input)");
        let (l2, c2, b2) =
            parse_position(&String::from_utf8_lossy(&theirs.stdout), "(standard input)");
        assert_eq!((l1, c1, b1), (l2, c2 + 1, b2), "{name} on stdin");
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn markus_kuhn_stress_test_like_isutf8_and_std() {
    let path = format!(
        "{}/../../shared/testdata/UTF-8-test.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let Ok(bytes) = fs::read(&path) else {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{path} is missing; required when CI=true");
        }
        eprintln!("SKIPPED: {path} not found");
        return;
    };
    // Whole file: first error against std, then every error with --all.
    let first = oracle_first(&bytes).unwrap();
    assert_eq!(
        first.byte, 4461,
        "the testdata README says the first is at 4461"
    );
    let r = run(&[&path], None);
    assert_eq!(r.out(), report_line(&path, &first) + "\n");
    let expected = oracle_all(&bytes);
    let r = run(&["--all", "--json", &path], None);
    let values = json_lines(&r);
    assert_eq!(values.len(), expected.len());
    for (v, e) in values.iter().zip(&expected) {
        assert_json_matches(v, &path, e);
    }
    eprintln!("UTF-8-test.txt: {} errors match std", expected.len());

    let Some(isutf8) = isutf8() else { return };
    let mut cmd = Command::new(&isutf8);
    cmd.arg(&path);
    let theirs = run_cmd(cmd, None);
    assert_eq!(
        parse_position(&String::from_utf8_lossy(&theirs.stdout), &path),
        (first.line, first.col, first.byte)
    );

    // Every line on its own, and every line with all the lines before it, so each
    // malformed line of the file is compared, not only the first.
    let dir = scratch("kuhn");
    let mut names = Vec::new();
    let mut offset = 0;
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        offset += line.len();
        if std::str::from_utf8(line).is_ok() {
            continue;
        }
        let alone = format!("line-{i:03}.txt");
        fs::write(dir.join(&alone), line).unwrap();
        // The line with a few earlier lines before it (valid ones only, so the error
        // is this line's).
        let mut with_context = b"first\n\xC3\xA9t\xC3\xA9\n".to_vec();
        with_context.extend_from_slice(line);
        let ctx = format!("ctx-{i:03}.txt");
        fs::write(dir.join(&ctx), &with_context).unwrap();
        names.push(alone);
        names.push(ctx);
    }
    assert_eq!(offset, bytes.len());
    assert!(names.len() > 100, "UTF-8-test.txt has many malformed lines");
    let ours = run_in(&dir, &names, None);
    let mut cmd = Command::new(&isutf8);
    cmd.args(&names).current_dir(&dir);
    let theirs = run_cmd(cmd, None);
    let (o, t) = (
        positions(&ours.stdout, &names),
        positions(&theirs.stdout, &names),
    );
    assert_eq!(o.len(), names.len());
    for name in &names {
        assert_eq!(o[name], t[name], "{name}: utf8check vs isutf8");
        let data = fs::read(dir.join(name)).unwrap();
        let e = oracle_first(&data).unwrap();
        assert_eq!(o[name], (e.line, e.col, e.byte), "{name}: vs std");
    }
    eprintln!(
        "UTF-8-test.txt: {} malformed-line files match isutf8",
        names.len()
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A regular file that reports size 0 but has bytes (Linux's /proc): read, not
/// mapped with length 0 and called valid. A child's command line with an FF byte in
/// its name (`arg0`) must be found ill-formed there, at byte 1.
#[cfg(target_os = "linux")]
#[test]
fn proc_files_of_size_zero_are_read() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("sleep")
        .arg0(OsStr::from_bytes(b"a\xFF"))
        .arg("30")
        .spawn()
        .expect("spawn sleep");
    let cmdline = format!("/proc/{}/cmdline", child.id());
    // Until the child has called exec, its command line is still this test's.
    let started = std::time::Instant::now();
    while !fs::read(&cmdline).is_ok_and(|line| line.starts_with(b"a\xFF\0")) {
        assert!(started.elapsed().as_secs() < 10, "sleep never started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(fs::metadata(&cmdline).expect("stat").len(), 0);
    let r = run(&[cmdline.as_str()], None);
    child.kill().ok();
    child.wait().ok();
    assert_eq!(r.code, 1, "{}{}", r.out(), r.stderr);
    assert!(r.out().contains("byte 1:"), "{}", r.out());
}
