//! The sizes that decide how an input is cut: into parts for several cores, into
//! mapped windows, into read blocks ([`Sizes`]); and the environment variables that
//! set them, a testing aid.
//!
//! # The testing aid
//!
//! So that tests can run every route on small files and on any number of cores,
//! these variables, read once at start-up, replace the defaults (each a positive
//! decimal integer; any other value is a usage error, exit status 2):
//!
//! | variable | default | what it sets |
//! |---|---|---|
//! | `UTF8CHECK_THREADS` | the cores this process may use | threads, one part each |
//! | `UTF8CHECK_PART_SIZE` | 64 MiB | the smallest part |
//! | `UTF8CHECK_WINDOW_SIZE` | 64 MiB | bytes mapped at a time |
//! | `UTF8CHECK_READ_SIZE` | 256 KiB | bytes asked for per read |
//!
//! `UTF8CHECK_TRACE=1` prints each cut to standard error (`utf8check: trace: ...`),
//! so that a test can see which route an input took. None of these is meant for
//! use in production, and `--help` does not list them (docs/testing.md does).

use std::ffi::OsString;
use std::num::NonZeroUsize;

/// How an input is cut up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Threads a large regular file is checked on, one part each.
    pub threads: usize,
    /// The smallest part: a file shorter than two parts is checked on one thread.
    /// Below 64 MiB the threads' start-up costs more than they save.
    pub part: u64,
    /// Bytes of a regular file mapped at a time. Memory use does not grow with the
    /// file beyond this.
    pub window: usize,
    /// Bytes asked for per read of a stream (pipes, terminals, files that report no
    /// size).
    pub read: usize,
    /// Print each cut to standard error.
    pub trace: bool,
}

impl Sizes {
    /// The sizes a user gets.
    pub fn defaults() -> Sizes {
        Sizes {
            threads: std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
            part: 64 << 20,
            window: 64 << 20,
            read: 256 * 1024,
            trace: false,
        }
    }

    /// The defaults with what the testing aid's variables set; `Err` names a
    /// variable whose value is not a positive integer.
    pub fn from_env() -> Result<Sizes, String> {
        Sizes::from_vars(|name| std::env::var_os(name))
    }

    /// [`Sizes::from_env`] over the variables `var` gives.
    fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Result<Sizes, String> {
        let number = |name: &str| -> Result<Option<usize>, String> {
            let Some(value) = var(name) else {
                return Ok(None);
            };
            match value.to_str().and_then(|v| v.parse::<NonZeroUsize>().ok()) {
                Some(n) => Ok(Some(n.get())),
                None => Err(format!("{name}: not a positive integer: {value:?}")),
            }
        };
        let mut sizes = Sizes::defaults();
        if let Some(n) = number("UTF8CHECK_THREADS")? {
            sizes.threads = n;
        }
        if let Some(n) = number("UTF8CHECK_PART_SIZE")? {
            sizes.part = n as u64;
        }
        if let Some(n) = number("UTF8CHECK_WINDOW_SIZE")? {
            sizes.window = n;
        }
        if let Some(n) = number("UTF8CHECK_READ_SIZE")? {
            sizes.read = n;
        }
        sizes.trace = var("UTF8CHECK_TRACE").is_some_and(|v| v == "1");
        Ok(sizes)
    }

    /// Prints `what` to standard error when tracing, as one line in one write: a
    /// short write to a pipe is atomic, so a line from another thread, or the
    /// message `crate::shrink` writes from its signal handler, never lands inside it.
    pub fn trace(&self, what: std::fmt::Arguments<'_>) {
        if self.trace {
            let line = format!("utf8check: trace: {what}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Result<Sizes, String> {
        Sizes::from_vars(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn unset_variables_leave_the_defaults() {
        let defaults = Sizes::defaults();
        assert_eq!(with(&[]), Ok(defaults));
        assert_eq!((defaults.part, defaults.window), (64 << 20, 64 << 20));
        assert_eq!(defaults.read, 256 * 1024);
        assert!(defaults.threads >= 1 && !defaults.trace);
    }

    #[test]
    fn each_variable_sets_its_size() {
        let sizes = with(&[
            ("UTF8CHECK_THREADS", "16"),
            ("UTF8CHECK_PART_SIZE", "7"),
            ("UTF8CHECK_WINDOW_SIZE", "4097"),
            ("UTF8CHECK_READ_SIZE", "1"),
            ("UTF8CHECK_TRACE", "1"),
        ]);
        let want = Sizes {
            threads: 16,
            part: 7,
            window: 4097,
            read: 1,
            trace: true,
        };
        assert_eq!(sizes, Ok(want));
    }

    #[test]
    fn a_value_that_is_not_a_positive_integer_is_refused() {
        for bad in ["0", "-1", "", "x", "1.5", " 2"] {
            let err = with(&[("UTF8CHECK_READ_SIZE", bad)]).unwrap_err();
            assert!(err.starts_with("UTF8CHECK_READ_SIZE: "), "{err}");
        }
        assert!(!with(&[("UTF8CHECK_TRACE", "0")]).unwrap().trace);
    }
}
