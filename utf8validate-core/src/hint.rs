//! Hints to the compiler about the layout of the code.

/// Marks the path that calls it as unlikely, for the code layout: a cold function,
/// inlined (as hashbrown does; `core::hint::cold_path` is newer than this crate's
/// minimum Rust, 1.89). Same code as `cold_path` on 1.95.
#[cold]
#[inline(always)]
pub(crate) fn cold_path() {}
