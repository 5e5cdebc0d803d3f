//! The C test suite in `c-tests/`, compiled with the `cc` crate and run against the
//! library as `cargo build` makes it: `libutf8validate.a` and `libutf8validate.so` in
//! `target/<profile>/` (see `support::library_dir`).
//!
//! - `c_suite_*`: the suite (`test_main.c` and the `test_*.c` groups) linked statically,
//!   dynamically (the `.so` is really loaded: `ldd` must show it), with AddressSanitizer
//!   and UndefinedBehaviorSanitizer, and against the `.so` under valgrind (the release
//!   library's: the tests built with optimisation).
//! - `guard_pages_*`: `guard_pages.c` run as a child process; death by a signal (a read
//!   outside the buffer hit a `PROT_NONE` page) is a failure.
//! - `*_on_every_back_end`: the suite and the guard-page program (static) once per back
//!   end this CPU supports (`utf8validate_core::backends::available()`), forced with
//!   the testing aid `UTF8VALIDATE_BACKEND` (see `utf8validate-core/src/dispatch.rs`;
//!   `utf8validate-core/tests/force_backend.rs` proves that the variable selects the
//!   back end). The sanitizer and valgrind runs
//!   use the default (best) back end only.
//! - `header_*`: `include/utf8validate.h` compiled as C99/C11 and C++11/C++17 with gcc and
//!   clang, linked and run.
//! - `header_is_clean_under_clang_weverything`: the header alone under clang's
//!   `-Weverything -Werror` (C99, C11, C++11, C++20).
//!
//! Every C program prints `N passed, M failed` last and exits non-zero when M > 0.
//! Tools that are missing (clang, valgrind, the sanitizer runtimes) skip their test with
//! a message, except when `CI=true`, where they fail it.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use utf8validate_c_tests as support;

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Warnings are errors everywhere, as the issue asks.
const WARNINGS: &[&str] = &["-Wall", "-Wextra", "-pedantic", "-Werror"];
/// The suite: `test_main.c` runs the groups; `check.c` is the assertion layer.
const SUITE: &[&str] = &[
    "test_main.c",
    "check.c",
    "test_state_machine.c",
    "test_examples.c",
    "test_never_used.c",
    "test_chunks.c",
    "test_server.c",
    "test_server_pieces.c",
];
const GUARD_PAGES: &[&str] = &["guard_pages.c", "check.c"];
/// What the static library needs from the system: the C library, which the compiler
/// links anyway (so, nothing more on the command line than the archive itself).
const STATIC_LIB_DEPS: &[&str] = &[];
const SANITIZERS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
];
/// What a non-zero exit without a failed check means when no tool wraps the program.
const NO_SANITIZER: &str = "the program failed before or after its checks";
/// No C program here should take more than a few seconds (valgrind: tens).
const TIMEOUT: Duration = Duration::from_secs(600);

/// The built library, as C users get it.
struct Library {
    dir: PathBuf,
    staticlib: PathBuf,
    cdylib: PathBuf,
}

fn library() -> Library {
    let dir = support::library_dir().to_path_buf();
    Library {
        staticlib: dir.join("libutf8validate.a"),
        cdylib: dir.join("libutf8validate.so"),
        dir,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Link {
    Static,
    Shared,
}

/// One C or C++ program to build: its sources in `c-tests/`, how, and against what.
struct Program<'a> {
    /// Names the output directory `target/<profile>/c-tests/<variant>/` and the executable.
    variant: &'a str,
    sources: &'a [&'a str],
    /// `None`: what the cc crate picks (`cc`/`c++`, or `$CC`/`$CXX`).
    compiler: Option<&'a str>,
    cpp: bool,
    std: &'a str,
    extra_flags: &'a [&'a str],
    link: Link,
}

