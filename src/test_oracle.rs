//! What the C crate's unit tests compare with, from `std` alone: the units of a byte
//! string (whole characters and maximal subparts, as `Utf8Chunks` splits them), the
//! first error as `from_utf8` reports it, the percent decoding written from its
//! rule, and `utf8_escape_quoted`'s rendering.

use std::string::String;
use std::vec::Vec;

/// The offsets between units of `bytes`: 0, the end of each character and of each
/// maximal subpart (`Utf8Chunks`' invalid parts are maximal subparts, one at a
/// time), `bytes.len()`.
pub fn boundaries(bytes: &[u8]) -> Vec<usize> {
    let mut cuts = std::vec![0];
    let mut at = 0;
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            at += ch.len_utf8();
            cuts.push(at);
        }
        if !chunk.invalid().is_empty() {
            at += chunk.invalid().len();
            cuts.push(at);
        }
    }
    cuts
}

/// The first error of `bytes` as `from_utf8` reports it: its offset and the length of
/// its maximal subpart (the rest of the input when it is cut short).
pub fn first_error(bytes: &[u8]) -> Option<(usize, usize)> {
    let e = core::str::from_utf8(bytes).err()?;
    let at = e.valid_up_to();
    Some((at, e.error_len().unwrap_or(bytes.len() - at)))
}

/// `raw` decoded by the rule of `utf8_check_percent` (`%` and two hexadecimal digits
/// is a byte, anything else is itself), and where each decoded byte starts in `raw`
/// (one more entry: `raw.len()`).
pub fn percent_decode(raw: &[u8]) -> (Vec<u8>, Vec<usize>) {
    let hex = |b: u8| char::from(b).to_digit(16);
    let (mut out, mut starts) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < raw.len() {
        starts.push(i);
        let escape = (raw[i] == b'%')
            .then(|| Some((hex(*raw.get(i + 1)?)?, hex(*raw.get(i + 2)?)?)))
            .flatten();
        match escape {
            Some((hi, lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            None => {
                out.push(raw[i]);
                i += 1;
            }
        }
    }
    starts.push(raw.len());
    (out, starts)
}

/// `bytes` as `utf8_escape_quoted` writes them: characters as they are, `\\` for a
/// backslash, `\xHH` for each byte of an ill-formed sequence and of `"`, a C0 or C1
/// control character, DEL, U+2028 and U+2029.
pub fn quoted(bytes: &[u8]) -> String {
    let mut out = String::new();
    let hex = |out: &mut String, b: &[u8]| {
        for byte in b {
            out.push_str(&std::format!("\\x{byte:02X}"));
        }
    };
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            match ch {
                '\\' => out.push_str("\\\\"),
                '"' | '\u{7F}' | '\u{2028}' | '\u{2029}' => {
                    hex(&mut out, ch.encode_utf8(&mut [0; 4]).as_bytes())
                }
                c if c.is_control() => hex(&mut out, c.encode_utf8(&mut [0; 4]).as_bytes()),
                c => out.push(c),
            }
        }
        hex(&mut out, chunk.invalid());
    }
    out
}
