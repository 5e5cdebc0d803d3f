//! Data in chunks, side by side in one run: `utf8_validate_chunk` and
//! `utf8_stream_feed` + `utf8_stream_finish` (the C library, called through the
//! `libutf8validate.so` that `cargo build --release` makes) against simdutf8's two
//! streaming validators (`basic::imp::x86::avx2::Utf8ValidatorImp`, which takes
//! chunks of any length and buffers what does not fill its 64-byte blocks, and
//! `ChunkedUtf8ValidatorImp`, which takes whole 64-byte blocks only, so it runs only
//! where the size is a multiple of 64), and our `utf8_validate` on the whole input,
//! the ceiling for any split.
//!
//! Inputs: 1 MiB of generated mixed text (1- to 4-byte characters), the Hindi and
//! English Wikipedia pages of `../shared/corpus/wikipedia_mars` and the Latin lipsum
//! of `../shared/corpus` (ASCII), each fed in chunks of 16, 64, 256, 1024, 4096 and
//! 65536 bytes. simdutf8's streaming code is AVX2 in every run; run once as is (our
//! default back end) and once with `UTF8VALIDATE_BACKEND=avx2` (like for like):
//! `bash benches/chunks.sh` does both and prints the tables.

use std::ffi::c_char;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use utf8validate_c_tests::c_api;
use utf8validate_core::{State, Stream};

// Shared with the `peers` benchmark, which uses every generator.
#[allow(dead_code)]
mod inputs;
use inputs::{corpus_dir, mixed_text};

const SIZES: [usize; 6] = [16, 64, 256, 1024, 4096, 65536];

/// The inputs: (name, bytes).
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let corpus = corpus_dir();
    let read = |path: PathBuf| {
        std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (UTF8VALIDATE_CORPUS?)", path.display()))
    };
    vec![
        ("mixed-1MiB", mixed_text(1 << 20)),
        (
            "wiki-hindi",
            read(corpus.join("wikipedia_mars/hindi.utf8.txt")),
        ),
        (
            "wiki-english",
            read(corpus.join("wikipedia_mars/english.utf8.txt")),
        ),
        ("lipsum-latin", read(corpus.join("Latin-Lipsum.utf8.txt"))),
    ]
}

/// `utf8_validate_chunk` over the chunks of `input`: true iff valid.
fn by_chunks(input: &[u8], size: usize) -> bool {
    let chunk = c_api::functions().utf8_validate_chunk;
    let mut state = State::Start as u32;
    for p in input.chunks(size) {
        // SAFETY: `p` is a live slice: `len` readable bytes at its pointer.
        state = unsafe { chunk(state, p.as_ptr().cast::<c_char>(), p.len()) };
    }
    state == State::Start as u32
}

/// `utf8_stream_feed` over the chunks of `input`, then `utf8_stream_finish`.
fn by_stream(input: &[u8], size: usize) -> bool {
    let c = c_api::functions();
    let (init, feed, finish) = (c.utf8_stream_init, c.utf8_stream_feed, c.utf8_stream_finish);
    let mut stream = Stream::new();
    // SAFETY: `stream` is a live `utf8_stream`; each `p` is a live slice; NULL asks
    // finish for no error details.
    unsafe {
        init(&mut stream);
        for p in input.chunks(size) {
            feed(&mut stream, p.as_ptr().cast::<c_char>(), p.len());
        }
        finish(&stream, std::ptr::null_mut())
    }
}

/// simdutf8's streaming validator (AVX2) over the chunks of `input`.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
unsafe fn by_simdutf8(input: &[u8], size: usize) -> bool {
    use simdutf8::basic::imp::Utf8Validator;
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let mut v = simdutf8::basic::imp::x86::avx2::Utf8ValidatorImp::new();
        for p in input.chunks(size) {
            v.update(p);
        }
        v.finalize().is_ok()
    }
}

/// simdutf8's chunked validator (AVX2): whole 64-byte blocks in chunks of `size` bytes
/// (a multiple of 64), the rest of the input at the end.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
unsafe fn by_simdutf8_chunked(input: &[u8], size: usize) -> bool {
    use simdutf8::basic::imp::ChunkedUtf8Validator;
    let whole = input.len() / 64 * 64;
    // SAFETY: the caller guarantees AVX2; every chunk but the rest is a multiple of 64.
    unsafe {
        let mut v = simdutf8::basic::imp::x86::avx2::ChunkedUtf8ValidatorImp::new();
        for p in input[..whole].chunks(size) {
            v.update_from_chunks(p);
        }
        v.finalize(Some(&input[whole..])).is_ok()
    }
}

fn chunks(c: &mut Criterion) {
    let validate = c_api::functions().utf8_validate;
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::is_x86_feature_detected!("avx2");
    println!(
        "utf8validate back end: {} (UTF8VALIDATE_BACKEND={:?})",
        utf8validate_core::backends::selected(),
        std::env::var("UTF8VALIDATE_BACKEND").unwrap_or_default()
    );
    for (name, input) in inputs() {
        assert!(
            std::str::from_utf8(&input).is_ok(),
            "{name} is not valid UTF-8"
        );
        for size in SIZES {
            // Every contender agrees that the input is valid before it is timed.
            assert!(
                by_chunks(&input, size) && by_stream(&input, size),
                "{name}/{size}"
            );
            // SAFETY: `input` is a live slice.
            assert!(unsafe { validate(input.as_ptr().cast(), input.len()) });
            let mut group = c.benchmark_group(format!("chunks-{name}-{size}"));
            group
                .throughput(Throughput::Bytes(input.len() as u64))
                .measurement_time(Duration::from_millis(600))
                .warm_up_time(Duration::from_millis(200))
                .sample_size(10);
            group.bench_function("utf8validate_whole", |b| {
                // SAFETY: `input` is a live slice.
                b.iter(|| unsafe { validate(black_box(&input).as_ptr().cast(), input.len()) })
            });
            group.bench_function("utf8validate_chunk", |b| {
                b.iter(|| by_chunks(black_box(&input), size))
            });
            group.bench_function("utf8validate_stream", |b| {
                b.iter(|| by_stream(black_box(&input), size))
            });
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: AVX2 is present.
                assert!(unsafe { by_simdutf8(&input, size) });
                group.bench_function("simdutf8_streaming", |b| {
                    // SAFETY: AVX2 is present.
                    b.iter(|| unsafe { by_simdutf8(black_box(&input), size) })
                });
                if size % 64 == 0 {
                    // SAFETY: AVX2 is present; `size` is a multiple of 64.
                    assert!(unsafe { by_simdutf8_chunked(&input, size) });
                    group.bench_function("simdutf8_chunked", |b| {
                        // SAFETY: as above.
                        b.iter(|| unsafe { by_simdutf8_chunked(black_box(&input), size) })
                    });
                }
            }
            group.finish();
        }
    }
}

criterion_group!(benches, chunks);
criterion_main!(benches);
