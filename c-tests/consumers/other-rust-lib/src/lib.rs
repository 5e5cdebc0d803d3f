//! A tiny Rust staticlib that, like any other, carries its own copy of std.

/// Sums the lengths of `n` words, using std's allocator and formatting so that the
/// staticlib really uses std (as real libraries do).
#[no_mangle]
pub extern "C" fn other_rust_describe(n: u32) -> u32 {
    let words: Vec<String> = (0..n).map(|i| format!("word{i}")).collect();
    words.iter().map(|w| w.len() as u32).sum()
}
