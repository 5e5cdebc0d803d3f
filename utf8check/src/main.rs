//! `utf8check`: checks whether files are well-formed UTF-8 (RFC 3629 §4), built on
//! the `utf8validate` library. A drop-in superset of moreutils' `isutf8`.
//!
//! # Compatibility with `isutf8` (moreutils 0.67, "version 1.2")
//!
//! Same flags (`-q`, `-l`/`--list`/`--list-only`, `-i`, `-v`), same report line
//! `FILE: line L, char C, byte B: MESSAGE`, same name `(standard input)` for stdin,
//! same meaning of the numbers: `byte` is the 0-based offset of the first byte of the
//! first ill-formed sequence (Rust's `valid_up_to`), `line` is 1 + the newlines
//! before it, and `char` is — despite its name — the 1-based *byte* column within
//! that line (1 + bytes since the last newline), which is what isutf8 prints for
//! files. The message is the library's `ErrorKind::message()` instead of isutf8's
//! byte-range sentence. Deliberate differences:
//!
//! - isutf8 reads stdin and pipes line by line and then prints a 0-based `char`;
//!   utf8check prints the same 1-based column for every kind of input.
//! - `-` means standard input (isutf8 tries to open a file named `-`).
//! - An input that cannot be read (missing, unreadable, a directory) is reported on
//!   stderr as `utf8check: FILE: <OS error>` and makes the exit status 2. isutf8
//!   prints `open: No such file or directory` without the name and exits 1, and it
//!   silently accepts a directory as valid UTF-8.
//! - `-v` marks exactly the maximal subpart (Unicode §3.9) with carets; isutf8 marks
//!   from the lead byte to the byte that broke the sequence.
//! - Regular files of 128 MiB or more are checked on every core at once (their
//!   verdict; a file with an error is scanned again in order for the report).
//! - Memory use does not grow with the input: regular files are mapped 64 MiB at a
//!   time, and pipes, terminals and files that report no size are read in 256 KiB
//!   blocks.
//!
//! Additions: `--all` (every error, not only the first), `--json`.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::Parser;

mod file;
mod parallel;
mod report;
mod scan;
mod shrink;
mod sizes;

use scan::{Found, Options, Scanner};
use sizes::Sizes;

const EXIT_CODES: &str = "\
Output:
  For each invalid FILE, one line on stdout (the same format as moreutils' isutf8):
    FILE: line L, char C, byte B: MESSAGE
  L is 1-based; C is the 1-based byte column within the line (isutf8's \"char\");
  B is the 0-based byte offset of the first byte of the ill-formed sequence.
  Standard input is named \"(standard input)\". A valid FILE prints nothing;
  -i prints the names of the valid ones instead, one per line.

Exit status:
  0  every input is well-formed UTF-8
  1  some input is not well-formed UTF-8 (and every input could be read)
  2  some input could not be read (missing, unreadable, a directory, an I/O error);
     the message on stderr names it; the other inputs are still checked.
     2 wins over 1. Invalid command-line usage also exits with 2, and so does
     output that cannot be written (a full disk; a reader that closed the pipe,
     as `| head` does: then quietly), which stops the run.
  The status does not depend on -q, -l, -i, --all or --json.

Differences from isutf8 (moreutils 1.2):
  MESSAGE names the kind of error (the utf8validate library's kinds) instead of
  byte ranges; C is 1-based on standard input and pipes too (isutf8 prints it
  0-based there); \"-\" is standard input; an unreadable input or a directory exits
  2 with its name on stderr (isutf8 exits 1 without the name, or accepts a
  directory as valid); -v marks exactly the maximal subpart; regular files are
  mapped a window at a time and other inputs read in blocks, so memory use does
  not grow with the input.";

/// Check whether files are well-formed UTF-8 (RFC 3629), like moreutils' isutf8.
///
/// Reads each FILE (standard input when there is none, or for "-") in blocks,
/// and reports the first ill-formed sequence of each invalid one.
#[derive(Parser, Debug)]
#[command(name = "utf8check", version = utf8validate_core::VERSION, after_help = EXIT_CODES)]
struct Cli {
    /// Print nothing on stdout; only the exit status tells the result
    #[arg(short, long)]
    quiet: bool,

    /// Print only the names of FILEs that are not valid UTF-8, one per line
    #[arg(short, long, visible_alias = "list-only")]
    list: bool,

    /// Print only the names of FILEs that ARE valid UTF-8 (with or without -l)
    #[arg(short, long)]
    invert: bool,

    /// After each report, print a hex dump of up to 8 bytes before and 8 bytes from
    /// the error, with carets under the maximal subpart (the ill-formed bytes)
    #[arg(short, long)]
    verbose: bool,

    /// Report every ill-formed sequence of a file, not only the first; scanning
    /// resumes right after each maximal subpart
    #[arg(long)]
    all: bool,

    /// Print each error as one JSON object per line:
    /// {"file","line","char","byte","length","kind"} (kind: the library's snake_case
    /// name, e.g. "surrogate"; length: bytes in the maximal subpart). A file name that
    /// is not UTF-8 is written lossily, with its exact bytes added as "file_bytes".
    /// -v is ignored with --json; -q, -l and -i take precedence over it (no output,
    /// or plain file names). An input that cannot be read is reported on stderr
    /// only, as without --json
    #[arg(long)]
    json: bool,

    /// Files to check; "-" or none means standard input
    #[arg(value_name = "FILE")]
    files: Vec<OsString>,
}

/// The outcome for one input, ordered so that the worst one is the maximum.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    Valid = 0,
    Invalid = 1,
    Unreadable = 2,
}

/// Stdout failed (for example a closed pipe): stop, nothing more can be reported.
struct OutputFailed(io::Error);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let sizes = match Sizes::from_env() {
        Ok(sizes) => sizes,
        Err(e) => {
            eprintln!("utf8check: {e}");
            return ExitCode::from(Outcome::Unreadable as u8);
        }
    };
    sizes.trace(format_args!(
        "backend {}",
        utf8validate_core::backends::selected()
    ));
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = run(&cli, sizes, &mut out).and_then(|worst| match out.flush() {
        Ok(()) => Ok(worst),
        Err(e) => Err(OutputFailed(e)),
    });
    match result {
        Ok(worst) => ExitCode::from(worst as u8),
        Err(OutputFailed(e)) => {
            if e.kind() != io::ErrorKind::BrokenPipe {
                eprintln!("utf8check: cannot write to standard output: {e}");
            }
            ExitCode::from(Outcome::Unreadable as u8)
        }
    }
}

fn run(cli: &Cli, sizes: Sizes, out: &mut dyn Write) -> Result<Outcome, OutputFailed> {
    let stdin_only = [OsString::from("-")];
    let files = if cli.files.is_empty() {
        &stdin_only[..]
    } else {
        &cli.files[..]
    };
    let mut scanner = Scanner::new(sizes);
    let mut worst = Outcome::Valid;
    for file in files {
        worst = worst.max(check_one(cli, &mut scanner, file, out)?);
    }
    Ok(worst)
}

/// What is printed per error.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `-q`, or `-i` (names of valid files only), or `-l`: no per-error output.
    Silent,
    Report,
    Json,
}

