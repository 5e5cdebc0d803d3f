//! `UTF8VALIDATE_BACKEND` (a testing aid, read with the cargo feature `backend-env`; see `src/dispatch.rs`) forces the back end the
//! crate's functions use, and only when it names one this CPU supports.
//!
//! The variable is read once per process, on the first call, so each setting needs a
//! fresh process: the test runs this test binary again as a child, once per setting,
//! with only the ignored test `child_reports_selected` selected. The child asserts that
//! `backends::selected()` (the back end cached on the first call) is the one its
//! parent expects, and that validation through the crate's functions still answers
//! as `std::str::from_utf8` does.
//!
//! Under an emulator (qemu-user without binfmt_misc) a child cannot be spawned; run
//! the child directly instead, with the variables set, as `.ci/cross-tests.sh` does:
//! `UTF8VALIDATE_BACKEND=scalar UTF8VALIDATE_EXPECT_SELECTED=scalar cargo test --test
//! force_backend -- --ignored --exact child_reports_selected`. That script lists the
//! back ends to force with the ignored test `list_backends`.

use std::process::Command;

use utf8validate_core::backends;

const FORCE_VAR: &str = "UTF8VALIDATE_BACKEND";
const EXPECT_VAR: &str = "UTF8VALIDATE_EXPECT_SELECTED";

/// Runs `child_reports_selected` in a fresh process with `FORCE_VAR` set to `value`
/// (removed when `None`), expecting `backends::selected()` to be `expected`.
fn run_child(value: Option<&str>, expected: &str) {
    let exe = std::env::current_exe().expect("the test knows its own path");
    let mut cmd = Command::new(exe);
    cmd.args([
        "--ignored",
        "--exact",
        "child_reports_selected",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(EXPECT_VAR, expected);
    match value {
        Some(v) => cmd.env(FORCE_VAR, v),
        None => cmd.env_remove(FORCE_VAR),
    };
    let out = cmd.output().expect("the test binary runs as a child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{FORCE_VAR}={value:?}: the child failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // The child really ran (a filter that matched nothing would also succeed).
    assert!(
        stdout.contains("1 passed"),
        "{FORCE_VAR}={value:?}: the child test did not run:\n{stdout}"
    );
    println!("{FORCE_VAR}={value:?}: selected {expected}");
}

#[test]
fn the_variable_forces_each_supported_back_end() {
    let available: Vec<&str> = backends::available().map(|b| b.name()).collect();
    let best = available[0];
    for name in backends::compiled() {
        let expected = if available.contains(&name) {
            name
        } else {
            best
        };
        run_child(Some(name), expected);
    }
}

#[test]
fn unset_empty_or_unknown_values_leave_the_best() {
    let best = backends::available()
        .next()
        .expect("scalar is always available")
        .name();
    run_child(None, best);
    for value in ["", "AVX2", "sse2", "scalar ", "bogus"] {
        run_child(Some(value), best);
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    run_child(Some("neon"), best);
    #[cfg(target_arch = "aarch64")]
    run_child(Some("avx2"), best);
}

/// Prints `backend: NAME` for each back end this CPU supports, best first, for
/// scripts that force each one in turn (`.ci/cross-tests.sh`).
#[test]
#[ignore = "a listing for scripts, not a test"]
fn list_backends() {
    for backend in backends::available() {
        println!("backend: {}", backend.name());
    }
}

/// The child: run by the tests above in a fresh process, not on its own.
#[test]
#[ignore = "run by the_variable_forces_each_supported_back_end in a child process"]
fn child_reports_selected() {
    let expected = std::env::var(EXPECT_VAR)
        .unwrap_or_else(|_| panic!("{EXPECT_VAR} is set by the parent test"));
    // The first call of this process: it reads the variable and caches the choice.
    assert!(utf8validate_core::validate(
        "caf\u{e9} \u{1F600}".as_bytes()
    ));
    assert_eq!(
        backends::selected(),
        expected,
        "{FORCE_VAR}={:?}",
        std::env::var_os(FORCE_VAR)
    );
    // The forced back end answers as std does, on inputs long enough to reach it.
    let mut text = "h\u{e9}llo w\u{f6}rld \u{20AC}\u{1F600} "
        .repeat(40)
        .into_bytes();
    assert!(utf8validate_core::validate(&text));
    assert_eq!(utf8validate_core::first_error(&text), None);
    for at in [0, 1, 63, 64, 200, text.len() - 1] {
        let saved = text[at];
        text[at] = 0xFF;
        let want = std::str::from_utf8(&text).unwrap_err().valid_up_to();
        assert_eq!(
            utf8validate_core::first_error(&text),
            Some(want),
            "0xFF at {at}"
        );
        assert!(!utf8validate_core::validate(&text));
        text[at] = saved;
    }
    println!("selected: {}", backends::selected());
}
