# The part of the `utf8-check` debugger command that does not depend on the debugger:
# finding and loading libutf8validate, reading a buffer or a NUL-terminated string
# through a debugger's memory-read function, and the report with its hex dump. The
# gdb extension (gdb/utf8validate.py) and the lldb extension (lldb/utf8validate.py)
# both import it; it imports neither gdb nor lldb.
#
# Errors are raised as `Error`, whose text is what the user sees; each extension
# hands it to its debugger as that debugger's command error.

import ctypes
import ctypes.util
import glob
import os
import re
import sys
import sysconfig

# Longest NUL-terminated string searched for its NUL when no LEN is given (1 MiB).
MAX_CSTRING = 1 << 20
# Largest LEN accepted (256 MiB): anything longer is most likely a garbage length.
MAX_LENGTH = 256 << 20
# Memory is read in blocks that never cross a page boundary of this size; in a block
# that cannot be read, halving finds the first byte that cannot.
PAGE = 4096
# Bytes shown before the error and from the error on in the hex dump (as
# `utf8check -v` and `isutf8 -v`).
BEFORE = 8
AFTER = 8

# Bytes of a string an annotating printer reads at most (`utf8-annotate max-bytes`).
ANNOTATE_MAX_BYTES = 4096

LIBRARY_ENV = "UTF8VALIDATE_LIB"
USAGE = "usage: utf8-check EXPR [LEN]  (see `help utf8-check`)"

# The body of `help utf8-check`, after its first line; `cxx_strings` names the C++
# standard libraries whose strings the debugger's extension reads, and `see_also`
# closes it with that debugger's way of using the check in a breakpoint.
HELP = """Usage: utf8-check EXPR [LEN]

EXPR is one of
  - a pointer to char, signed char, unsigned char or uint8_t (or char8_t):
    the LEN bytes it points to; without LEN, the bytes up to the first NUL
    (searched for in at most 1 MiB: give LEN for longer strings);
  - an array of such bytes, e.g. char name[32]: all of its bytes (its
    sizeof, NULs included), or its first LEN; &name[0] stops at the NUL;
  - a C++ std::string or std::string_view (%(cxx_strings)s): its size()
    bytes, or its first LEN;
  - a struct registered with utf8-annotate type NAME DATA LEN: the LEN
    bytes its field DATA points to, or their first LEN;
  - a void pointer, with LEN.
LEN is the last word of the arguments (outside brackets) when the words
before it form an expression: write it without spaces or in parentheses,
e.g. utf8-check req->body req->len-1 or utf8-check buf (n - 1).

Prints "valid UTF-8 (N bytes)", or
  invalid UTF-8 at byte B (line L, char C): MESSAGE
followed by a hex dump of up to 8 bytes before and 8 from the error, with
carets under its maximal subpart (the bytes a decoder replaces with one
U+FFFD). B is the 0-based offset of the first byte of the first ill-formed
sequence; L and C are 1-based, counted as utf8check and isutf8 do:
L = newlines before B + 1, C = bytes since the last newline + 1.

%(see_also)s"""


class Error(Exception):
    """A failure to report to the user as the command's error (its text only)."""


# `UTF8_ERROR_TRUNCATED` of utf8validate.h: the input ended inside a sequence.
TRUNCATED = 3


class _Utf8Error(ctypes.Structure):
    """`utf8_error` of utf8validate.h."""

    _fields_ = [
        ("offset", ctypes.c_size_t),
        ("length", ctypes.c_size_t),
        ("kind", ctypes.c_uint),
    ]


# --- finding and loading the library ----------------------------------------------

# This file's directory: debugger/ in the source tree, PREFIX/share/utf8validate/debugger
# when installed.
_HERE = os.path.dirname(os.path.realpath(__file__))