fn check_one(
    cli: &Cli,
    scanner: &mut Scanner,
    file: &OsString,
    out: &mut dyn Write,
) -> Result<Outcome, OutputFailed> {
    let is_stdin = file == "-";
    let name: Vec<u8> = if is_stdin {
        b"(standard input)".to_vec()
    } else {
        os_bytes(file)
    };
    let mode = if cli.quiet || cli.invert || cli.list {
        Mode::Silent
    } else if cli.json {
        Mode::Json
    } else {
        Mode::Report
    };
    let opts = Options {
        positions: mode != Mode::Silent,
        all: cli.all && mode != Mode::Silent,
    };

    // What the inputs before this one gave is out before a fault could end the
    // process (see `shrink`).
    out.flush().map_err(OutputFailed)?;

    // Output errors are kept apart from read errors: the first stops everything, the
    // second only this input.
    let mut output_error: Option<io::Error> = None;
    let mut on_error = |f: &Found| -> io::Result<()> {
        let written = match mode {
            Mode::Silent => Ok(()),
            Mode::Report => report::line(out, &name, f).and_then(|()| {
                if cli.verbose {
                    report::dump(out, f)
                } else {
                    Ok(())
                }
            }),
            Mode::Json => report::json(out, &name, f),
        };
        written.map_err(|e| {
            output_error = Some(e);
            io::Error::other("output failed")
        })
    };

    let watch = shrink::Watch::new(&name);
    let scanned = if is_stdin {
        scan_stdin(scanner, opts, &mut on_error)
    } else {
        match File::open(file) {
            Ok(mut f) => scanner.scan_file(&mut f, opts, &mut on_error),
            Err(e) => Err(e),
        }
    };
    drop(watch);
    if let Some(e) = output_error {
        return Err(OutputFailed(e));
    }
    let outcome = match scanned {
        Ok(true) => Outcome::Valid,
        Ok(false) => Outcome::Invalid,
        Err(e) => {
            // Keep stdout and stderr in order on a terminal.
            out.flush().map_err(OutputFailed)?;
            let mut err = io::stderr().lock();
            let _ = err.write_all(b"utf8check: ");
            let _ = err.write_all(&name);
            let _ = writeln!(err, ": {}", describe(&e));
            return Ok(Outcome::Unreadable);
        }
    };
    if cli.quiet {
        return Ok(outcome);
    }
    let listed = if cli.invert {
        outcome == Outcome::Valid
    } else {
        cli.list && outcome == Outcome::Invalid
    };
    if listed {
        out.write_all(&name)
            .and_then(|()| out.write_all(b"\n"))
            .map_err(OutputFailed)?;
    }
    Ok(outcome)
}

/// Scans standard input: as a file when it is one (`utf8check < FILE`, so that it is
/// mapped like a named file), else as a stream.
fn scan_stdin(
    scanner: &mut Scanner,
    opts: Options,
    on_error: &mut scan::OnError<'_>,
) -> io::Result<bool> {
    #[cfg(unix)]
    let own = {
        use std::os::fd::AsFd;
        io::stdin().as_fd().try_clone_to_owned().map(File::from)
    };
    #[cfg(windows)]
    let own = {
        use std::os::windows::io::AsHandle;
        io::stdin().as_handle().try_clone_to_owned().map(File::from)
    };
    match own {
        Ok(mut file) => scanner.scan_file(&mut file, opts, on_error),
        Err(_) => scanner.scan_stream(&mut io::stdin().lock(), opts, on_error),
    }
}

/// The text of a read error as Unix tools print it: the system's message, without
/// the ` (os error N)` that Rust's `Display` appends to it.
fn describe(e: &io::Error) -> String {
    let text = e.to_string();
    let suffix = e.raw_os_error().map(|code| format!(" (os error {code})"));
    let message = suffix.and_then(|s| text.strip_suffix(&s).map(str::to_owned));
    message.unwrap_or(text)
}

/// The bytes of a file name as the OS gave them (written to stdout unchanged, as
/// isutf8 does).
#[cfg(unix)]
fn os_bytes(name: &OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    name.as_os_str().as_bytes().to_vec()
}

/// The bytes of a file name: lossy UTF-8 where names are not byte strings.
#[cfg(not(unix))]
fn os_bytes(name: &OsString) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}
