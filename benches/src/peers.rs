//! utf8validate against its peers, side by side in one process and one run:
//! `utf8_validate` and `utf8_first_error` (called through the C ABI functions),
//! `core::str::from_utf8`, `simdutf8::basic`, `simdutf8::compat`,
//! `simdutf::validate_utf8`, and `memchr` looking for a byte that is not there (it
//! reads every byte: the ceiling for any validator).
//!
//! Inputs: every file of the corpus (`../shared/corpus/` next to the repository, or
//! `$UTF8VALIDATE_CORPUS`) and of its `wikipedia_mars/` (each skipped with a message
//! when absent); generated 1 MiB ASCII and mixed text; 1 MiB with one error near the
//! end; 64 MiB of mixed text; 16, 64, 256 and 1024-byte ASCII and mixed inputs.
//!
//! Run: `cargo bench -p utf8validate-bench`, then
//! `python3 benches/summarize.py` for GB/s, ns/call and the ratios to each peer.

use std::ffi::c_char;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use utf8validate_c_tests::c_api;

mod inputs;
use inputs::{ascii_text, corpus_dir, mixed_text};

/// The `*.txt` files of `dir`, sorted, with a short name for each.
fn text_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        println!("skipping {}: folder not found", dir.display());
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            let name = name
                .trim_end_matches(".txt")
                .trim_end_matches(".utf8")
                .to_string();
            let bytes = std::fs::read(&p).expect("corpus file is readable");
            assert!(
                std::str::from_utf8(&bytes).is_ok(),
                "{} is not valid UTF-8",
                p.display()
            );
            (name, bytes)
        })
        .collect()
}

/// `utf8_validate` of the C library (`libutf8validate.so`, as `cargo build` makes it).
fn utf8validate_validate(b: &[u8]) -> bool {
    let validate = c_api::functions().utf8_validate;
    // SAFETY: `b` is a live slice: `len` readable bytes at its pointer.
    unsafe { validate(b.as_ptr().cast::<c_char>(), b.len()) }
}

/// `utf8_first_error` of the C library.
fn utf8validate_first_error(b: &[u8]) -> usize {
    let first_error = c_api::functions().utf8_first_error;
    // SAFETY: as above.
    unsafe { first_error(b.as_ptr().cast::<c_char>(), b.len()) }
}

/// Every contender on `input`, in one group named `name`.
fn contenders(group: &mut BenchmarkGroup<'_, WallTime>, input: &[u8]) {
    group.throughput(Throughput::Bytes(input.len() as u64));
    // The C functions, called through the pointers the dynamic loader resolved, as
    // a C program calls them through its PLT.
    let c = c_api::functions();
    let (validate, first_error) = (c.utf8_validate, c.utf8_first_error);
    group.bench_function("utf8validate_validate", |b| {
        // SAFETY: `input` is a live slice.
        b.iter(|| unsafe { validate(black_box(input).as_ptr().cast(), input.len()) })
    });
    group.bench_function("utf8validate_first_error", |b| {
        // SAFETY: as above.
        b.iter(|| unsafe { first_error(black_box(input).as_ptr().cast(), input.len()) })
    });
    // The AVX2 back end forced, when the CPU also has a better one: the
    // like-for-like comparison with simdutf8 (AVX2) and with CPUs without AVX-512.
    if utf8validate_core::backends::selected() != "avx2" {
        if let Some(avx2) = utf8validate_core::backends::available().find(|b| b.name() == "avx2") {
            group.bench_function("utf8validate_avx2_validate", |b| {
                b.iter(|| avx2.validate(black_box(input)))
            });
        }
    }
    group.bench_function("std", |b| {
        b.iter(|| core::str::from_utf8(black_box(input)).is_ok())
    });
    group.bench_function("simdutf8_basic", |b| {
        b.iter(|| simdutf8::basic::from_utf8(black_box(input)).is_ok())
    });
    group.bench_function("simdutf8_compat", |b| {
        b.iter(|| simdutf8::compat::from_utf8(black_box(input)).map_err(|e| e.valid_up_to()))
    });
    group.bench_function("simdutf", |b| {
        b.iter(|| simdutf::validate_utf8(black_box(input)))
    });
    // 0xFF never occurs in UTF-8, so memchr reads every byte of the valid inputs.
    group.bench_function("memchr_ceiling", |b| {
        b.iter(|| memchr::memchr(0xFF, black_box(input)))
    });
}

/// Checks that every contender agrees about `input` before timing it.
fn agree(name: &str, input: &[u8]) {
    let want = core::str::from_utf8(input).map_err(|e| e.valid_up_to());
    assert_eq!(utf8validate_validate(input), want.is_ok(), "{name}");
    assert_eq!(
        utf8validate_first_error(input),
        want.err().unwrap_or(input.len()),
        "{name}"
    );
    assert_eq!(
        simdutf8::basic::from_utf8(input).is_ok(),
        want.is_ok(),
        "{name}"
    );
    assert_eq!(simdutf::validate_utf8(input), want.is_ok(), "{name}");
}

fn bench_input(c: &mut Criterion, name: &str, input: &[u8], time: Duration) {
    agree(name, input);
    let mut group = c.benchmark_group(name);
    group
        .measurement_time(time)
        .warm_up_time(Duration::from_millis(300))
        .sample_size(20);
    contenders(&mut group, input);
    group.finish();
}

fn peers(c: &mut Criterion) {
    println!(
        "utf8validate back end on this CPU: {}",
        utf8validate_core::backends::selected()
    );
    let corpus = corpus_dir();
    let quick = Duration::from_millis(1000);
    for (name, bytes) in text_files(&corpus) {
        bench_input(c, &format!("corpus-{name}"), &bytes, quick);
    }
    for (name, bytes) in text_files(&corpus.join("wikipedia_mars")) {
        bench_input(c, &format!("wiki-{name}"), &bytes, quick);
    }

    const MIB: usize = 1 << 20;
    bench_input(c, "gen-ascii-1MiB", &ascii_text(MIB), quick);
    let mixed = mixed_text(MIB);
    bench_input(c, "gen-mixed-1MiB", &mixed, quick);
    let mut broken = mixed.clone();
    // A stray continuation byte 1000 bytes before the end, on a character boundary.
    let mut at = MIB - 1000;
    while (broken[at] as i8) < -0x40 {
        at -= 1;
    }
    broken[at] = 0x80;
    bench_input(c, "gen-error-near-end-1MiB", &broken, quick);
    bench_input(
        c,
        "gen-mixed-64MiB",
        &mixed_text(64 * MIB),
        Duration::from_secs(3),
    );

    for len in [16, 64, 256, 1024] {
        bench_input(c, &format!("short-ascii-{len}"), &ascii_text(len), quick);
        bench_input(c, &format!("short-mixed-{len}"), &mixed_text(len), quick);
    }
}

criterion_group!(benches, peers);
criterion_main!(benches);