/// Compiles and links `program` with the cc crate's compiler and flags; panics with the
/// compiler's output on failure.
fn build(program: &Program, lib: &Library) -> PathBuf {
    let out_dir = support::scratch(program.variant);
    let exe = out_dir.join(program.variant);
    let mut build = support::c_build();
    build
        .opt_level(2)
        .debug(true)
        .out_dir(&out_dir)
        .cpp(program.cpp)
        .std(program.std)
        .include(support::repository().join("include"))
        .include(support::repository().join("c-tests"));
    for flag in WARNINGS.iter().chain(program.extra_flags) {
        build.flag(flag);
    }
    if let Some(compiler) = program.compiler {
        build.compiler(compiler);
    }
    let compiler = build
        .try_get_compiler()
        .unwrap_or_else(|e| panic!("{}: the cc crate found no compiler: {e}", program.variant));

    let mut cmd = compiler.to_command();
    for source in program.sources {
        cmd.arg(support::repository().join("c-tests").join(source));
    }
    cmd.arg("-o").arg(&exe);
    match program.link {
        Link::Static => {
            // The archive by path: `-l` would prefer the .so next to it.
            cmd.arg(&lib.staticlib).args(STATIC_LIB_DEPS);
        }
        Link::Shared => {
            let runtime = runtime_dir(&exe);
            link_runtime_dir(lib, &runtime);
            cmd.arg(format!("-L{}", lib.dir.display()))
                .arg("-lutf8validate")
                .arg(format!("-Wl,-rpath,{}", runtime.display()));
        }
    }
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        output.status.success(),
        "{}: compiling/linking failed:\n{cmd:?}\n{}{}",
        program.variant,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// The directory a program linked with [`Link::Shared`] loads the library from (its
/// rpath; the tests also put it in `LD_LIBRARY_PATH`, ahead of the directories cargo
/// adds there, which may hold a stale `libutf8validate.so` from an earlier build).
fn runtime_dir(exe: &Path) -> PathBuf {
    exe.parent().expect("exe has a directory").join("lib")
}

/// The name the dynamic loader looks for: the library's ELF soname (e.g.
/// `libutf8validate.so.0`), recorded as DT_NEEDED by the linker, or, without one,
/// the file name.
fn loaded_name(lib: &Library) -> String {
    let file_name = || {
        let name = lib.cdylib.file_name().expect("the .so has a file name");
        name.to_string_lossy().into_owned()
    };
    support::soname(&lib.cdylib).unwrap_or_else(file_name)
}

/// Makes `dir` hold the library under the name the loader looks for: a symlink to the
/// `.so` cargo just built, as an installation would have.
fn link_runtime_dir(lib: &Library, dir: &Path) {
    fs::create_dir_all(dir).expect("the runtime directory can be created");
    let link = dir.join(loaded_name(lib));
    let _ = fs::remove_file(&link);
    std::os::unix::fs::symlink(&lib.cdylib, &link)
        .unwrap_or_else(|e| panic!("cannot link {} to the .so: {e}", link.display()));
}

/// `LD_LIBRARY_PATH` for a shared-library program: only its runtime directory.
fn library_path(exe: &Path) -> String {
    runtime_dir(exe)
        .to_str()
        .expect("the target dir is UTF-8")
        .to_string()
}

/// Checks with `ldd` that `exe` loads the `.so` cargo just built, through `envs`.
fn assert_loads_built_library(exe: &Path, lib: &Library, envs: &[(&str, &str)]) {
    let loaded = ldd(exe, envs);
    let name = loaded_name(lib);
    let path = loaded
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix(&format!("{name} => "))?
                .split(" (")
                .next()
        })
        .unwrap_or_else(|| panic!("{} does not load {name}:\n{loaded}", exe.display()));
    assert_eq!(
        fs::canonicalize(path).ok(),
        fs::canonicalize(&lib.cdylib).ok(),
        "{} loads {name} from {path}, not the library cargo built ({}):\n{loaded}",
        exe.display(),
        lib.cdylib.display()
    );
}

