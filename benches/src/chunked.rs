//! Validating data that arrives in pieces: `utf8_validate_chunk` (the verdict) and
//! `utf8_stream_feed` (which also keeps the exact first error), called through the
//! C ABI, against simdutf8's streaming validator (`basic::imp::Utf8Validator`, its
//! AVX2 implementation: simdutf8 has no runtime dispatch for streaming) and against
//! `utf8_validate` on the whole buffer at once, the ceiling for any split.
//!
//! Input: 1 MiB of generated mixed text (1- to 4-byte characters), fed in pieces
//! of 64 bytes, 1 KiB and 16 KiB: most pieces end inside a character.
//!
//! Run: `cargo bench -p utf8validate-bench --bench chunked`, then
//! `python3 benches/summarize.py` for GB/s and the ratios.

use std::ffi::c_char;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use simdutf8::basic::imp::Utf8Validator;
use utf8validate_c_tests::c_api::{
    utf8_stream_feed, utf8_stream_finish, utf8_validate, utf8_validate_chunk,
};
use utf8validate_core::{State, Stream};

// Shared with the `peers` benchmark, which uses every generator.
#[allow(dead_code)]
mod inputs;
use inputs::mixed_text;

const MIB: usize = 1 << 20;

/// `utf8_validate_chunk` over the pieces of `input`: true iff valid.
fn by_chunks(input: &[u8], piece: usize) -> bool {
    let mut state = State::Start as u32;
    for p in input.chunks(piece) {
        // SAFETY: `p` is a live slice: `len` readable bytes at its pointer.
        state = unsafe { utf8_validate_chunk(state, p.as_ptr().cast::<c_char>(), p.len()) };
    }
    state == State::Start as u32
}

/// `utf8_stream_feed` over the pieces of `input`, then `utf8_stream_finish`.
fn by_stream(input: &[u8], piece: usize) -> bool {
    let mut stream = Stream::new();
    for p in input.chunks(piece) {
        // SAFETY: `stream` is initialised; `p` is a live slice.
        unsafe { utf8_stream_feed(&mut stream, p.as_ptr().cast::<c_char>(), p.len()) };
    }
    // SAFETY: `stream` is initialised; NULL asks for no error details.
    unsafe { utf8_stream_finish(&stream, std::ptr::null_mut()) }
}

/// simdutf8's streaming validator (AVX2) over the pieces of `input`.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
unsafe fn by_simdutf8(input: &[u8], piece: usize) -> bool {
    use simdutf8::basic::imp::x86::avx2::Utf8ValidatorImp;
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let mut v = Utf8ValidatorImp::new();
        for p in input.chunks(piece) {
            v.update(p);
        }
        v.finalize().is_ok()
    }
}

fn chunked(c: &mut Criterion) {
    let input = mixed_text(MIB);
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::is_x86_feature_detected!("avx2");
    for piece in [64, 1024, 16 * 1024] {
        assert!(by_chunks(&input, piece) && by_stream(&input, piece));
        // SAFETY: only called with AVX2 present.
        #[cfg(target_arch = "x86_64")]
        assert!(!avx2 || unsafe { by_simdutf8(&input, piece) });
        let mut group = c.benchmark_group(format!("chunked-mixed-1MiB-{piece}"));
        group
            .throughput(Throughput::Bytes(input.len() as u64))
            .measurement_time(Duration::from_millis(1000))
            .warm_up_time(Duration::from_millis(300))
            .sample_size(20);
        group.bench_function("utf8validate_whole", |b| {
            // SAFETY: `input` is a live slice.
            b.iter(|| unsafe { utf8_validate(black_box(&input).as_ptr().cast(), input.len()) })
        });
        group.bench_function("utf8validate_chunk", |b| {
            b.iter(|| by_chunks(black_box(&input), piece))
        });
        group.bench_function("utf8validate_stream", |b| {
            b.iter(|| by_stream(black_box(&input), piece))
        });
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            group.bench_function("simdutf8_streaming_avx2", |b| {
                // SAFETY: AVX2 is present.
                b.iter(|| unsafe { by_simdutf8(black_box(&input), piece) })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, chunked);
criterion_main!(benches);