def library_candidates(preferred=()):
    """Where libutf8validate is looked for, in order: a list of paths or bare names
    (names are resolved by the dynamic loader). `preferred` comes first after
    $UTF8VALIDATE_LIB (gdb passes the library it auto-loaded its script for)."""
    explicit = os.environ.get(LIBRARY_ENV)
    if explicit:
        # An explicit choice is not second-guessed: only that file is tried.
        return [explicit]
    found = list(preferred)
    # The shared library's file names on this system: the development name, the
    # versioned names an install adds (glob patterns), and its directory under an
    # install prefix (a DLL lives in bin/ next to the programs).
    if sys.platform == "win32":
        name, versioned, prefix_dirs = "utf8validate.dll", [], ["bin"]
    elif sys.platform == "darwin":
        name, versioned, prefix_dirs = "libutf8validate.dylib", ["libutf8validate.*.dylib"], ["lib"]
    else:
        name, versioned, prefix_dirs = "libutf8validate.so", ["libutf8validate.so.*"], ["lib", "lib64"]
        multiarch = sysconfig.get_config_var("MULTIARCH")
        if multiarch:
            prefix_dirs.append(os.path.join("lib", multiarch))
    # In the source tree: debugger/ next to target/.
    root = os.path.dirname(_HERE)
    cargo_target = os.environ.get("CARGO_TARGET_DIR")
    targets = [os.path.join(root, "target")]
    if cargo_target:
        targets.insert(0, cargo_target)
    for target in targets:
        for profile in ("release", "debug"):
            found.append(os.path.join(target, profile, name))
    # In an install prefix: PREFIX/share/utf8validate/debugger/.
    prefix = _HERE
    for _ in range(3):
        prefix = os.path.dirname(prefix)
        for libdir in prefix_dirs:
            # The versioned names (on Linux the soname libutf8validate.so.0 for 0.x,
            # or the real file name), then the development name.
            for pattern in versioned:
                found.extend(sorted(glob.glob(os.path.join(prefix, libdir, pattern)), key=len))
            found.append(os.path.join(prefix, libdir, name))
    # The system's search path (ld.so.cache, LD_LIBRARY_PATH, PATH on Windows).
    system = ctypes.util.find_library("utf8validate")
    if system:
        found.append(system)
    found.append(name)
    unique = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def _open_library(path):
    """The library at `path` with the prototypes used here, or raises OSError."""
    lib = ctypes.CDLL(path)
    try:
        lib.utf8_check.argtypes = [
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.POINTER(_Utf8Error),
        ]
        lib.utf8_check.restype = ctypes.c_bool
        lib.utf8_error_kind_message.argtypes = [ctypes.c_uint]
        lib.utf8_error_kind_message.restype = ctypes.c_char_p
        lib.utf8_error_kind_name.argtypes = [ctypes.c_uint]
        lib.utf8_error_kind_name.restype = ctypes.c_char_p
    except AttributeError as e:
        raise OSError("too old, lacks utf8_check (%s)" % e)
    return lib


_library = None


def library(preferred=()):
    """libutf8validate, loaded on first use; raises Error listing every path tried
    when it cannot be loaded. Its `utf8validate_path` says which file it is."""
    global _library
    if _library is None:
        tried = []
        for candidate in library_candidates(preferred):
            if os.sep in candidate and not os.path.exists(candidate):
                tried.append("  %s: no such file" % candidate)
                continue
            try:
                lib = _open_library(candidate)
            except OSError as e:
                tried.append("  %s: %s" % (candidate, e))
                continue
            lib.utf8validate_path = candidate
            _library = lib
            break
        else:
            raise Error(
                "utf8validate: cannot load libutf8validate; tried:\n%s\n"
                "Set %s to the library's path (e.g. target/release/libutf8validate.so"
                " or PREFIX/lib/libutf8validate.so) and retry."
                % ("\n".join(tried), LIBRARY_ENV)
            )
    return _library


def check(data, preferred=()):
    """`utf8_check` of the bytes: None when valid, else the `_Utf8Error`."""
    err = _Utf8Error()
    if library(preferred).utf8_check(data, len(data), ctypes.byref(err)):
        return None
    return err


# --- reading the program's memory ------------------------------------------------
#
# `read(address, length)` is the debugger's: the `length` bytes at `address`, or None
# when any of them cannot be read.


def _readable_prefix(read, address, length):
    """How many bytes from `address` can be read, by halving, when all `length`
    cannot."""
    good, bad = 0, length
    while bad - good > 1:
        middle = (good + bad) // 2
        if read(address, middle) is not None:
            good = middle
        else:
            bad = middle
    return good


def _first_unreadable(read, address, length):
    """The first address of [address, address + length) that cannot be read."""
    position, end = address, address + length
    while position < end:
        step = min(end - position, PAGE - position % PAGE)
        if read(position, step) is None:
            return position + _readable_prefix(read, position, step)
        position += step
    return end


def read_exact(read, address, length):
    """The `length` bytes at `address`, or Error naming the first unreadable byte."""
    if length == 0:
        return b""
    data = read(address, length)
    if data is not None:
        return bytes(data)
    position = _first_unreadable(read, address, length)
    raise Error(
        "cannot read memory at 0x%x: byte %d of the %d bytes at 0x%x"
        % (position, position - address, length, address)
    )


