//! How errors are written: isutf8's report line, its `-v` hex dump, and JSON lines.

use std::io::{self, Write};

use crate::scan::{Found, AFTER, BEFORE};

/// Width of the hex column of the dump: three characters per byte, as isutf8.
const HEX_WIDTH: usize = 3 * (BEFORE + AFTER);

/// The report line, exactly isutf8's format:
/// `NAME: line L, char C, byte B: MESSAGE`.
pub fn line(out: &mut dyn Write, name: &[u8], f: &Found) -> io::Result<()> {
    out.write_all(name)?;
    writeln!(
        out,
        ": line {}, char {}, byte {}: {}",
        f.line,
        f.column,
        f.byte,
        f.kind.message()
    )
}

/// The `-v` dump, laid out as isutf8's: up to 8 bytes before the error and 8 from it
/// on, in hex and as ASCII ('.' for anything not printable), each with a caret line
/// under it, then an empty line. Unlike isutf8, the carets cover exactly the maximal
/// subpart (the bytes one U+FFFD would replace), not "lead byte to offending byte".
pub fn dump(out: &mut dyn Write, f: &Found) -> io::Result<()> {
    let mut hex = String::with_capacity(HEX_WIDTH);
    let mut text = String::with_capacity(BEFORE + AFTER);
    for &b in &f.context {
        hex.push_str(&format!("{b:02X} "));
        text.push(if b == b' ' || b.is_ascii_graphic() {
            b as char
        } else {
            '.'
        });
    }
    let subpart = f.length.clamp(1, f.context.len() - f.context_at);
    let mut hex_carets = " ".repeat(3 * f.context_at);
    hex_carets.push_str(&"^".repeat(3 * subpart - 1));
    let mut text_carets = " ".repeat(f.context_at);
    text_carets.push_str(&"^".repeat(subpart));
    writeln!(out, "{hex:HEX_WIDTH$} | {text}")?;
    writeln!(out, "{hex_carets:HEX_WIDTH$} | {text_carets}")?;
    writeln!(out)
}

/// One JSON object on one line:
/// `{"file":…,"line":L,"char":C,"byte":B,"length":N,"kind":"snake_case"}`.
///
/// JSON strings are Unicode, so a file name that is not valid UTF-8 is written
/// lossily in `"file"` (each ill-formed sequence becomes U+FFFD), and its exact bytes
/// are added as `"file_bytes":[…]` (numbers 0-255), so a consumer can still open it.
pub fn json(out: &mut dyn Write, name: &[u8], f: &Found) -> io::Result<()> {
    let lossy = String::from_utf8_lossy(name);
    let file = serde_json::to_string(&*lossy).map_err(io::Error::other)?;
    write!(out, "{{\"file\":{file}")?;
    if std::str::from_utf8(name).is_err() {
        let bytes = serde_json::to_string(name).map_err(io::Error::other)?;
        write!(out, ",\"file_bytes\":{bytes}")?;
    }
    writeln!(
        out,
        ",\"line\":{},\"char\":{},\"byte\":{},\"length\":{},\"kind\":\"{}\"}}",
        f.line,
        f.column,
        f.byte,
        f.length,
        f.kind.name()
    )
}
