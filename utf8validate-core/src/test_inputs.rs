//! Inputs shared by the unit tests (compiled for tests only).

use std::vec::Vec;

/// Every string of three of `pieces` in a row (two under Miri, which is slow): the
/// pieces next to each other in every order, each at the start, middle and end.
pub(crate) fn three_pieces(pieces: &[&[u8]]) -> Vec<Vec<u8>> {
    let third: &[&[u8]] = if cfg!(miri) { &[b""] } else { pieces };
    let mut out = Vec::new();
    for a in pieces {
        for b in pieces {
            for c in third {
                out.push([*a, *b, *c].concat());
            }
        }
    }
    out
}