/// What a finished C program left behind.
struct Run {
    what: String,
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Everything it printed, for failure messages (failing checks are on stdout).
    fn log(&self) -> String {
        format!(
            "--- {} stdout ---\n{}\n--- stderr ---\n{}",
            self.what,
            tail(&self.stdout, 120),
            tail(&self.stderr, 60)
        )
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Runs `cmd` to completion (killing it after [`TIMEOUT`]), output captured to files so
/// a large log cannot block it.
fn run_program(what: &str, mut cmd: Command, out_dir: &Path) -> Run {
    let log_name = what.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let out_path = out_dir.join(format!("{log_name}.stdout"));
    let err_path = out_dir.join(format!("{log_name}.stderr"));
    cmd.stdout(fs::File::create(&out_path).expect("stdout log can be created"))
        .stderr(fs::File::create(&err_path).expect("stderr log can be created"));
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start {cmd:?}: {e}"));
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting on the child works") {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            panic!("{what}: still running after {TIMEOUT:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    eprintln!("{what}: finished in {:.2?}", started.elapsed());
    Run {
        what: what.to_string(),
        status,
        stdout: fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

/// Checks that a C program ended with `N passed, 0 failed`, exit status 0 and no
/// signal; returns N. `exit_meaning` says what a non-zero status with no failed check
/// means (a sanitizer or valgrind report).
fn assert_passed(run: &Run, exit_meaning: &str) -> u64 {
    if let Some(signal) = run.status.signal() {
        let name = match signal {
            11 => "SIGSEGV: a read or write outside its buffer hit a guard page, or a crash",
            7 => "SIGBUS",
            6 => "SIGABRT",
            _ => "",
        };
        panic!(
            "{} was killed by signal {signal} {name}\n{}",
            run.what,
            run.log()
        );
    }
    let last = run
        .stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let counts: Vec<u64> = last
        .split(", ")
        .zip([" passed", " failed"])
        .filter_map(|(part, suffix)| part.strip_suffix(suffix)?.parse().ok())
        .collect();
    let [passed, failed] = counts[..] else {
        panic!(
            "{} stopped before its summary line \"N passed, M failed\" ({}; a non-zero \
             status here means: {exit_meaning}); its last line is {last:?}\n{}",
            run.what,
            run.status,
            run.log()
        );
    };
    assert_eq!(
        format!("{passed} passed, {failed} failed"),
        last,
        "{}: malformed summary line",
        run.what
    );
    assert!(
        failed == 0,
        "{}: {failed} C checks failed\n{}",
        run.what,
        run.log()
    );
    assert!(
        run.status.success(),
        "{}: all {passed} checks passed but it exited with {} ({exit_meaning})\n{}",
        run.what,
        run.status,
        run.log()
    );
    assert!(passed > 0, "{}: no check ran", run.what);
    eprintln!("{}: {last}", run.what);
    passed
}

fn suite<'a>(variant: &'a str, link: Link, extra_flags: &'a [&'a str]) -> Program<'a> {
    Program {
        variant,
        sources: SUITE,
        compiler: None,
        cpp: false,
        std: "c99",
        extra_flags,
        link,
    }
}

fn guard_pages<'a>(variant: &'a str, link: Link, extra_flags: &'a [&'a str]) -> Program<'a> {
    Program {
        sources: GUARD_PAGES,
        ..suite(variant, link, extra_flags)
    }
}

