//! Every file of `../shared/testdata/` (public UTF-8 stress tests, present in CI) and
//! of `../shared/corpus/`, checked whole and line by line against
//! `std::str::from_utf8` (validity and `valid_up_to`).

mod oracle;

use std::fs;
use std::path::{Path, PathBuf};

use oracle::std_error;

fn shared(dir: &str) -> Option<PathBuf> {
    // `shared/` lies beside the repository, whose top is this crate's parent.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join("shared")
        .join(dir);
    if path.is_dir() {
        Some(path)
    } else if std::env::var_os("CI").is_some() {
        panic!(
            "{} is missing: CI must run beside ../shared",
            path.display()
        );
    } else {
        eprintln!("skipping: {} not found", path.display());
        None
    }
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("readable directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

fn check_file(path: &Path) -> usize {
    let bytes = fs::read(path).expect("readable test file");
    let want = std_error(&bytes).map(|(o, _)| o);
    assert_eq!(
        utf8validate_core::first_error(&bytes),
        want,
        "{}",
        path.display()
    );
    assert_eq!(
        utf8validate_core::validate(&bytes),
        want.is_none(),
        "{}",
        path.display()
    );
    let mut lines = 0;
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let want = std_error(line).map(|(o, _)| o);
        assert_eq!(
            utf8validate_core::first_error(line),
            want,
            "{} line {}",
            path.display(),
            n + 1
        );
        assert_eq!(
            utf8validate_core::validate(line),
            want.is_none(),
            "{} line {}",
            path.display(),
            n + 1
        );
        lines += 1;
    }
    lines
}

#[test]
fn kuhn_stress_test_whole_and_by_line() {
    let Some(dir) = shared("testdata") else {
        return;
    };
    let files = files_in(&dir);
    assert!(!files.is_empty(), "no .txt files in {}", dir.display());
    let kuhn = dir.join("UTF-8-test.txt");
    let bytes = fs::read(&kuhn).expect("UTF-8-test.txt");
    // The README of testdata says the first ill-formed byte is at offset 4461; that
    // is an independent fact about the file, not our output.
    assert_eq!(utf8validate_core::first_error(&bytes), Some(4461));
    for f in files {
        let lines = check_file(&f);
        assert!(lines > 100, "{} has only {lines} lines", f.display());
    }
}

#[test]
fn corpus_is_valid_whole_and_by_line() {
    let Some(dir) = shared("corpus") else { return };
    let mut files = files_in(&dir);
    if dir.join("wikipedia_mars").is_dir() {
        files.extend(files_in(&dir.join("wikipedia_mars")));
    }
    assert!(
        files.len() >= 9,
        "expected the lipsum files in {}",
        dir.display()
    );
    for f in files {
        check_file(&f);
        assert!(
            utf8validate_core::validate(&fs::read(&f).unwrap()),
            "{} is valid UTF-8",
            f.display()
        );
    }
}
