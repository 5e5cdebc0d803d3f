//! The C library as the tests in `tests/` (and the benchmarks) reach it: built by
//! `cargo build` and found in the build tree, linked by C programs or loaded into
//! the test process ([`c_api`]); and the checks for the tools the tests drive.
//! Nothing here checks behaviour.

pub mod c_api;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository's top: the C library's package.
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("c-tests/ is inside the repository")
        .to_path_buf()
}

/// The C library's version, from the `[package]` table of the top-level
/// `Cargo.toml` (this test package has a version of its own).
pub fn library_version() -> String {
    let manifest = std::fs::read_to_string(repository().join("Cargo.toml")).expect("Cargo.toml");
    let package = manifest
        .split("\n[")
        .find(|table| table.starts_with("[package]") || table.starts_with("package]"))
        .expect("Cargo.toml has a [package] table");
    package
        .lines()
        .find_map(|l| l.strip_prefix("version = \"")?.strip_suffix('"'))
        .expect("[package] has a version")
        .to_string()
}

/// `target/release/` (or `target/debug/` for a debug build of the tests), after
/// `cargo build -p utf8validate`: the C library exactly as `cargo build` makes it
/// (`libutf8validate.a`, `.so` and its soname link), with `panic = "abort"`, LTO and
/// without the standard library. (`cargo test` never builds that library: it would
/// build it with unwinding, for a test harness.) Optimised tests (`--release`, or the
/// profile `test-release`) get the release library. Built once per test process;
/// cargo does nothing when it is up to date.
pub fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let release = !cfg!(debug_assertions);
        let mut args = vec!["--lib", "--package", "utf8validate"];
        if release {
            args.push("--release");
        }
        cargo_build(&args);
        let dir = target_dir().join(if release { "release" } else { "debug" });
        for name in ["libutf8validate.a", "libutf8validate.so"] {
            assert!(
                dir.join(name).is_file(),
                "{name} is not in {} after cargo build",
                dir.display()
            );
        }
        dir
    })
}

/// `target/debug/utf8check`, after `cargo build -p utf8check` (a debug build, quick
/// to make, whatever profile the tests run in). Built once per test process.
pub fn utf8check() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        cargo_build(&["--bin", "utf8check", "--package", "utf8check"]);
        let exe = target_dir()
            .join("debug")
            .join(format!("utf8check{}", std::env::consts::EXE_SUFFIX));
        assert!(
            exe.is_file(),
            "{} is missing after cargo build",
            exe.display()
        );
        exe
    })
}

/// The target directory the tests were built into: cargo builds there too.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    // target/<profile>/deps/<test>
    exe.ancestors()
        .nth(3)
        .expect("the test executable is in target/<profile>/deps")
        .to_path_buf()
}

/// `cargo build --quiet ARGS` in this workspace, into [`target_dir`]; panics when it
/// fails.
fn cargo_build(args: &[&str]) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet"])
        .args(args)
        .arg("--manifest-path")
        .arg(repository().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build {args:?} failed");
}

/// The built artifact `name` (`libutf8validate.a` or `.so`) in [`library_dir`].
pub fn artifact(name: &str) -> PathBuf {
    library_dir().join(name)
}

/// The `DT_SONAME` of a shared library, from `readelf -d` (binutils, which the C
/// compilers need anyway); `None` when it has none or readelf is missing.
pub fn soname(library: &Path) -> Option<String> {
    let out = Command::new("readelf")
        .arg("-d")
        .arg(library)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("(SONAME)"))?;
    Some(line.split_once('[')?.1.split_once(']')?.0.to_string())
}

/// Makes `dir` hold the built `libutf8validate.so` (symlinked) under its file name
/// and under its soname, the names a program linked with `-lutf8validate` looks for
/// at link time and at run time.
pub fn link_shared_library_into(dir: &Path) {
    let built = artifact("libutf8validate.so");
    std::fs::create_dir_all(dir).expect("create the library dir");
    let mut names = vec!["libutf8validate.so".to_string()];
    names.extend(soname(&built));
    for name in names {
        let link = dir.join(&name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&built, &link)
            .unwrap_or_else(|e| panic!("cannot link {} to the .so: {e}", link.display()));
    }
}

/// The environment variable that forces a back end, a testing aid of the library
/// (see `utf8validate-core/src/dispatch.rs`).
pub const FORCE_BACKEND: &str = "UTF8VALIDATE_BACKEND";

/// The names of the back ends this CPU supports, best first, as [`FORCE_BACKEND`]
/// takes them; the last is always `scalar`.
pub fn back_ends() -> Vec<&'static str> {
    let names: Vec<_> = utf8validate_core::backends::available()
        .map(|b| b.name())
        .collect();
    assert_eq!(names.last(), Some(&"scalar"), "scalar is always available");
    names
}

/// A `cc::Build` for C compiled at run time, by the tests and the short-string
/// benchmark (not by a build script): no cargo metadata or warnings printed, and this
/// machine as target and host (cc reads them from a build script's environment).
pub fn c_build() -> cc::Build {
    let target = format!(
        "{}-unknown-{}-gnu",
        std::env::consts::ARCH,
        std::env::consts::OS
    );
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .cargo_warnings(false)
        .emit_rerun_if_env_changed(false)
        .target(&target)
        .host(&target);
    build
}

/// A scratch directory for this test's outputs, under `target/<profile>/c-tests/`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = library_dir().join("c-tests").join(name);
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

/// True under `CI=true`, where CI has installed every tool the tests drive: a
/// missing one is a failure there, not a skip.
pub fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Reports a test (or part of one) that cannot run here because `missing` is not
/// available: panics under `CI=true`, else prints that it is skipped.
pub fn skip(test: &str, missing: &str) {
    assert!(
        !in_ci(),
        "{test}: {missing} is missing, and CI=true requires it"
    );
    eprintln!("skipping {test}: {missing} is not available (this fails under CI=true)");
}

/// Whether `tool` runs (`tool --version` succeeds); when it does not, panics under
/// `CI=true` (CI installs every tool) and otherwise prints why the test is skipped.
pub fn have(tool: &str) -> bool {
    let runs = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        skip("this test", tool);
    }
    runs
}