/// Runs the suite, passing Cargo.toml's version for the C side to compare with the
/// library's and the header's; checks that every check passed (see [`assert_passed`])
/// and the version line it prints. Returns the number of checks.
fn run_suite(
    what: &str,
    exe: &Path,
    wrapper: &[&str],
    envs: &[(&str, &str)],
    exit_meaning: &str,
) -> u64 {
    let mut cmd = match wrapper.split_first() {
        Some((tool, args)) => {
            let mut c = Command::new(tool);
            c.args(args).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    cmd.args(["--expect-version", &support::library_version()]);
    cmd.envs(envs.iter().copied());
    let run = run_program(what, cmd, exe.parent().expect("exe has a directory"));
    let passed = assert_passed(&run, exit_meaning);
    let version = support::library_version();
    let expected = format!("library version: {version}, header version: {version}");
    assert!(
        run.stdout.lines().any(|l| l == expected),
        "{what}: no line {expected:?}: the library, header and Cargo.toml disagree\n{}",
        run.log()
    );
    passed
}

/// The shared libraries `exe` loads, as the dynamic loader resolves them.
fn ldd(exe: &Path, envs: &[(&str, &str)]) -> String {
    let out = Command::new("ldd")
        .arg(exe)
        .envs(envs.iter().copied())
        .output()
        .expect("ldd (libc-bin) runs");
    assert!(out.status.success(), "ldd {} failed", exe.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The suite is check.c and every test_*.c: the scripts that build it for other
/// targets (.ci/cross-tests.sh, windows-tests.sh, debian11-tests.sh) take it by that
/// glob, so a group added here is built there too.
#[test]
fn suite_is_check_c_and_every_test_file() {
    let dir = support::repository().join("c-tests");
    let mut on_disk: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("test_") && n.ends_with(".c"))
        .collect();
    on_disk.push("check.c".to_string());
    on_disk.sort();
    let mut listed: Vec<String> = SUITE.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(listed, on_disk);
}

#[test]
fn c_suite_against_static_library() {
    let lib = library();
    let exe = build(&suite("suite-static", Link::Static, &[]), &lib);
    assert!(
        !ldd(&exe, &[]).contains("libutf8validate"),
        "the statically linked suite loads libutf8validate.so"
    );
    run_suite("C suite (static)", &exe, &[], &[], NO_SANITIZER);
}

#[test]
fn c_suite_against_shared_library() {
    let lib = library();
    let exe = build(&suite("suite-shared", Link::Shared, &[]), &lib);
    let path = library_path(&exe);
    let envs = [("LD_LIBRARY_PATH", path.as_str())];
    assert_loads_built_library(&exe, &lib, &envs);
    run_suite("C suite (shared)", &exe, &[], &envs, NO_SANITIZER);
}

#[test]
fn guard_pages_static() {
    let lib = library();
    let exe = build(&guard_pages("guard-static", Link::Static, &[]), &lib);
    let run = run_program(
        "guard pages (static)",
        Command::new(&exe),
        exe.parent().unwrap(),
    );
    assert_passed(&run, NO_SANITIZER);
}

#[test]
fn guard_pages_shared() {
    let lib = library();
    let exe = build(&guard_pages("guard-shared", Link::Shared, &[]), &lib);
    let mut cmd = Command::new(&exe);
    cmd.env("LD_LIBRARY_PATH", library_path(&exe));
    let run = run_program("guard pages (shared)", cmd, exe.parent().unwrap());
    assert_passed(&run, NO_SANITIZER);
}

#[test]
fn c_suite_on_every_back_end() {
    let lib = library();
    let exe = build(&suite("suite-backends", Link::Static, &[]), &lib);
    let mut counts = Vec::new();
    for name in support::back_ends() {
        let passed = run_suite(
            &format!("C suite (static, UTF8VALIDATE_BACKEND={name})"),
            &exe,
            &[],
            &[(support::FORCE_BACKEND, name)],
            NO_SANITIZER,
        );
        counts.push((name, passed));
    }
    eprintln!("C suite per back end: {counts:?}");
}

#[test]
fn guard_pages_on_every_back_end() {
    let lib = library();
    let exe = build(&guard_pages("guard-backends", Link::Static, &[]), &lib);
    let mut counts = Vec::new();
    for name in support::back_ends() {
        let what = format!("guard pages (static, UTF8VALIDATE_BACKEND={name})");
        let mut cmd = Command::new(&exe);
        cmd.env(support::FORCE_BACKEND, name);
        let run = run_program(&what, cmd, exe.parent().unwrap());
        counts.push((name, assert_passed(&run, NO_SANITIZER)));
    }
    eprintln!("guard pages per back end: {counts:?}");
}

/// Whether the C compiler can build and run a program with ASan + UBSan here.
fn sanitizers_work(lib: &Library) -> bool {
    let dir = lib
        .dir
        .parent()
        .unwrap()
        .join("c-tests")
        .join("sanitizer-probe");
    fs::create_dir_all(&dir).unwrap();
    let src = dir.join("probe.c");
    fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let exe = dir.join("probe");
    // The compiler `build` uses: the cc crate's default, `$CC` when set.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let compiled = Command::new(cc)
        .args(SANITIZERS)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    compiled && Command::new(&exe).status().is_ok_and(|s| s.success())
}

#[test]
fn c_suite_with_address_and_undefined_sanitizers() {
    let lib = library();
    if !sanitizers_work(&lib) {
        return support::skip(
            "c_suite_with_address_and_undefined_sanitizers",
            "the C compiler's AddressSanitizer/UBSan runtime (libasan, libubsan)",
        );
    }
    let envs = [
        (
            "ASAN_OPTIONS",
            "detect_leaks=1:abort_on_error=0:exitcode=86",
        ),
        ("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1"),
    ];
    let exe = build(&suite("suite-asan-ubsan", Link::Static, SANITIZERS), &lib);
    run_suite(
        "C suite (ASan+UBSan)",
        &exe,
        &[],
        &envs,
        "a sanitizer report",
    );

    let exe = build(
        &guard_pages("guard-asan-ubsan", Link::Static, SANITIZERS),
        &lib,
    );
    let mut cmd = Command::new(&exe);
    cmd.envs(envs);
    let run = run_program("guard pages (ASan+UBSan)", cmd, exe.parent().unwrap());
    assert_passed(&run, "a sanitizer report");
}

/// Against the release library only, the one users link: the debug library's suite
/// runs under AddressSanitizer and UndefinedBehaviorSanitizer above, and valgrind
/// would double the time of the debug run's C tests.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "valgrind runs against the release library (cargo test --profile test-release)"
)]
fn c_suite_under_valgrind() {
    if !support::have("valgrind") {
        return;
    }
    let lib = library();
    let exe = build(&suite("suite-valgrind", Link::Shared, &[]), &lib);
    let path = library_path(&exe);
    let envs = [("LD_LIBRARY_PATH", path.as_str())];
    assert_loads_built_library(&exe, &lib, &envs);
    run_suite(
        "C suite (shared, valgrind)",
        &exe,
        &[
            "valgrind",
            "--error-exitcode=1",
            "--leak-check=full",
            "--quiet",
        ],
        &envs,
        "valgrind reported errors",
    );
}

/// The header alone, as every language standard the issue names, with gcc and clang:
/// compiled warning-free, linked against the static library, and run.
#[test]
fn header_compiles_as_c99_c11_cxx11_cxx17() {
    let lib = library();
    let have_clang = support::have("clang") && support::have("clang++");
    let mut built = 0;
    for (compiler, cpp, std) in [
        ("gcc", false, "c99"),
        ("gcc", false, "c11"),
        ("g++", true, "c++11"),
        ("g++", true, "c++17"),
        ("clang", false, "c99"),
        ("clang", false, "c11"),
        ("clang++", true, "c++11"),
        ("clang++", true, "c++17"),
    ] {
        if compiler.starts_with("clang") && !have_clang {
            continue;
        }
        let variant = format!("header-{compiler}-{std}");
        let source = if cpp { "header_cxx.cpp" } else { "header_c.c" };
        let sources = [source];
        let program = Program {
            variant: &variant,
            sources: &sources,
            compiler: Some(compiler),
            cpp,
            std,
            extra_flags: &[],
            link: Link::Static,
        };
        let exe = build(&program, &lib);
        let status = Command::new(&exe)
            .status()
            .expect("the header program runs");
        assert!(
            status.success(),
            "{variant}: the header program failed ({status})"
        );
        built += 1;
    }
    eprintln!("header: {built} compiler/standard combinations compiled, linked and ran");
}

/// The header alone under clang's `-Weverything -Werror`, the strictest setting a
/// project may build with (its documentation checks included: a `\x` in a doc
/// comment is an unknown Doxygen command there). C++ leaves out only the warnings
/// about C++98, which the header does not target (trailing enum commas).
#[test]
fn header_is_clean_under_clang_weverything() {
    let have_clang = support::have("clang") && support::have("clang++");
    if !have_clang {
        return;
    }
    let include = support::repository().join("include");
    let dir = support::scratch("header-weverything");
    let c = dir.join("only_the_header.c");
    let cpp = dir.join("only_the_header.cpp");
    fs::write(
        &c,
        "#include <utf8validate.h>\nint main(void) { return 0; }\n",
    )
    .unwrap();
    fs::write(
        &cpp,
        "#include <utf8validate.h>\nint main() { return 0; }\n",
    )
    .unwrap();
    let cxx98: &[&str] = &["-Wno-c++98-compat", "-Wno-c++98-compat-pedantic"];
    for (compiler, source, std, extra) in [
        ("clang", &c, "c99", &[][..]),
        ("clang", &c, "c11", &[][..]),
        ("clang++", &cpp, "c++11", cxx98),
        ("clang++", &cpp, "c++20", cxx98),
    ] {
        let out = Command::new(compiler)
            .args([
                &format!("-std={std}"),
                "-fsyntax-only",
                "-Weverything",
                "-Werror",
            ])
            .args(extra)
            .arg("-I")
            .arg(&include)
            .arg(source)
            .output()
            .expect("clang runs");
        assert!(
            out.status.success(),
            "{compiler} -std={std} -Weverything:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
