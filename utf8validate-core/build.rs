//! Sets `cfg(simd_back_end)` on targets that have a vector back end: x86 and x86-64
//! (SSSE3, AVX2 and AVX-512 code, chosen at run time) and aarch64 with NEON (every
//! aarch64 target with an operating system). Elsewhere only the scalar machine is
//! compiled.

use std::env;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(simd_back_end)");
    println!("cargo::rerun-if-changed=build.rs");
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let neon = features.split(',').any(|f| f == "neon");
    if arch == "x86" || arch == "x86_64" || (arch == "aarch64" && neon) {
        println!("cargo::rustc-cfg=simd_back_end");
    }
}