def read_cstring(read, address):
    """The bytes at `address` up to (not including) the first NUL, searched for in at
    most MAX_CSTRING bytes."""
    data = bytearray()
    position = address
    while len(data) < MAX_CSTRING:
        step = min(PAGE - position % PAGE, MAX_CSTRING - len(data))
        block = read(position, step)
        if block is None:
            # A readable part of the block may still hold the NUL.
            readable = _readable_prefix(read, position, step)
            block = (read(position, readable) or b"") if readable else b""
            nul = bytes(block).find(b"\0")
            if nul >= 0:
                return bytes(data + block[:nul])
            position += len(block)
            raise Error(
                "cannot read memory at 0x%x (byte %d of the string at 0x%x) before"
                " finding its NUL; give the length: utf8-check EXPR LEN"
                % (position, position - address, address)
            )
        block = bytes(block)
        nul = block.find(b"\0")
        if nul >= 0:
            data += block[:nul]
            return bytes(data)
        data += block
        position += step
    raise Error(
        "no NUL in the first %d bytes of the string at 0x%x; give the length:"
        " utf8-check EXPR LEN" % (MAX_CSTRING, address)
    )


def length_arg(length, available=None, what=None):
    """LEN checked against the accepted range and the bytes `available` in `what`;
    `available` when LEN is None."""
    if length is None:
        return available
    if length < 0:
        raise Error("LEN is negative: %d" % length)
    if length > MAX_LENGTH:
        raise Error("LEN %d is larger than the %d bytes utf8-check accepts" % (length, MAX_LENGTH))
    if available is not None and length > available:
        raise Error("LEN %d exceeds the %d bytes of %s" % (length, available, what))
    return length


# --- libstdc++'s std::string read from memory ---------------------------------------
#
# libstdc++ declares basic_string<char> an extern template, so clang++ (without
# -fstandalone-debug) describes it only in a translation unit that instantiates a
# member of it: in a program's debug information it is often an incomplete type, a
# name without fields or size. Such a string is read from the program's memory as
# libstdc++ lays it out, when its names say it holds char.

# libstdc++'s basic_string: std::__cxx11:: for the C++11 ABI, std:: for the
# copy-on-write string (_GLIBCXX_USE_CXX11_ABI=0).
_LIBSTDCXX_STRING = re.compile(r"^(?:const |volatile )*std::(__cxx11::)?basic_string<")
_CHAR_STRING = re.compile(
    r"^(?:const |volatile )*std::(?:__cxx11::)?(?:string$|basic_string<\s*char\s*[,>])"
)


def incomplete_string_abi(names):
    """The ABI of an incomplete libstdc++ std::string known by `names` (its type's
    name, the names its typedefs stand for, its canonical name last): "cxx11" or
    "cow"; None when the canonical name is not libstdc++'s basic_string. Raises Error
    when no name says its characters are char (e.g. std::wstring): the layout of
    other strings is not guessed."""
    match = _LIBSTDCXX_STRING.match(names[-1])
    if match is None:
        return None
    if not any(_CHAR_STRING.match(name) for name in names):
        raise Error(
            "%s is an incomplete type in the debug information (clang++ without"
            " -fstandalone-debug), whose characters are not known to be char: only"
            " std::string is read from memory, e.g. utf8-check *(std::string *)&EXPR"
            % names[0]
        )
    return "cxx11" if match.group(1) else "cow"


def cow_string_size(word_at, pointer, word):
    """The size of a copy-on-write libstdc++ string whose data is at `pointer`: its
    _Rep { size_t _M_length, _M_capacity; int _M_refcount; } precedes the data.
    `word_at(address)` reads a `word`-byte unsigned integer or raises Error."""
    try:
        return word_at(pointer - 3 * word)
    except Error as e:
        raise Error("cannot read the length stored before the string's data: %s" % e)


def libstdcxx_string_span(word_at, address, word, abi):
    """(data pointer, size) of the libstdc++ std::string at `address`, of the ABI
    `abi` ("cxx11" or "cow"), from its words: the data pointer first, then (C++11
    ABI) the size."""
    pointer = word_at(address)
    if abi == "cxx11":
        return pointer, word_at(address + word)
    return pointer, cow_string_size(word_at, pointer, word)


# --- the arguments ---------------------------------------------------------------


