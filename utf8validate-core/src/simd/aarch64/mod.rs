//! aarch64 back end: NEON (16-byte vectors, `tbl` lookups).

pub(crate) mod neon;
