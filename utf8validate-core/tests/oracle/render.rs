//! The two renderings of `escape_into`/`utf8_escape` and `replace_into`/`utf8_replace`,
//! from `std`'s `Utf8Chunks` alone (whose invalid parts are the maximal subparts of
//! Unicode §3.9), and the escaping reversed.

/// The escaped form as a list of units (characters, escapes), from `std` alone.
pub fn escape_units(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut units = Vec::new();
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            units.push(match ch {
                '\\' => b"\\\\".to_vec(),
                '\0' => b"\\x00".to_vec(),
                _ => ch.to_string().into_bytes(),
            });
        }
        for byte in chunk.invalid() {
            units.push(format!("\\x{byte:02X}").into_bytes());
        }
    }
    units
}

/// The replaced form as a list of units, from `std` alone; their concatenation is
/// checked against `String::from_utf8_lossy` below.
pub fn replace_units(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut units = Vec::new();
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            units.push(ch.to_string().into_bytes());
        }
        if !chunk.invalid().is_empty() {
            units.push("\u{FFFD}".as_bytes().to_vec());
        }
    }
    units
}

/// [`escape_units`] concatenated, made a chunk at a time rather than a character
/// at a time: in a well-formed part only `\\` and NUL change, and they are single
/// bytes. What Miri, which interprets every step, is given.
pub fn escape_text(bytes: &[u8]) -> Vec<u8> {
    let mut text = Vec::with_capacity(bytes.len() * 4);
    for chunk in bytes.utf8_chunks() {
        for &b in chunk.valid().as_bytes() {
            match b {
                b'\\' => text.extend_from_slice(b"\\\\"),
                0 => text.extend_from_slice(b"\\x00"),
                _ => text.push(b),
            }
        }
        for byte in chunk.invalid() {
            text.extend_from_slice(format!("\\x{byte:02X}").as_bytes());
        }
    }
    text
}

/// [`replace_units`] concatenated: `String::from_utf8_lossy`, std's own rendering.
pub fn replace_text(bytes: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(bytes).into_owned().into_bytes()
}

/// Reverses the escaping: `\\` is a backslash, `\xHH` the byte 0xHH.
pub fn unescape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' {
            match text.get(i + 1) {
                Some(b'\\') => {
                    out.push(b'\\');
                    i += 2;
                }
                Some(b'x') => {
                    let hex = std::str::from_utf8(&text[i + 2..i + 4]).expect("hex digits");
                    assert!(
                        hex.bytes()
                            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b)),
                        "uppercase hex: {hex}"
                    );
                    out.push(u8::from_str_radix(hex, 16).expect("hex"));
                    i += 4;
                }
                other => panic!("bad escape {other:?} in {text:02x?}"),
            }
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}
