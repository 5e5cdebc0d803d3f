//! Helpers shared by the tests that build C programs against the library cargo built
//! for this test run (`mod support;` in each). Nothing here checks behaviour.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>/deps/`: the test executable's directory, where cargo also builds
/// the library's `libutf8validate.a` and `libutf8validate.so` for integration tests.
pub fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    exe.parent()
        .expect("the test executable is in a directory")
        .to_path_buf()
}

/// The built artifact `name` (`libutf8validate.a` or `.so`) in [`deps_dir`]; fails
/// the test with an explanation when cargo did not build it.
pub fn artifact(name: &str) -> PathBuf {
    let path = deps_dir().join(name);
    assert!(
        path.is_file(),
        "{} is missing: cargo builds the library's staticlib and cdylib (crate-type in \
         Cargo.toml) next to this test executable",
        path.display()
    );
    path
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

/// Whether `tool` runs (`tool --version` succeeds); when it does not, panics under
/// `CI=true` (CI installs every tool) and otherwise prints why the test is skipped.
pub fn have(tool: &str) -> bool {
    let runs = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{tool} is missing, and CI=true requires it"
        );
        eprintln!("skipping: {tool} is not installed");
    }
    runs
}