def split_arguments(arg, evaluate):
    """(EXPR value, LEN value or None) from `EXPR [LEN]`, with `evaluate(text)` the
    debugger's expression evaluation (raising Error). LEN is the last word outside
    brackets, when both it and the text before it evaluate; otherwise the whole text
    is EXPR. So `p n`, `p (n - 1)` and `(char *) p 10` give a LEN, while `p + 1` and
    `(const char *) p` do not (and `p -1` means LEN -1)."""
    arg = arg.strip()
    if not arg:
        raise Error(USAGE)
    length_error = None
    cut = _last_top_level_space(arg)
    if cut is not None:
        try:
            value = evaluate(arg[:cut])
        except Error:
            pass
        else:
            try:
                length = evaluate(arg[cut:])
            except Error as e:
                length_error = "LEN %s: %s" % (arg[cut:].strip(), e)
            else:
                return value, length
    try:
        return evaluate(arg), None
    except Error as e:
        raise Error("%s (usage: utf8-check EXPR [LEN])" % (length_error or e))


def _last_top_level_space(text):
    depth = 0
    for i in range(len(text) - 1, 0, -1):
        c = text[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            depth -= 1
        elif c.isspace() and depth == 0:
            return i
    return None


# --- reporting -------------------------------------------------------------------


def position(data, offset):
    """(line, char) of byte `offset`, both 1-based, as utf8check and isutf8 count
    them: line = newlines before it + 1; char = bytes since the last newline + 1."""
    line = data.count(b"\n", 0, offset) + 1
    char = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, char


def dump(data, offset, length):
    """The two lines of `utf8check -v`'s hex dump: up to BEFORE bytes before the
    error and AFTER from it on, in hex and as text, with carets under the maximal
    subpart."""
    start = max(0, offset - BEFORE)
    context = data[start : offset + AFTER]
    at = offset - start
    width = 3 * (BEFORE + AFTER)
    hex_part = "".join("%02X " % b for b in context)
    text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in context)
    subpart = max(1, min(length, len(context) - at))
    hex_carets = " " * (3 * at) + "^" * (3 * subpart - 1)
    text_carets = " " * at + "^" * subpart
    return "%s | %s\n%s | %s" % (
        hex_part.ljust(width),
        text,
        hex_carets.ljust(width),
        text_carets,
    )


def report(data, preferred=()):
    """`valid UTF-8 (N bytes)`, or the error line and the hex dump."""
    err = check(data, preferred)
    if err is None:
        return "valid UTF-8 (%d byte%s)" % (len(data), "" if len(data) == 1 else "s")
    line, char = position(data, err.offset)
    message = library(preferred).utf8_error_kind_message(err.kind).decode()
    return "invalid UTF-8 at byte %d (line %d, char %d): %s\n%s" % (
        err.offset,
        line,
        char,
        message,
        dump(data, err.offset, err.length),
    )


# --- annotations (utf8-annotate) ------------------------------------------------------
#
# An annotating printer shows a string's usual text followed by one bracketed verdict.
# It reads at most a capped number of bytes, and never fails: memory it cannot read
# becomes part of the verdict.


def read_prefix(read, address, length):
    """(bytes, unreadable) for the `length` bytes at `address`: all of them and None,
    or the readable bytes before the first unreadable one and that byte's address."""
    if length == 0:
        return b"", None
    data = read(address, length)
    if data is not None:
        return bytes(data), None
    position = _first_unreadable(read, address, length)
    readable = position - address
    data = read(address, readable) if readable else b""
    return bytes(data or b""), position


def read_cstring_prefix(read, address, cap):
    """(bytes, stop) for the NUL-terminated string at `address`, read up to `cap`
    bytes: stop is None when its NUL was found (the bytes exclude it), "cap" when
    `cap` bytes came without a NUL, or the address of the first unreadable byte."""
    data = bytearray()
    position = address
    while len(data) < cap:
        step = min(PAGE - position % PAGE, cap - len(data))
        block, unreadable = read_prefix(read, position, step)
        nul = block.find(b"\0")
        if nul >= 0:
            return bytes(data + block[:nul]), None
        data += block
        if unreadable is not None:
            return bytes(data), unreadable
        position += step
    return bytes(data), "cap"


