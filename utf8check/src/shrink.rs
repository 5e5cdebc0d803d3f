//! A regular file that shrinks while it is checked.
//!
//! Its mapped bytes past the new end are gone: reading them raises SIGBUS, which
//! would kill the process without a word. While a file is being checked
//! ([`Watch`]), SIGBUS prints `utf8check: FILE: ` and [`MESSAGE`] to standard
//! error instead and exits with status 2, as for any input that cannot be read
//! (what was already written to standard output was flushed before). A file found
//! shorter after its check, without a fault, gets the same message
//! (`crate::scan`). Windows refuses to truncate a mapped file, so there is nothing
//! to catch there.

/// What is said of a file that shrank while it was checked.
pub const MESSAGE: &str = "the file shrank while it was being read";

/// While it lives, SIGBUS reports the file it was made for; see the module docs.
pub struct Watch {
    /// The whole line printed on SIGBUS, which the handler reads.
    #[cfg_attr(not(unix), allow(dead_code))]
    line: Box<Box<[u8]>>,
}

impl Watch {
    /// Reports SIGBUS as the shrinking of the file named `name` until dropped.
    pub fn new(name: &[u8]) -> Watch {
        let mut line = b"utf8check: ".to_vec();
        line.extend_from_slice(name);
        line.extend_from_slice(b": ");
        line.extend_from_slice(MESSAGE.as_bytes());
        line.push(b'\n');
        let watch = Watch {
            line: Box::new(line.into_boxed_slice()),
        };
        #[cfg(unix)]
        handler::set(&watch.line);
        watch
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        #[cfg(unix)]
        handler::clear();
    }
}

#[cfg(unix)]
mod handler {
    use std::sync::atomic::{AtomicPtr, Ordering};
    use std::sync::Once;

    /// The line of the [`super::Watch`] that lives, or null.
    static LINE: AtomicPtr<Box<[u8]>> = AtomicPtr::new(std::ptr::null_mut());

    /// Makes `line` the one SIGBUS prints, installing the handler on first use.
    // A box, not a slice: a thin pointer to it is what one atomic can hold.
    #[allow(clippy::borrowed_box)]
    pub fn set(line: &Box<[u8]>) {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            // SAFETY: the action does only what a signal handler may: an atomic
            // load, write(2) and _exit(2), all async-signal-safe.
            let installed = unsafe { signal_hook::low_level::register(libc::SIGBUS, on_sigbus) };
            // Without the handler, SIGBUS keeps its default action: a crash, but
            // never a wrong verdict.
            let _ = installed;
        });
        LINE.store(std::ptr::from_ref(line).cast_mut(), Ordering::SeqCst);
    }

    /// No file is being checked.
    pub fn clear() {
        LINE.store(std::ptr::null_mut(), Ordering::SeqCst);
    }

    fn on_sigbus() {
        let line = LINE.load(Ordering::SeqCst);
        if !line.is_null() {
            // SAFETY: a non-null `LINE` points at the line of the `Watch` that
            // lives: the scan that faulted runs inside its lifetime, and it is
            // cleared before the line is freed.
            let line: &[u8] = unsafe { &*line };
            // SAFETY: write(2) reads `line.len()` bytes from a live buffer. What
            // it returns cannot change what follows.
            let _ = unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
            signal_hook::low_level::exit(2);
        }
        // Not while a file is checked: a fault of another kind, which keeps its
        // default action.
        let _ = signal_hook::low_level::emulate_default_handler(libc::SIGBUS);
    }

    #[cfg(test)]
    mod tests {
        use super::super::Watch;
        use super::*;

        /// The handler reads the line of the watch that lives, and nothing once it
        /// has ended: the line is freed then, and a later SIGBUS must not read it.
        #[test]
        fn the_handler_holds_the_line_only_while_the_watch_lives() {
            let watch = Watch::new(b"a.txt");
            let held = LINE.load(Ordering::SeqCst);
            assert!(std::ptr::eq(held, &*watch.line));
            // SAFETY: the watch lives, so the line it points at does.
            assert_eq!(
                unsafe { &**held },
                b"utf8check: a.txt: the file shrank while it was being read\n"
            );
            drop(watch);
            assert!(LINE.load(Ordering::SeqCst).is_null());
        }
    }
}
