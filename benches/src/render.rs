//! `escape_into` and `replace_into` against `String::from_utf8_lossy`, the peer
//! whose output `replace_into` matches byte for byte (checked before timing;
//! `escape_into` has no peer, and `tests/escape.rs` checks it against its oracles).
//! The C ABI's `utf8_escape` and `utf8_replace` run the same code.
//!
//! Inputs, 1 MiB each: random bytes (an ill-formed sequence every byte or two);
//! generated mixed text (valid: `from_utf8_lossy` then only validates and borrows,
//! while ours also copies); the same text with a byte FF every 1000 and every 10
//! bytes.
//!
//! Run: `cargo bench -p utf8validate-bench --bench render`, then
//! `python3 benches/summarize.py` for MB/s and the ratios.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use utf8validate_core::{escape_into, replace_into};

// Shared with the `peers` benchmark, which uses every generator.
#[allow(dead_code)]
mod inputs;
use inputs::{mixed_text, Rng};

const MIB: usize = 1 << 20;

/// `text` with the byte FF (never in UTF-8) at every `every`-th byte.
fn damaged(text: &[u8], every: usize) -> Vec<u8> {
    let mut damaged = text.to_vec();
    for i in (every / 2..damaged.len()).step_by(every) {
        damaged[i] = 0xFF;
    }
    damaged
}

fn render(c: &mut Criterion) {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let random: Vec<u8> = (0..MIB).map(|_| rng.next() as u8).collect();
    let text = mixed_text(MIB);
    let inputs = [
        ("random", random),
        ("error-every-10", damaged(&text, 10)),
        ("error-every-1000", damaged(&text, 1000)),
        ("valid", text),
    ];
    // The largest result: every byte escaped as `\xHH`.
    let mut out = vec![0u8; 4 * MIB];
    for (name, input) in &inputs {
        let lossy = String::from_utf8_lossy(input);
        let r = replace_into(input, &mut out);
        assert!(
            r.is_complete() && &out[..r.written] == lossy.as_bytes(),
            "{name}"
        );

        let mut group = c.benchmark_group(format!("render-{name}-1MiB"));
        group
            .throughput(Throughput::Bytes(input.len() as u64))
            .measurement_time(Duration::from_millis(1000))
            .warm_up_time(Duration::from_millis(300))
            .sample_size(20);
        group.bench_function("escape_into", |b| {
            b.iter(|| escape_into(black_box(input), &mut out).written)
        });
        group.bench_function("replace_into", |b| {
            b.iter(|| replace_into(black_box(input), &mut out).written)
        });
        group.bench_function("std_from_utf8_lossy", |b| {
            b.iter(|| String::from_utf8_lossy(black_box(input)).len())
        });
        group.finish();
    }
}

criterion_group!(benches, render);
criterion_main!(benches);
