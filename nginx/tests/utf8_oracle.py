"""The first ill-formed sequence of a byte string, worked out from the grammar of
RFC 3629 section 4 (UTF8-2, UTF8-3, UTF8-4 and their tails) and named after the
rows of the "bytes never used" and "two-byte pairs never used" tables of Tang's
draft "The Algorithm to Validate an UTF-8 String" (v0.4).

This is the functional tests' oracle: it shares no code with the module or the
library. `first_error` agrees with Python's own UTF-8 decoder on where the error
starts and how long its maximal subpart is (`check_against_python` asserts it for
each input the tests use); the kind comes from the tables.
"""

# RFC 3629 section 4: a lead byte, how many continuation bytes follow it, and the
# range its first continuation byte must be in (the later ones are UTF8-tail, 80-BF).
#   UTF8-2 = %xC2-DF UTF8-tail
#   UTF8-3 = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
#            %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
#   UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
#            %xF4 %x80-8F 2( UTF8-tail )
def _lead(byte):
    if 0xC2 <= byte <= 0xDF:
        return 1, 0x80, 0xBF
    if byte == 0xE0:
        return 2, 0xA0, 0xBF
    if 0xE1 <= byte <= 0xEC or 0xEE <= byte <= 0xEF:
        return 2, 0x80, 0xBF
    if byte == 0xED:
        return 2, 0x80, 0x9F
    if byte == 0xF0:
        return 3, 0x90, 0xBF
    if 0xF1 <= byte <= 0xF3:
        return 3, 0x80, 0xBF
    if byte == 0xF4:
        return 3, 0x80, 0x8F
    return None


def _is_tail(byte):
    return 0x80 <= byte <= 0xBF


# A lead byte whose first continuation byte is out of its range: the pair's row in
# the draft's "two-byte pairs never used" table.
_PAIR_KIND = {0xE0: "overlong", 0xF0: "overlong", 0xED: "surrogate", 0xF4: "too_large"}


def first_error(data):
    """(offset, length, kind) of the first ill-formed sequence in `data`, or None.

    offset: its first byte; length: its maximal subpart (the lead byte and the
    continuation bytes that fit the grammar; to the end of `data` when the data ends
    inside the sequence); kind: unexpected_continuation, missing_continuation,
    truncated, overlong, surrogate, too_large or invalid_byte.
    """
    i, n = 0, len(data)
    while i < n:
        byte = data[i]
        if byte <= 0x7F:
            i += 1
            continue
        if _is_tail(byte):
            return i, 1, "unexpected_continuation"
        if byte in (0xC0, 0xC1):  # only ever non-shortest 2-byte forms
            return i, 1, "overlong"
        if 0xF5 <= byte <= 0xF7:  # 4-byte forms above U+10FFFF
            return i, 1, "too_large"
        if byte >= 0xF8:  # RFC 2279's 5- and 6-byte leads, FE, FF
            return i, 1, "invalid_byte"
        need, low, high = _lead(byte)
        j = i + 1
        for k in range(need):
            if j >= n:
                return i, n - i, "truncated"
            if not _is_tail(data[j]):
                return i, j - i, "missing_continuation"
            if k == 0 and not low <= data[j] <= high:
                return i, 1, _PAIR_KIND[byte]
            j += 1
        i = j
    return None


def check_against_python(data):
    """Asserts that first_error(data) places the error where Python's decoder does."""
    mine = first_error(data)
    try:
        data.decode("utf-8", "strict")
        theirs = None
    except UnicodeDecodeError as e:
        theirs = (e.start, e.end - e.start)
    assert (mine[:2] if mine else None) == theirs, (data, mine, theirs)
    return mine


def decode_rendering(text):
    """The bytes a rendering in the log stands for: "\\\\" is a backslash, "\\xHH"
    the byte HH, any other character its UTF-8 bytes."""
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\":
            if text[i + 1] == "\\":
                out += b"\\"
                i += 2
            elif text[i + 1] == "x":
                out.append(int(text[i + 2 : i + 4], 16))
                i += 4
            else:
                raise ValueError("bad escape in %r" % text)
        else:
            out += text[i].encode("utf-8")
            i += 1
    return bytes(out)