def annotation(data, size=None, unreadable=None, preferred=()):
    """The verdict an annotating printer adds to a string's text, in brackets.

    `data` is what was read of the string: all of it, or its first bytes when
    `size` (its full length, for a string whose length is known) is larger, when
    `size` is "cap" (a NUL-terminated string longer than what was read), or when
    `unreadable` (the address of the byte that could not be read) is given.

      [valid UTF-8]
      [invalid UTF-8 at byte B: KIND (XX YY)]      the maximal subpart in hex
      [first N bytes valid UTF-8]                  only N bytes were read
      [first N bytes valid UTF-8; cannot read memory at 0xADDR]

    A sequence cut by the end of a partial read is not an error: the bytes after
    it were not read."""
    partial = unreadable is not None or size == "cap" or (size is not None and size > len(data))
    err = check(data, preferred)
    if err is not None and partial and err.kind == TRUNCATED:
        # Cut by the end of what was read: valid so far, up to where it starts.
        err, data = None, data[: err.offset]
    if err is not None:
        # The kind's name (utf8_error_kind_name) as words: "unexpected continuation".
        kind = library(preferred).utf8_error_kind_name(err.kind).decode().replace("_", " ")
        subpart = " ".join("%02X" % b for b in data[err.offset : err.offset + max(1, err.length)])
        return "[invalid UTF-8 at byte %d: %s (%s)]" % (err.offset, kind, subpart)
    if not partial:
        return "[valid UTF-8]"
    text = "[first %d byte%s valid UTF-8" % (len(data), "" if len(data) == 1 else "s")
    if unreadable is not None:
        text += "; cannot read memory at 0x%x" % unreadable
    return text + "]"


def annotate_cstring(read, address, cap, preferred=()):
    """(bytes, stop, verdict) of the NUL-terminated string at `address`, read up to
    `cap` bytes: `stop` as read_cstring_prefix gives it, `verdict` its annotation."""
    data, stop = read_cstring_prefix(read, address, cap)
    if stop == "cap":
        return data, stop, annotation(data, "cap", None, preferred)
    return data, stop, annotation(data, None, stop, preferred)


def annotate_span(read, address, size, cap, preferred=()):
    """(bytes, unreadable, verdict) of the `size` bytes at `address`, of which at most
    `cap` are read: as read_prefix gives them, and their annotation."""
    data, unreadable = read_prefix(read, address, min(size, cap))
    return data, unreadable, annotation(data, size, unreadable, preferred)


ANNOTATE_USAGE = "usage: utf8-annotate [on | off | max-bytes N | type NAME DATA LEN]"

# The body of `help utf8-annotate`; `types` names the C++ strings the debugger's
# printers wrap, and `where` says where the annotation shows in that debugger.
ANNOTATE_HELP = """Usage: utf8-annotate [on | off | max-bytes N | type NAME DATA LEN]

Adds to a string's usual text, wherever %(where)s, whether it is
well-formed UTF-8:
  "caf\\303\\251" [valid UTF-8]
  "path\\300\\257etc" [invalid UTF-8 at byte 4: overlong (C0)]
with the byte offset of the first ill-formed sequence, its kind and its
maximal subpart (the bytes a decoder replaces with one U+FFFD) in hex.

  utf8-annotate on        annotate: char, signed char and unsigned char
                          pointers (up to the NUL), arrays of them (all
                          their bytes), %(types)s
  utf8-annotate off       stop annotating (the default)
  utf8-annotate max-bytes N
                          read at most N bytes of a string (default %(max)d);
                          a longer one says [first N bytes valid UTF-8]
  utf8-annotate type NAME DATA LEN
                          annotate the struct NAME as the LEN bytes its field
                          DATA points to, e.g. utf8-annotate type my_buf data len
  utf8-annotate           show the settings

The printers never call the program and never fail: memory that cannot be
read ends the verdict with "cannot read memory at ADDRESS". The text before
the verdict is what the printer already there shows (%(wrapped)s)."""


def parse_annotate(arg):
    """The action of `utf8-annotate ARG`: ("show",), ("on",), ("off",),
    ("max-bytes", N) or ("type", NAME, DATA, LEN); raises Error with the usage."""
    words = arg.split()
    if not words:
        return ("show",)
    if words[0] in ("on", "off") and len(words) == 1:
        return (words[0],)
    if words[0] == "max-bytes" and len(words) == 2:
        try:
            n = int(words[1], 0)
        except ValueError:
            n = -1
        if not 1 <= n <= MAX_LENGTH:
            raise Error("max-bytes must be from 1 to %d, not %s" % (MAX_LENGTH, words[1]))
        return ("max-bytes", n)
    if words[0] == "type" and len(words) == 4:
        return ("type", words[1], words[2], words[3])
    raise Error(ANNOTATE_USAGE)


def annotate_settings(enabled, max_bytes, types):
    """The text of a bare `utf8-annotate`: `types` maps NAME to (DATA, LEN)."""
    lines = [
        "utf8-annotate is %s; at most %d bytes are read per string"
        % ("on" if enabled else "off", max_bytes)
    ]
    for name in sorted(types):
        data, length = types[name]
        lines.append("  type %s: %s, %s bytes" % (name, data, length))
    return "\n".join(lines)
